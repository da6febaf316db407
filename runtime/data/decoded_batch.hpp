// A batch after its converters ran: per record the decoded key, value, their schemas,
// mutable headers and metadata, plus the raw Batch it came from. This is what moves
// through the transform stages; the sink or producer encodes it once at the end.
//
// Ownership and lifetime:
// - The DecodedBatch owns the raw Batch, the Arena holding every decoded value, and
//   (through retain()) every schema its records point to. Values, header keys and
//   topics are views into those; they are valid as long as the DecodedBatch lives and
//   until reset(). Nothing a record points to may come from elsewhere, except static
//   storage: use arena() / copy() for new strings and containers.
// - The raw Batch is read-only once decoded (its arena must not reallocate: header
//   views and zero-copy strings point into it).
// - Moving a DecodedBatch moves a few vectors and the arena's block list: no value is
//   copied and every view stays valid. Copying is deleted.
//
// Across nodes: inspect() encodes every record to the JsonConverter envelope form
// (schemas enabled, decimals base64, headers as envelopes) and decodes it on the
// other side: roughly one converter encode + decode per record per hop, the same
// cost as a sink's serialization. raw() on the receiving side holds that encoded
// form, not the original bytes. Keep stages of one pipeline on one node where
// throughput matters.
//
// Threading: none; one actor owns the batch at a time and hands it on by moving it.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/data/arena.hpp"
#include "runtime/data/errors.hpp"
#include "runtime/data/schema.hpp"
#include "runtime/data/value.hpp"
#include "runtime/batch.hpp"
#include "weir/record.hpp"

namespace weir::runtime::data {

// A record, its headers and the Key/Value side are the plugin SDK's (weir/record.hpp).
using weir::Header;
using weir::HeaderList;
using weir::RecordState;
using weir::Side;
using DecodedRecord = weir::RecordData;

class DecodedBatch;

/// What an SMT or predicate sees of one record: the SDK's Record plus its batch.
/// A handle (like a pointer): a const RecordView still lets the record be changed.
class RecordView : public weir::Record {
public:
  inline RecordView(DecodedBatch& batch, uint32_t index) noexcept;

  DecodedRecord& record() const noexcept { return *rec_; }
  uint32_t index() const noexcept { return index_; }
  inline DecodedBatch& batch() const noexcept;

private:
  uint32_t index_;
};

class DecodedBatch final : public weir::RecordBatch {
public:
  DecodedBatch() = default;
  /// Takes `raw` and fills record metadata and headers; keys and values are null
  /// until a converter decodes them (convert::RecordCodec::decode does both).
  explicit DecodedBatch(Batch raw) { reset(std::move(raw)); }
  DecodedBatch(DecodedBatch&&) noexcept = default;
  DecodedBatch& operator=(DecodedBatch&&) noexcept = default;
  DecodedBatch(const DecodedBatch&) = delete;
  DecodedBatch& operator=(const DecodedBatch&) = delete;

  /// Reuses this object for another batch: arena rewound, vectors kept.
  void reset(Batch raw);

  const Batch& raw() const noexcept { return raw_; }
  /// Moves the raw batch out, e.g. to recycle its memory for the next poll. Every
  /// view into it (zero-copy strings, raw headers) dangles afterwards: call this only
  /// once the decoded records are no longer used (after encoding).
  Batch take_raw() noexcept {
    Batch b = std::move(raw_);
    raw_ = Batch();
    return b;
  }
  size_t size() const noexcept { return records_.size(); }
  bool empty() const noexcept { return records_.empty(); }
  DecodedRecord& operator[](size_t i) noexcept { return records_[i]; }
  const DecodedRecord& operator[](size_t i) const noexcept { return records_[i]; }
  std::span<DecodedRecord> records() noexcept { return records_; }
  std::span<const DecodedRecord> records() const noexcept { return records_; }
  RecordView view(uint32_t i) noexcept { return {*this, i}; }
  size_t live_count() const noexcept;

  Arena& arena() noexcept override { return arena_; }
  RecordErrors& errors() noexcept { return errors_; }
  const RecordErrors& errors() const noexcept { return errors_; }

  /// Records an error for record `i` and marks it Failed.
  void fail(uint32_t i, ErrorStage stage, std::string_view class_name, const std::exception& e);

  /// Keeps `schema` alive while this batch lives; returns the pointer records store.
  const Schema* retain(const SchemaPtr& schema) override {
    // Inline for the common case, a converter retaining the same schema per record.
    if (!retained_.empty() && retained_.back() == schema)
      return schema.get();
    return retain_more(schema);
  }
  /// Keeps any other owner alive while this batch lives: an SMT whose strings (field
  /// names, static values) records view instead of copying calls this per record
  /// (cheap: repeated owners are recognised).
  template <class T>
  void keep_alive(const std::shared_ptr<T>& owner) {
    // Compare raw pointers first: converting to shared_ptr<const void> costs two
    // atomic operations, and the owner is almost always already kept.
    if (!recently_kept(owner.get()))
      kept_.push_back(owner);
  }

  bool recently_kept(const void* p) const noexcept {
    size_t n = kept_.size();
    for (size_t k = 0; k < 4 && k < n; ++k)
      if (kept_[n - 1 - k].get() == p)
        return true;
    return false;
  }

  /// Appends a record that has no raw counterpart (used when rebuilding from the wire).
  DecodedRecord& append_record(DecodedRecord r) { records_.push_back(r); return records_.back(); }

private:
  const Schema* retain_more(const SchemaPtr& schema);

  Batch raw_;
  Arena arena_{64 * 1024};
  std::vector<DecodedRecord> records_;
  std::vector<SchemaPtr> retained_;
  std::vector<std::shared_ptr<const void>> kept_;
  RecordErrors errors_;
};

inline RecordView::RecordView(DecodedBatch& batch, uint32_t index) noexcept
    : weir::Record(batch[index], batch), index_(index) {}
inline DecodedBatch& RecordView::batch() const noexcept { return static_cast<DecodedBatch&>(*batch_); }

/// The node-independent form of a DecodedBatch (see the file comment).
struct DecodedBatchWire {
  Batch encoded; ///< every record, key/value/headers as JsonConverter envelopes
  std::vector<uint8_t> states;
  std::vector<uint32_t> raw_indexes;
  RecordErrors errors;
};

// Implemented in runtime/convert/wire.cpp (it needs the JsonConverter). from_wire
// throws DataError on bytes that to_wire did not produce.
DecodedBatchWire to_wire(DecodedBatch& batch);
DecodedBatch from_wire(DecodedBatchWire&& wire);

/// CAF's inspector protocol. Serializing (reads_state) encodes via to_wire();
/// deserializing decodes via from_wire(). See the cost note in the file comment.
template <class Inspector>
auto inspect(Inspector& f, DecodedBatch& x) {
  DecodedBatchWire w;
  if constexpr (Inspector::reads_state) {
    w = to_wire(x);
    return f(w.encoded, w.states, w.raw_indexes, w.errors);
  } else {
    auto result = f(w.encoded, w.states, w.raw_indexes, w.errors);
    try {
      x = from_wire(std::move(w));
    } catch (const std::exception&) {
      x = DecodedBatch{}; // only after a failed or corrupt read, which `result` reports
    }
    return result;
  }
}

} // namespace weir::runtime::data
