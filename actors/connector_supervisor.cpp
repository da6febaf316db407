#include "actors/connector_supervisor.hpp"

#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/task_actor.hpp"

namespace weir::actors {

namespace {

/// (adopt_atom, int32_t task, std::vector<caf::actor> stages) -> caf::actor: spawns
/// the task actor over `stages` as the supervisor's child.
using adopt_atom = caf::atom_constant<caf::atom("adopt")>;

struct SupervisorState {
  std::string connector;
  TaskFailed failed;
  /// Task actors not yet down, with their task; shared with the functor that ends
  /// them when the supervisor ends (the state may be gone by then).
  std::shared_ptr<std::map<caf::actor_addr, int32_t>> children = std::make_shared<std::map<caf::actor_addr, int32_t>>();
  std::set<caf::actor_addr> reported;          ///< children whose failure was handed on
  static inline const char* name = "weir.connector.supervisor";
};

using supervisor_actor = caf::stateful_actor<SupervisorState>;

/// Hands a child's failure on, once.
void report(supervisor_actor* self, const caf::actor_addr& child, int32_t task, const std::string& trace) {
  auto& st = self->state;
  if (!st.reported.insert(child).second)
    return;
  st.failed(task, child, trace);
}

/// Why a task actor may end without having failed: drained (none), ended by its
/// runner (user_shutdown), abandoned at once (kill).
bool no_failure(const caf::error& reason) {
  return !reason || reason == caf::exit_reason::user_shutdown || reason == caf::exit_reason::kill;
}

caf::behavior supervisor(supervisor_actor* self, std::string connector, TaskFailed failed) {
  auto& st = self->state;
  st.connector = std::move(connector);
  st.failed = std::move(failed);
  // However the supervisor ends, its children end with it.
  self->attach_functor([children = st.children] {
    for (const auto& [child, task] : *children)
      caf::anon_send_exit(child, caf::exit_reason::user_shutdown);
  });
  self->set_down_handler([=](caf::down_msg& down) {
    auto& st = self->state;
    auto child = st.children->find(down.source);
    if (child == st.children->end())
      return;
    // A task actor that died without telling why (an exception of its own).
    if (!no_failure(down.reason))
      report(self, down.source, child->second, self->system().render(down.reason));
    st.reported.erase(down.source);
    st.children->erase(child);
  });
  return {
    [=](adopt_atom, int32_t task, std::vector<caf::actor> stages) {
      auto child = spawn_task_actor(self->system(), self->state.connector, task, std::move(stages), self);
      self->monitor(child);
      self->state.children->emplace(child.address(), task);
      return child;
    },
    [=](task_failed_atom, const std::string&, int32_t task, const std::string& trace) {
      auto child = caf::actor_cast<caf::actor_addr>(self->current_sender());
      if (self->state.children->count(child))
        report(self, child, task, trace);
    },
  };
}

} // namespace

caf::actor spawn_child_task(caf::actor_system& sys, const caf::actor& supervisor, int32_t task,
                            const std::vector<caf::actor>& stages) {
  caf::scoped_actor self{sys};
  caf::actor out;
  caf::error refused;
  self->request(supervisor, std::chrono::seconds{10}, adopt_atom::value, task, stages)
    .receive([&](caf::actor& actor) { out = std::move(actor); }, [&](caf::error& e) { refused = std::move(e); });
  if (!out) {
    for (const auto& stage : stages)
      caf::anon_send_exit(stage, caf::exit_reason::user_shutdown);
    throw std::runtime_error("its connector's supervisor did not take task " + std::to_string(task) + ": "
                             + sys.render(refused));
  }
  return out;
}

caf::actor spawn_connector_supervisor(caf::actor_system& sys, std::string connector, TaskFailed failed) {
  return sys.spawn(supervisor, std::move(connector), std::move(failed));
}

TaskActors spawn_task(caf::actor_system& sys, const SinkTaskSpec& spec, const caf::actor& supervisor) {
  auto spawned = spawn_sink_task(sys, spec);
  auto actor = spawn_child_task(sys, supervisor, spec.task, spawned.stages);
  return {std::move(actor), std::move(spawned.stages), std::move(spawned.names)};
}

TaskActors spawn_task(caf::actor_system& sys, const SourceTaskSpec& spec, const caf::actor& supervisor) {
  auto spawned = spawn_source_task(sys, spec);
  auto actor = spawn_child_task(sys, supervisor, spec.task, spawned.stages);
  return {std::move(actor), std::move(spawned.stages), std::move(spawned.names), std::move(spawned.offsets)};
}

} // namespace weir::actors
