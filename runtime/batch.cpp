#include "runtime/batch.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "runtime/data/bytes.hpp"

namespace weir {

void Batch::reserve(size_t records, size_t bytes) {
  records_.reserve(records);
  arena_.reserve(bytes);
}

// store() and topic_index() are inline: only this file calls them, once or twice
// per appended record.
inline Slice Batch::store(std::optional<std::string_view> bytes) {
  if (!bytes)
    return {};
  // Slices address the arena with 32-bit offsets: a batch is bounded by credit,
  // which is far below 4 GiB, so overflowing here is a programming error.
  if (arena_.size() + bytes->size() >= Slice::null_size)
    throw std::length_error("batch arena would exceed 4 GiB");
  Slice s{static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(bytes->size())};
  arena_.insert(arena_.end(), bytes->begin(), bytes->end());
  return s;
}

inline uint32_t Batch::topic_index(std::string_view topic) {
  // Consecutive records almost always share a topic: the last record's is tried
  // first. Batches hold few topics (usually one): a linear scan beats hashing.
  if (!records_.empty()) {
    uint32_t last = records_.back().topic;
    const std::string& t = topics_[last];
    // Compared inline: a memcmp call per appended record was ~30 instructions.
    if (t.size() == topic.size() && runtime::data::equal_bytes(t.data(), topic.data(), t.size()))
      return last;
  }
  auto it = std::find(topics_.begin(), topics_.end(), topic);
  if (it != topics_.end())
    return static_cast<uint32_t>(it - topics_.begin());
  topics_.emplace_back(topic);
  return static_cast<uint32_t>(topics_.size() - 1);
}

size_t Batch::append(std::string_view topic, int32_t partition, int64_t offset,
                     int64_t timestamp, std::optional<std::string_view> key,
                     std::optional<std::string_view> value) {
  uint32_t topic_i = topic_index(topic);
  Slice k = store(key);
  Slice v = store(value);
  // Filled in place: a RecordRef built on the stack and pushed would be stored field
  // by field and reloaded whole, a store-forwarding stall per record (this was ~5%
  // of the transform path, bench/results/transforms.md).
  RecordRef& r = records_.emplace_back();
  r.key = k;
  r.value = v;
  r.first_header = static_cast<uint32_t>(headers_.size());
  r.topic = topic_i;
  r.partition = partition;
  r.offset = offset;
  r.timestamp = timestamp;
  return records_.size() - 1;
}

void Batch::add_header(std::string_view key, std::optional<std::string_view> value) {
  if (records_.empty())
    throw std::logic_error("Batch::add_header called before any record was appended");
  auto& r = records_.back();
  headers_.push_back({store(key), store(value)});
  ++r.header_count;
}

void Batch::set_value(size_t index, std::optional<std::string_view> value) {
  records_.at(index).value = store(value);
}

void Batch::set_key(size_t index, std::optional<std::string_view> key) {
  records_.at(index).key = store(key);
}

void Batch::set_topic(size_t index, std::string_view topic) {
  records_.at(index).topic = topic_index(topic);
}

void Batch::clear() noexcept {
  topics_.clear();
  arena_.clear();
  records_.clear();
  headers_.clear();
  sequence = 0;
}

namespace {

bool same_bytes(const Batch& a, Slice x, const Batch& b, Slice y) {
  return x.is_null() == y.is_null() && a.bytes(x) == b.bytes(y);
}

} // namespace

bool operator==(const Batch& a, const Batch& b) {
  if (a.size() != b.size() || a.sequence != b.sequence)
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto& x = a[i];
    const auto& y = b[i];
    if (a.topic(x) != b.topic(y) || x.partition != y.partition || x.offset != y.offset
        || x.timestamp != y.timestamp || !same_bytes(a, x.key, b, y.key)
        || !same_bytes(a, x.value, b, y.value) || x.header_count != y.header_count)
      return false;
    auto hx = a.headers(x);
    auto hy = b.headers(y);
    for (size_t h = 0; h < hx.size(); ++h)
      if (!same_bytes(a, hx[h].key, b, hy[h].key) || !same_bytes(a, hx[h].value, b, hy[h].value))
        return false;
  }
  return true;
}

} // namespace weir
