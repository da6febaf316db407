#include "connectors/jdbc/sink_batch.hpp"

namespace weir::connectors::jdbc {

Position consumed_position(const runtime::data::DecodedBatch& batch, const runtime::data::DecodedRecord& r) noexcept {
  if (r.raw_index < batch.raw().size()) {
    const auto& raw = batch.raw()[r.raw_index];
    return {batch.raw().topic(raw), raw.partition, raw.offset};
  }
  return {r.topic, r.partition, r.offset};
}

Op operation(const JdbcSinkConfig& config, bool tombstone) noexcept {
  if (tombstone) return Op::Delete;
  switch (config.insert_mode) {
    case InsertMode::Upsert: return Op::Upsert;
    case InsertMode::Update: return Op::Update;
    case InsertMode::Insert: break;
  }
  return Op::Insert;
}

OffsetSlot* OffsetSlots::find(std::string_view topic, int32_t partition) noexcept {
  if (last_ < slots_.size()) {
    OffsetSlot& s = slots_[last_];
    if (s.partition == partition && s.topic == topic) return &s;
  }
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].partition == partition && slots_[i].topic == topic) return &slots_[last_ = i];
  return nullptr;
}

OffsetSlot& OffsetSlots::at(std::string_view topic, int32_t partition, int64_t stored_next) {
  if (OffsetSlot* s = find(topic, partition)) return *s;
  slots_.push_back({topic, partition, stored_next, -1});
  last_ = slots_.size() - 1;
  return slots_.back();
}

void ColumnSet::assign(Op o, const Row& row) {
  op = o;
  key_count = row.key_count;
  columns.clear();
  for (const auto& c : row.columns) columns.emplace_back(c.name);
}

bool ColumnSet::matches(Op o, const Row& row) const noexcept {
  if (op != o || key_count != row.key_count || columns.size() != row.columns.size()) return false;
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] != row.columns[i].name) return false;
  return true;
}

runtime::data::DataError empty_table_name(const JdbcSinkConfig& config, std::string_view topic) {
  return runtime::data::DataError("Destination table name for topic '" + std::string(topic) +
                                  "' is empty using the format string '" + config.table_name_format + "'");
}

} // namespace weir::connectors::jdbc
