#include "runtime/connector_api/source_task.hpp"

#include <algorithm>
#include <stdexcept>

namespace weir::runtime::connector_api {

void SourceRecords::set_offset(std::string_view partition, std::string_view offset) {
  // Tasks report few partitions per batch (usually one): a scan beats a map.
  for (auto& [p, o] : offsets_)
    if (p == partition) {
      o.assign(offset);
      return;
    }
  offsets_.emplace_back(partition, offset);
}

void SourceOffsets::emitted(uint64_t sequence,
                            std::vector<std::pair<std::string, std::string>> positions,
                            uint64_t records) {
  auto now = std::chrono::steady_clock::now(); // one stamp per batch
  std::lock_guard lock{mutex_};
  if (!pending_.empty() && pending_.back().sequence >= sequence)
    throw std::logic_error("source batch sequence numbers must increase");
  pending_.push_back({sequence, std::move(positions), false, now, records});
}

void SourceOffsets::delivered(uint64_t sequence) {
  auto now = std::chrono::steady_clock::now();
  std::lock_guard lock{mutex_};
  auto it = std::find_if(pending_.begin(), pending_.end(),
                         [&](const Pending& p) { return p.sequence == sequence; });
  if (it == pending_.end())
    return; // already committed, or never emitted (an empty batch)
  it->delivered = true;
  poll_to_ack_.record(
    static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(now - it->emitted).count()),
    it->records);
  // Deliveries may complete out of order (batches to different partitions); only
  // the delivered prefix may be committed.
  while (!pending_.empty() && pending_.front().delivered) {
    for (auto& [partition, offset] : pending_.front().positions) {
      committed_[partition] = offset;
      changed_[partition] = offset;
    }
    pending_.pop_front();
    ++committed_batches_;
  }
}

metrics::LatencyHistogram SourceOffsets::poll_to_ack() const {
  std::lock_guard lock{mutex_};
  return poll_to_ack_;
}

OffsetMap SourceOffsets::through(uint64_t sequence) const {
  std::lock_guard lock{mutex_};
  OffsetMap out;
  for (const auto& p : pending_) {
    if (p.sequence > sequence)
      break;
    for (const auto& [partition, offset] : p.positions)
      out[partition] = offset;
  }
  return out;
}

OffsetMap SourceOffsets::committed() const {
  std::lock_guard lock{mutex_};
  return committed_;
}

OffsetMap SourceOffsets::take_changes() {
  std::lock_guard lock{mutex_};
  return std::exchange(changed_, {});
}

uint64_t SourceOffsets::committed_batches() const {
  std::lock_guard lock{mutex_};
  return committed_batches_;
}

size_t SourceOffsets::pending_batches() const {
  std::lock_guard lock{mutex_};
  return pending_.size();
}

} // namespace weir::runtime::connector_api
