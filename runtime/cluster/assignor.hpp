// The supervisor's assignment of connectors and tasks to nodes: incremental,
// cooperative and sticky, as Kafka Connect's IncrementalCooperativeAssignor.
//
// A pure function of the previous assignment, the work that should run and the
// live nodes, so every property (balance, stickiness, fewest moves) is tested
// without a cluster. The supervisor applies the result in two steps: revocations
// first (the node flushes and commits), then the new assignments.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace weir::runtime::cluster {

/// One unit of work: a connector instance (`task == connector_instance`) or one of
/// its tasks. Kafka Connect balances the two kinds separately; so does weir.
struct Work {
  static constexpr int connector_instance = -1;

  std::string connector;
  int task = connector_instance;

  bool is_connector() const noexcept { return task == connector_instance; }
  auto operator<=>(const Work&) const = default;
};

/// Work → node.
using Assignment = std::map<Work, std::string>;

/// A connector's work: its instance and its tasks 0..tasks-1.
std::set<Work> work_of(const std::string& connector, int tasks);

struct AssignmentInput {
  Assignment previous;             ///< what runs where now (may name departed nodes)
  std::set<Work> wanted;           ///< everything that should run
  std::vector<std::string> live;   ///< nodes that take work, in a stable order
  /// Departed nodes still within `scheduled.rebalance.max.delay.ms`: their work
  /// stays theirs (not reassigned) until the delay runs out or they return.
  std::set<std::string> held;
};

struct AssignmentPlan {
  Assignment next;                   ///< the target assignment
  std::map<Work, std::string> revoked;   ///< work leaving a live node (node it leaves)
  std::map<Work, std::string> assigned;  ///< work starting on a node (node it starts on)

  /// Tasks and connectors that move or start: revocations plus new placements.
  size_t moves() const noexcept { return revoked.size() + assigned.size(); }
};

/// Computes the next assignment:
///  - work already on a live or held node stays there (sticky);
///  - work on a node that is neither live nor held, and new work, is placed on the
///    least loaded live nodes;
///  - live nodes end within one unit of each other, per kind (connectors, tasks),
///    shedding as little as possible from the most loaded;
///  - work no longer wanted is revoked.
/// Deterministic: the same input gives the same plan on every node.
AssignmentPlan assign(const AssignmentInput& input);

} // namespace weir::runtime::cluster
