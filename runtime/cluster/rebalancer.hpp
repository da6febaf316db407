// The supervisor's bookkeeping on the leader: turns membership changes and the work
// that should run into rounds of the cooperative protocol, as Kafka Connect's
// incremental cooperative rebalancing does:
//   1. revoke: nodes stop (flush, commit) the work that moves away, and confirm;
//   2. assign: once every revocation of the round is confirmed (or its node is
//      gone), the moved and new work starts on its new nodes.
// A node that departs keeps its work for `scheduled.rebalance.max.delay.ms`; if it
// returns within that time nothing moves. Every round has a generation number;
// nodes ignore messages of an older generation.
//
// Nodes are named by a stable key (their cluster.listen address), so a node that
// restarts is the same node to the supervisor. CAF-free; the supervisor actor
// drives it from membership events and a timer (deadline()).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/cluster/assignor.hpp"

namespace weir::runtime::cluster {

class Rebalancer {
public:
  using Clock = std::chrono::steady_clock;
  using WorkByNode = std::map<std::string, std::vector<Work>>;

  /// One step to send to the nodes: either revocations or assignments.
  struct Round {
    uint64_t generation = 0;
    WorkByNode revoke;
    WorkByNode assign;
  };

  explicit Rebalancer(std::chrono::milliseconds max_delay) : max_delay_(max_delay) {}

  /// Everything that should run (connectors and their tasks).
  void set_wanted(std::set<Work> wanted);
  /// The nodes that take work now, in the membership's order (oldest first).
  void set_live(std::vector<std::string> live, Clock::time_point now);
  /// A new leader learns what runs where from the nodes themselves: `node` runs
  /// `work` as of `generation` (later rounds continue from the highest one).
  void adopt(const std::string& node, const std::vector<Work>& work, uint64_t generation);
  /// `node` runs nothing but what round `generation` gives it (what the round
  /// revoked from it is stopped). Said of any other generation, it is ignored.
  void applied(const std::string& node, uint64_t generation);

  /// The next round to send, if any: call after every change and at deadline().
  std::optional<Round> poll(Clock::time_point now);
  /// When a departed node's delay runs out (the next poll that may move work).
  std::optional<Clock::time_point> deadline() const;

  /// What runs where, as far as the supervisor knows (revoked work is absent until
  /// it is assigned again).
  const Assignment& assignment() const noexcept { return current_; }
  uint64_t generation() const noexcept { return generation_; }
  /// Nodes whose revocations the current round still waits for.
  const std::set<std::string>& awaiting() const noexcept { return awaiting_; }

private:
  std::chrono::milliseconds max_delay_;
  std::set<Work> wanted_;
  std::vector<std::string> live_;
  std::map<std::string, Clock::time_point> departed_; ///< node -> end of its delay
  Assignment current_;
  uint64_t generation_ = 0;
  bool dirty_ = false;
  std::set<std::string> awaiting_; ///< revocations not yet confirmed
  WorkByNode pending_assign_;      ///< released when awaiting_ empties
};

} // namespace weir::runtime::cluster
