#include "actors/connector_actor.hpp"

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include <spdlog/spdlog.h>

namespace weir::actors {

using StringMap = std::map<std::string, std::string>;

std::vector<StringMap> make_task_configs(const engine::worker::ConnectorPlan& plan) {
  if (plan.sink)
    return std::vector<StringMap>(static_cast<size_t>(plan.tasks_max), plan.config);
  return plan.source->task_configs(plan.config, plan.tasks_max);
}

std::chrono::milliseconds watch_interval(const engine::worker::ConnectorPlan& plan) {
  constexpr std::string_view key = "table.poll.interval.ms";
  const ConfigKey* declared = plan.source ? plan.source->definition().find(key) : nullptr;
  if (!declared)
    return std::chrono::milliseconds{0};
  auto given = plan.config.find(std::string{key});
  // Validated with the plan: a whole number of milliseconds, at least 1.
  return std::chrono::milliseconds{std::stoll(given != plan.config.end() ? given->second
                                                                          : declared->default_value.value())};
}

namespace {

using watch_atom = caf::atom_constant<caf::atom("watch")>;

struct ConnectorState {
  std::shared_ptr<const engine::worker::ConnectorPlan> plan;
  TasksChanged changed;
  std::chrono::milliseconds interval{0};
  std::vector<StringMap> last; ///< what it made last (and the worker runs)
  static inline const char* name = "weir.connector";
};

using connector_actor = caf::stateful_actor<ConnectorState>;

MadeTasks make(connector_actor* self) {
  auto& st = self->state;
  MadeTasks out;
  try {
    out.configs = make_task_configs(*st.plan);
    st.last = out.configs;
  } catch (const std::exception& e) {
    out.failure = st.plan->scrub(e.what());
  }
  return out;
}

caf::behavior connector(connector_actor* self, std::shared_ptr<const engine::worker::ConnectorPlan> plan,
                        TasksChanged changed) {
  auto& st = self->state;
  st.plan = std::move(plan);
  st.changed = std::move(changed);
  st.interval = watch_interval(*st.plan);
  if (st.interval.count() > 0)
    self->delayed_send(self, st.interval, watch_atom::value);
  return {
    [=](make_atom) { return make(self); },
    [=](watch_atom) {
      auto& st = self->state;
      auto before = st.last;
      auto made = make(self);
      if (!made.failure.empty())
        spdlog::warn("connector {}: looking for changed work failed: {}", st.plan->name, made.failure);
      else if (made.configs != before) {
        spdlog::info("connector {}: its work changed: asking for a reconfiguration of its tasks", st.plan->name);
        st.changed(std::move(made.configs));
      }
      self->delayed_send(self, st.interval, watch_atom::value);
    },
  };
}

} // namespace

caf::actor spawn_connector_actor(caf::actor_system& sys, std::shared_ptr<const engine::worker::ConnectorPlan> plan,
                                 TasksChanged changed) {
  // A source may query its database to make its task configs: a thread of its own,
  // as Kafka Connect gives each connector. A sink's are copies of its config.
  if (plan->source)
    return sys.spawn<caf::detached>(connector, std::move(plan), std::move(changed));
  return sys.spawn(connector, std::move(plan), std::move(changed));
}

} // namespace weir::actors
