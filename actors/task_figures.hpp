// How a task is doing: its state, as its runner recorded it (FAILED when a task
// actor reported a failure, or the task could not start), and its counts and the
// words its status and the actor tree show, read from its stages' published
// statistics. Plain C++: no actor is asked anything.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/worker/catalog.hpp"
#include "runtime/metrics/metrics_registry.hpp"

namespace weir::actors {

/// A task's figures from its stages' published statistics.
struct TaskFigures {
  std::string state = "RUNNING"; ///< FAILED when it failed, FINISHED when all its stages did
  std::string trace;
  uint64_t written = 0; ///< by the sink writer, or produced by a source task
  uint64_t errors = 0;
  int64_t lag = -1;
  int32_t partitions = -1;
  std::string idle_reason; ///< the consumer's, when it has no partition; a source task's, when it has no work
  std::string waiting;     ///< its Kafka client's, while it cannot work ("waiting for the broker since ...")
};

/// The figures of task `id` from `stages` (a connector's snapshot). A task with a
/// `failure` (it failed, or could not start) is FAILED with it as the trace.
TaskFigures task_figures(const std::string& failure, int id,
                         const std::vector<runtime::metrics::StageSnapshot>& stages);

/// Why a running sink task has no partition, as far as is known: what its consumer
/// says (no such topic, not assigned yet), else more tasks than partitions or a
/// rebalance under way (partitions lost to a session timeout, say).
std::string idle_trace(int tasks_max, int32_t partitions, const TaskFigures& f);

/// A stage's role as GET /weir/tree names it.
std::string role_name(runtime::metrics::StageRole role);

/// What a verdict calls a stage: an SMT's class, the sink's connector class and
/// its database, "Kafka" for the clients of the broker.
std::string kind_in_words(const engine::worker::ConnectorPlan& plan, runtime::metrics::StageRole role,
                          const std::string& stage);

/// A task's name in logs and errors: CONNECTOR-N.
inline std::string task_name(const std::string& connector, size_t task) {
  return connector + "-" + std::to_string(task);
}

} // namespace weir::actors
