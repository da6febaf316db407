#include "runtime/data/decoded_batch.hpp"

#include <new>
#include <type_traits>

namespace weir::runtime::data {

void DecodedBatch::reset(Batch raw) {
  raw_ = std::move(raw);
  arena_.reset();
  retained_.clear();
  kept_.clear();
  errors_.clear();
  // Records are rebuilt in place over the previous batch's (no clear() first, which
  // would have resize() write every record once more): building one on the stack and
  // copying it in costs a store-forwarding stall per field, and each write pass over
  // the records is ~30 KB of stores per batch (reset() was ~5-6% of the transform path).
  static_assert(std::is_trivially_destructible_v<DecodedRecord>);
  records_.resize(raw_.size());
  for (uint32_t i = 0; i < raw_.size(); ++i) {
    const auto& r = raw_[i];
    DecodedRecord& d = *new (&records_[i]) DecodedRecord{
        .topic = raw_.topic(r), .partition = r.partition, .offset = r.offset, .timestamp = r.timestamp,
        .key = {}, .value = {}, .headers = {}, .raw_index = i};
    // Headers are decoded as schemaless strings viewing the raw arena (zero copy).
    for (const auto& h : raw_.headers(r)) {
      Header hd;
      hd.key = raw_.bytes(h.key);
      hd.value = h.value.is_null() ? Value() : Value::string(raw_.bytes(h.value));
      d.headers.push_back(arena_, hd);
    }
  }
}

size_t DecodedBatch::live_count() const noexcept {
  size_t n = 0;
  for (const auto& r : records_)
    n += r.live() ? 1 : 0;
  return n;
}

void DecodedBatch::fail(uint32_t i, ErrorStage stage, std::string_view class_name,
                        const std::exception& e) {
  errors_.add(i, stage, class_name, e);
  records_[i].state = RecordState::Failed;
}

const Schema* DecodedBatch::retain_more(const SchemaPtr& schema) {
  if (!schema)
    return nullptr;
  // Most batches hold one or two schemas per side: look at the newest few only;
  // a duplicate further back costs one pointer, not correctness.
  size_t n = retained_.size();
  for (size_t k = 0; k < 4 && k < n; ++k)
    if (retained_[n - 1 - k] == schema)
      return schema.get();
  retained_.push_back(schema);
  return schema.get();
}

} // namespace weir::runtime::data
