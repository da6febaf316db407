// Record batches: the unit of data that moves between weir's actors.
//
// A batch owns one contiguous byte arena holding every key, value, header key and
// header value of its records; a record refers to its bytes by offset and length.
// Moving a batch (between actors in one process) therefore moves four vectors and
// copies no record bytes, and appending a record to a batch whose arena was
// reserved up front allocates nothing.
//
// Threading: a batch is a plain value with no internal synchronisation. Exactly one
// actor owns it at a time; it is handed on by moving it into a message.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace weir {

/// A byte range inside a batch's arena. `size == null_size` encodes a null
/// (absent) key, value or header value, which Kafka distinguishes from empty.
struct Slice {
  static constexpr uint32_t null_size = std::numeric_limits<uint32_t>::max();
  uint32_t offset = 0;
  uint32_t size = null_size;

  bool is_null() const noexcept { return size == null_size; }
  uint32_t length() const noexcept { return is_null() ? 0 : size; }
};

/// One record header: a key and a (nullable) value, as in Kafka.
struct HeaderRef {
  Slice key;
  Slice value;
};

/// One record's metadata and slices. Offsets are Kafka offsets; `timestamp` is in
/// milliseconds since the epoch (-1 when unknown), as Kafka Connect reports it.
struct RecordRef {
  Slice key;
  Slice value;
  uint32_t first_header = 0;
  uint32_t header_count = 0;
  uint32_t topic = 0; ///< index into Batch::topics()
  int32_t partition = -1;
  int64_t offset = -1;
  int64_t timestamp = -1;
};

/// A batch of records with the arena that holds their bytes.
class Batch {
public:
  Batch() = default;

  /// Reserves room for `records` records and `bytes` bytes of keys, values and
  /// headers, so that appending within those limits allocates nothing.
  void reserve(size_t records, size_t bytes);

  /// Appends a record; bytes are copied into the arena once. A std::nullopt key
  /// or value is a Kafka null. Returns the record's index.
  size_t append(std::string_view topic, int32_t partition, int64_t offset,
                int64_t timestamp, std::optional<std::string_view> key,
                std::optional<std::string_view> value);

  /// Adds a header to the record appended last.
  void add_header(std::string_view key, std::optional<std::string_view> value);

  /// Replaces a record's value (a transform's output); the old bytes stay in the
  /// arena until the batch dies, which keeps every other slice valid.
  void set_value(size_t index, std::optional<std::string_view> value);
  void set_key(size_t index, std::optional<std::string_view> key);
  void set_topic(size_t index, std::string_view topic);

  size_t size() const noexcept { return records_.size(); }
  bool empty() const noexcept { return records_.empty(); }
  const RecordRef& operator[](size_t i) const noexcept { return records_[i]; }
  std::span<const RecordRef> records() const noexcept { return records_; }
  std::span<const HeaderRef> headers(const RecordRef& r) const noexcept {
    return {headers_.data() + r.first_header, r.header_count};
  }

  /// The bytes of a slice; empty for a null slice (check Slice::is_null()).
  std::string_view bytes(Slice s) const noexcept {
    return s.is_null() ? std::string_view{} : std::string_view{arena_.data() + s.offset, s.size};
  }
  std::string_view topic(const RecordRef& r) const noexcept { return topics_[r.topic]; }
  const std::vector<std::string>& topics() const noexcept { return topics_; }

  /// Bytes the batch accounts for in credit: arena plus per-record metadata.
  /// Memory bounds are computed from this number, so it errs high, never low.
  size_t byte_size() const noexcept {
    return arena_.size() + records_.size() * sizeof(RecordRef) + headers_.size() * sizeof(HeaderRef);
  }

  /// Drops every record but keeps the reserved memory, for reuse.
  void clear() noexcept;

  /// A producer-assigned sequence number, so that acks can name their batch.
  uint64_t sequence = 0;

  template <class Inspector>
  friend auto inspect(Inspector& f, Batch& x) {
    return f(x.sequence, x.topics_, x.arena_, x.records_, x.headers_);
  }

  friend bool operator==(const Batch& a, const Batch& b);

private:
  Slice store(std::optional<std::string_view> bytes);
  uint32_t topic_index(std::string_view topic);

  std::vector<std::string> topics_;
  std::vector<char> arena_;
  std::vector<RecordRef> records_;
  std::vector<HeaderRef> headers_;
};

// Inspection (CAF's serialization hook, also usable by any other inspector).
template <class Inspector>
auto inspect(Inspector& f, Slice& x) {
  return f(x.offset, x.size);
}
template <class Inspector>
auto inspect(Inspector& f, HeaderRef& x) {
  return f(x.key, x.value);
}
template <class Inspector>
auto inspect(Inspector& f, RecordRef& x) {
  return f(x.key, x.value, x.first_header, x.header_count, x.topic, x.partition, x.offset,
           x.timestamp);
}

} // namespace weir
