// A task as an actor (`weir.task`): the parent of its stage actors in the tree
// node -> connector -> task -> stages. It monitors every stage and forwards drain
// requests to the first; when a stage ends abnormally it tells its parent, as a
// message, which task failed and why, then ends the stages that are left. It
// applies no policy: its parent (the task runner's) decides what a failure means.
//
// The stages are built on the caller's thread (a source task's start() may block
// on its system for a while), then handed to the task actor before any of them can
// be lost: monitoring a stage that already ended still delivers its down message.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>

#include "actors/sink_task_actor.hpp"
#include "actors/source_task_actor.hpp"

namespace weir::actors {

/// (task_failed_atom, std::string connector, int32_t task, std::string trace): from
/// a task actor to its parent, once, when one of its stages failed.
using task_failed_atom = caf::atom_constant<caf::atom("taskfailed")>;

/// A running task: its actor, and its stages for those that watch them (taps).
struct TaskActors {
  caf::actor actor;                ///< the task actor; it ends once all its stages have
  std::vector<caf::actor> stages;  ///< reader first
  std::vector<std::string> names;  ///< the stages' names in the tree, same order
  std::shared_ptr<runtime::connector_api::SourceOffsets> offsets = nullptr; ///< a source task's
};

/// Builds a sink (source) task's stages, as spawn_sink_task (spawn_source_task)
/// does, and spawns its task actor, whose failures go to `parent`. Throws what
/// those throw when the task cannot start.
TaskActors spawn_task(caf::actor_system& sys, const SinkTaskSpec& spec, caf::actor parent);
TaskActors spawn_task(caf::actor_system& sys, const SourceTaskSpec& spec, caf::actor parent);

/// The task actor over `stages` (reader first), for tests and the functions above.
caf::actor spawn_task_actor(caf::actor_system& sys, std::string connector, int32_t task,
                            std::vector<caf::actor> stages, caf::actor parent);

} // namespace weir::actors
