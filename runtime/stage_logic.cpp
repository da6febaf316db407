#include "runtime/stage_logic.hpp"

#include <algorithm>

namespace weir::runtime {

namespace {

void advance(std::vector<kafka::TopicPartitionOffset>& out, std::string_view topic,
             int32_t partition, int64_t offset) {
  // Batches hold few partitions: a linear scan beats a map.
  auto it = std::find_if(out.begin(), out.end(), [&](const auto& o) {
    return o.partition == partition && o.topic == topic;
  });
  if (it == out.end())
    out.push_back({std::string{topic}, partition, offset + 1});
  else
    it->offset = std::max(it->offset, offset + 1);
}

} // namespace

std::vector<kafka::TopicPartitionOffset> durable_offsets(const Batch& batch) {
  std::vector<kafka::TopicPartitionOffset> out;
  for (const auto& r : batch.records())
    advance(out, batch.topic(r), r.partition, r.offset);
  return out;
}

std::vector<kafka::TopicPartitionOffset> durable_offsets(const data::DecodedBatch& batch) {
  // The raw records carry the consumed positions even when an SMT re-routed a
  // record to another topic.
  return durable_offsets(batch.raw());
}

int64_t total_lag(const std::vector<kafka::PartitionLag>& lags) {
  int64_t total = 0;
  bool known = false;
  for (const auto& p : lags)
    if (p.lag >= 0) {
      total += p.lag;
      known = true;
    }
  return known ? total : -1;
}

} // namespace weir::runtime
