// A connector's actor on a node (`weir.connector.supervisor`): the parent of the
// connector's task actors there, in the tree node -> connector -> task -> stages.
// It spawns each task actor over the stages built for it and monitors it; a task's
// failure reaches it as a message (task_failed_atom, with the trace), or as the
// task actor's abnormal down message should it die without one, and it hands the
// failure on, once per task actor, to whoever applies the policy (the task runner:
// FAILED with the trace, then the automatic restart).
//
// It is not the connector's instance (connector_actor.hpp, which makes the task
// configs and may run on another node): restarting the instance leaves the tasks
// and their parent running, as Kafka Connect's connector restart leaves its tasks.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>

#include "actors/sink_task_actor.hpp"
#include "actors/source_task_actor.hpp"

namespace weir::actors {

/// Told by a supervisor, from its thread, when one of its tasks failed: the task,
/// the task actor that failed (a restarted task's earlier actor may still report)
/// and the trace.
using TaskFailed = std::function<void(int32_t task, const caf::actor_addr& from, const std::string& trace)>;

caf::actor spawn_connector_supervisor(caf::actor_system& sys, std::string connector, TaskFailed failed);

/// Has `supervisor` spawn task `task`'s actor over `stages` (reader first) as its
/// child, and returns it. Throws when the supervisor does not answer within 10 s;
/// the stages are ended then.
caf::actor spawn_child_task(caf::actor_system& sys, const caf::actor& supervisor, int32_t task,
                            const std::vector<caf::actor>& stages);

/// A running task: its actor, and its stages for those that watch them (taps).
struct TaskActors {
  caf::actor actor;                ///< the task actor; it ends once all its stages have
  std::vector<caf::actor> stages;  ///< reader first
  std::vector<std::string> names;  ///< the stages' names in the tree, same order
  std::shared_ptr<runtime::connector_api::SourceOffsets> offsets = nullptr; ///< a source task's
};

/// Builds a sink (source) task's stages on the calling thread, as spawn_sink_task
/// (spawn_source_task) does, then has `supervisor` spawn its task actor over them.
/// Throws what those throw when the task cannot start, or when the supervisor does
/// not answer (its stages are ended then).
TaskActors spawn_task(caf::actor_system& sys, const SinkTaskSpec& spec, const caf::actor& supervisor);
TaskActors spawn_task(caf::actor_system& sys, const SourceTaskSpec& spec, const caf::actor& supervisor);

} // namespace weir::actors
