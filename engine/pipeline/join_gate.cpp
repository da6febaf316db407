#include "engine/pipeline/join_gate.hpp"

#include <algorithm>
#include <climits>
#include <utility>

namespace weir::engine::pipeline {

JoinGate::JoinGate(int32_t partitions, std::chrono::steady_clock::duration join_patience,
                   std::chrono::steady_clock::duration read_patience)
  : partitions_(partitions), join_deadline_(std::chrono::steady_clock::now() + join_patience),
    read_deadline_(std::chrono::steady_clock::now() + read_patience) {}

size_t JoinGate::enroll() {
  std::lock_guard lock{mutex_};
  held_.push_back(not_assigned);
  return held_.size() - 1;
}

bool JoinGate::take_first() {
  std::lock_guard lock{mutex_};
  return !std::exchange(first_taken_, true);
}

bool JoinGate::may_join() const {
  std::lock_guard lock{mutex_};
  return first_assigned_ || std::chrono::steady_clock::now() >= join_deadline_;
}

bool JoinGate::wait_to_join(std::chrono::steady_clock::duration timeout) const {
  std::unique_lock lock{mutex_};
  auto until = std::min(std::chrono::steady_clock::now() + timeout, join_deadline_);
  first_assigned_changed_.wait_until(lock, until, [&] { return first_assigned_; });
  return first_assigned_ || std::chrono::steady_clock::now() >= join_deadline_;
}

void JoinGate::assigned(size_t member, int32_t held) {
  {
    std::lock_guard lock{mutex_};
    first_assigned_ = true; // only the first member is in the group before it is
    if (member < held_.size() && held_[member] != gone)
      held_[member] = held;
  }
  first_assigned_changed_.notify_all();
}

void JoinGate::leave(size_t member) {
  std::lock_guard lock{mutex_};
  if (member < held_.size())
    held_[member] = gone;
}

bool JoinGate::may_read() {
  std::lock_guard lock{mutex_};
  open_ = open_ || settled() || std::chrono::steady_clock::now() >= read_deadline_;
  return open_;
}

bool JoinGate::settled() const {
  int32_t least = INT32_MAX, most = 0, total = 0;
  for (auto h : held_) {
    if (h == gone)
      continue;
    if (h == not_assigned)
      return false;
    least = std::min(least, h);
    most = std::max(most, h);
    total += h;
  }
  if (least == INT32_MAX)
    return true; // every member is gone: nobody to wait for
  // Cooperative rebalancing assigns a partition only once its previous owner gave it
  // up, so all of them held means no handover is pending.
  return most - least <= 1 && (partitions_ <= 0 || total == partitions_);
}

} // namespace weir::engine::pipeline
