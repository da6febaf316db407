// A task as an actor (`weir.task`): the parent of its stage actors in the tree
// node -> connector -> task -> stages. It monitors every stage and forwards drain
// requests to the first; when a stage ends abnormally it tells its parent, as a
// message, which task failed and why, then ends the stages that are left. It
// applies no policy: its parent, the connector's supervisor on this node
// (connector_supervisor.hpp), hands the failure to the task runner, which decides.
//
// The stages are built on the caller's thread (a source task's start() may block
// on its system for a while), then handed to the task actor before any of them can
// be lost: monitoring a stage that already ended still delivers its down message.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>

namespace weir::actors {

/// (task_failed_atom, std::string connector, int32_t task, std::string trace): from
/// a task actor to its parent, once, when one of its stages failed.
using task_failed_atom = caf::atom_constant<caf::atom("taskfailed")>;

/// The task actor over `stages` (reader first), whose failures go to `parent`.
caf::actor spawn_task_actor(caf::actor_system& sys, std::string connector, int32_t task,
                            std::vector<caf::actor> stages, caf::actor parent);

} // namespace weir::actors
