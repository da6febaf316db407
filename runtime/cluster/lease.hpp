// Two clocks a node keeps about Kafka, as plain logic for the node actor (CAF-free,
// tested without a cluster):
//  - KafkaReach: whether this node reaches Kafka. A node silent with the broker for
//    the unreachable timeout is cut off: it stops its tasks and takes no work.
//  - LeaderLease: whether another node still holds the leadership. The leader writes
//    its assignment record again every third of the unreachable timeout; a record
//    that has not moved for the unreachable timeout is a lapsed lease.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace weir::runtime::cluster {

class KafkaReach {
public:
  using Clock = std::chrono::steady_clock;
  enum class Change { none, lost, regained };

  explicit KafkaReach(std::chrono::milliseconds timeout) : timeout_(timeout) {}

  /// `last_contact`: when the broker last answered. Returns what changed.
  Change update(Clock::time_point last_contact, Clock::time_point now);
  /// This process was frozen until `now`: silence before it is not the broker's.
  void resumed(Clock::time_point now) { resumed_ = now; }
  bool cut_off() const noexcept { return cut_off_; }
  /// How long the broker has been silent, as of the last update.
  std::chrono::milliseconds silence() const noexcept { return silence_; }

private:
  std::chrono::milliseconds timeout_;
  Clock::time_point resumed_{};
  bool cut_off_ = false;
  std::chrono::milliseconds silence_{0};
};

class LeaderLease {
public:
  using Clock = std::chrono::steady_clock;

  explicit LeaderLease(std::chrono::milliseconds timeout) : timeout_(timeout) {}

  /// The assignment record as the config log shows it now: its offset (-1: none)
  /// and the member id of the leader that wrote it.
  void observe(int64_t offset, const std::string& leader, Clock::time_point now);
  /// Whether a node other than `self` renewed the leadership within the timeout.
  bool held_by_another(const std::string& self, Clock::time_point now) const;
  const std::string& holder() const noexcept { return leader_; }

private:
  std::chrono::milliseconds timeout_;
  int64_t offset_ = -1;
  std::string leader_;
  Clock::time_point seen_{};
};

} // namespace weir::runtime::cluster
