#include "actors/task_actor.hpp"

#include <algorithm>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"

namespace weir::actors {

namespace {

struct TaskState {
  std::string connector;
  int32_t task = 0;
  caf::actor parent;
  std::vector<caf::actor> stages; ///< those not yet down, reader first
  bool reader_up = true;          ///< a drain goes to the reader, while there is one
  bool ending = false;
  caf::error reason; ///< why it ends, once it does
  static inline const char* name = "weir.task";
};

using task_actor = caf::stateful_actor<TaskState>;

/// A failed stage quits with its trace as the error's context (see stage.cpp);
/// anything else (a remote stage's node lost, say) is told in CAF's words.
std::string trace_of(task_actor* self, const caf::error& reason) {
  const auto& context = reason.context();
  if (context.match_elements<std::string>())
    return context.get_as<std::string>(0);
  return self->system().render(reason);
}

/// Ends the stages that are left; the task actor itself quits once they are down,
/// so whoever waits for it waits for them (a consumer leaving its group).
void end(task_actor* self, caf::error reason) {
  auto& st = self->state;
  if (!st.ending) {
    st.ending = true;
    st.reason = std::move(reason);
  }
  for (const auto& stage : st.stages)
    self->send_exit(stage, caf::exit_reason::user_shutdown);
  if (st.stages.empty())
    self->quit(st.reason);
}

caf::behavior task_behavior(task_actor* self, std::string connector, int32_t task,
                            std::vector<caf::actor> stages, caf::actor parent) {
  auto& st = self->state;
  st.connector = std::move(connector);
  st.task = task;
  st.parent = std::move(parent);
  st.stages = std::move(stages);
  std::vector<caf::actor_addr> addresses;
  for (const auto& stage : st.stages) {
    self->monitor(stage);
    addresses.push_back(stage.address());
  }
  // However the task actor ends (a kill included, which no handler sees), its
  // stages end with it.
  self->attach_functor([addresses] {
    for (const auto& stage : addresses)
      caf::anon_send_exit(stage, caf::exit_reason::user_shutdown);
  });
  self->set_down_handler([=](caf::down_msg& down) {
    auto& st = self->state;
    if (!st.stages.empty() && st.stages.front().address() == down.source)
      st.reader_up = false;
    std::erase_if(st.stages, [&](const caf::actor& s) { return s.address() == down.source; });
    // The first abnormal end is the failure; the stages linked to it end with the
    // same reason, and those the task ends itself are no failure.
    if (down.reason && !st.ending) {
      auto trace = trace_of(self, down.reason);
      spdlog::warn("task {}-{} ends its stages after a failure", st.connector, st.task);
      self->send(st.parent, task_failed_atom::value, st.connector, st.task, std::move(trace));
      return end(self, std::move(down.reason));
    }
    if (st.stages.empty())
      self->quit(st.reason);
  });
  self->set_exit_handler([=](caf::exit_msg& exit) { end(self, std::move(exit.reason)); });
  return {
    // Drain: the reader stops reading, what is in flight is written and committed,
    // and the stages quit one after the other.
    [=](stop_atom) {
      if (self->state.reader_up)
        self->send(self->state.stages.front(), stop_atom::value);
    },
  };
}

} // namespace

caf::actor spawn_task_actor(caf::actor_system& sys, std::string connector, int32_t task,
                            std::vector<caf::actor> stages, caf::actor parent) {
  return sys.spawn(task_behavior, std::move(connector), task, std::move(stages), std::move(parent));
}

} // namespace weir::actors
