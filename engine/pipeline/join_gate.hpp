// How the consumers of the sink tasks a connector starts together join their group
// and when they begin to read, so that a start rewrites no record.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>
#include "engine/runtime_names.hpp"

namespace weir::engine::pipeline {

/// Shared by the consumers of the tasks a connector starts together (all of them,
/// in one empty group). Two rules:
///
/// Joining. When they join a new group at once, with the broker's
/// group.initial.rebalance.delay.ms at 0 (Kafka's development setting), the first
/// JoinGroup completes a generation alone, the next one breaks it before its
/// SyncGroup, and librdkafka 2.0 rejoins only after its 1 s join interval: 1 to 2 s
/// without records. So the first consumer joins alone and the others once it has its
/// assignment (or after `join_patience`); the group then hands their partitions over.
///
/// Reading. That handover takes two or three generations, and librdkafka 2.0 reports
/// a partition "lost" when a SyncGroup of its generation fails (another member
/// rejoined meanwhile): a lost partition cannot be committed, so what its first owner
/// read of it was read again by the next owner, a partition's worth of duplicates per
/// start under load. So no member reads before the group has settled: every member
/// has had an assignment, the partitions are spread within one of each other, and all
/// of them (when their count is known) are held. Then nothing read can move. After
/// `read_patience` the members read anyway (a member that never joins must not hold
/// the others back for ever).
///
/// A sink that writes a record read twice once (the JDBC sinks: offsets stored with
/// the rows) uses the joining rule only and reads at once: a replay costs it a re-read,
/// never a duplicate (TopicReader::Options::read_before_settled).
///
/// Not for static members (a cluster's sink tasks, KIP-345): tasks restarted on
/// another node take the places of dead members in a group that is not empty.
/// Thread-safe: each member calls it from its own consumer thread.
class JoinGate {
public:
  /// `partitions`: how many the members' topics have together (<= 0: unknown).
  explicit JoinGate(int32_t partitions = -1,
                    std::chrono::steady_clock::duration join_patience = std::chrono::seconds{5},
                    std::chrono::steady_clock::duration read_patience = std::chrono::seconds{30});

  /// A new member; returns its number for the calls below.
  size_t enroll();
  /// True for the first member to ask: it joins at once.
  bool take_first();
  /// Whether the other members may join now.
  bool may_join() const;
  /// may_join(), waiting for it at most `timeout` (a member's consumer thread waits
  /// here as it would in an empty poll, rather than asking again at once).
  bool wait_to_join(std::chrono::steady_clock::duration timeout) const;
  /// Member `member` now holds `held` partitions (after each of its rebalances).
  void assigned(size_t member, int32_t held);
  /// Member `member` is gone (its task ended or failed to start): not waited for.
  void leave(size_t member);
  /// Whether the members may read: once true, true for good.
  bool may_read();

private:
  static constexpr int32_t not_assigned = -1;
  static constexpr int32_t gone = -2;
  bool settled() const; // with mutex_ held

  const int32_t partitions_;
  const std::chrono::steady_clock::time_point join_deadline_;
  const std::chrono::steady_clock::time_point read_deadline_;
  mutable std::mutex mutex_;
  mutable std::condition_variable first_assigned_changed_;
  std::vector<int32_t> held_; ///< per member: partitions held, not_assigned or gone
  bool first_taken_ = false;
  bool first_assigned_ = false;
  bool open_ = false;
};

} // namespace weir::engine::pipeline
