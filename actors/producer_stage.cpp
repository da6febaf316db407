#include "actors/producer_stage.hpp"

#include <chrono>
#include <exception>
#include <string>
#include <utility>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/inlet.hpp"
#include "actors/messages.hpp"
#include "engine/pipeline/producer_logic.hpp"

namespace weir::actors {

namespace {

using namespace std::chrono_literals;

/// A converter's retry is due.
using retry_atom = caf::atom_constant<caf::atom("retry")>;

/// How often delivery reports are served while records are out.
constexpr auto poll_interval = 2ms;

struct ProducerState {
  ProducerSpec spec;
  Inlet in;
  bool failed = false;
  bool tick_pending = false;
  StageStats stats;
  static inline const char* name = "weir.producer";
};

using producer_actor = caf::stateful_actor<ProducerState>;

/// Brings the figures up to date and publishes them to the stage's metrics cell, if any.
StageStats& observe(producer_actor* self) {
  auto& st = self->state;
  const auto& logic = *st.spec.logic;
  st.stats.records_out = logic.records_out();
  st.stats.waiting = logic.waiting();
  st.stats.mailbox = self->mailbox().size();
  st.in.fill_stats(st.stats);
  st.stats.poll_to_ack = logic.poll_to_ack();
  if (st.spec.cell)
    st.spec.cell->publish(st.stats);
  return st.stats;
}

/// Tells the task's observer that this stage is through: drained, or failed while
/// asked to drain (it has nothing more to deliver, so no drain need wait for it).
void report_done(producer_actor* self) {
  auto& st = self->state;
  if (st.spec.observer)
    self->send(st.spec.observer, done_atom::value, st.stats);
}

/// A failed producer holds what it has: no credit goes back, so the task stops,
/// and no offset advances past what was delivered (or committed).
void fail(producer_actor* self, const std::string& what) {
  auto& st = self->state;
  st.failed = true;
  st.stats.errors += st.spec.logic->records_failed();
  mark_failed(st.stats, what);
  observe(self);
  if (st.in.upstream_done())
    report_done(self);
  self->quit(caf::make_error(caf::sec::runtime_error, what)); // as a failed stage (stage.cpp)
}

/// Lets the logic move (deliveries, commits, produces), then returns the credit of
/// what was delivered, keeps the tick going while records are out, and finishes
/// once the stream ended and everything is delivered and committed.
void step(producer_actor* self) {
  auto& st = self->state;
  if (st.failed)
    return;
  auto& logic = *st.spec.logic;
  try {
    if (auto wait = logic.pump())
      self->delayed_send(self, *wait, retry_atom::value);
  } catch (const std::exception& e) {
    return fail(self, e.what());
  }
  bool released = false;
  while (auto charged = logic.pop_released()) {
    st.in.release(self, *charged);
    released = true;
  }
  if (logic.finished()) {
    st.stats.state = "FINISHED";
    observe(self);
    report_done(self);
    self->quit();
    return;
  }
  if (released)
    observe(self);
  if (!st.tick_pending && logic.needs_polling()) {
    st.tick_pending = true;
    self->delayed_send(self, poll_interval, tick_atom::value);
  }
}

StageStats starting_stats(const ProducerSpec& spec) {
  StageStats stats;
  stats.name = spec.name;
  stats.kind = "producer";
  stats.state = "RUNNING";
  stats.capacity = spec.capacity;
  return stats;
}

caf::behavior producer_behavior(producer_actor* self, ProducerSpec spec) {
  auto& st = self->state;
  st.spec = std::move(spec);
  st.in = Inlet{st.spec.capacity};
  st.stats = starting_stats(st.spec);
  try {
    st.spec.logic->start();
  } catch (const std::exception& e) {
    fail(self, e.what());
  }
  return {
    [=](attach_atom) { self->state.in.attach(self); },
    [=](batch_atom, Batch& batch, uint64_t charged) {
      auto& st = self->state;
      st.in.arrived(st.stats, batch.size(), charged);
      if (st.failed)
        return;
      st.spec.logic->submit(std::move(batch), charged);
      step(self);
    },
    [=](batch_atom, DecodedBatchMsg& msg, uint64_t charged) {
      auto& st = self->state;
      st.in.arrived(st.stats, msg.batch->size(), charged);
      if (st.failed)
        return;
      st.in.tap(self, *msg.batch);
      st.spec.logic->submit(std::move(msg.batch), charged);
      step(self);
    },
    [=](tick_atom) {
      auto& st = self->state;
      st.tick_pending = false;
      auto waiting = st.stats.waiting;
      step(self);
      if (!st.failed && st.spec.logic->waiting() != waiting)
        observe(self); // the broker went away or came back: the task status says so
    },
    [=](retry_atom) {
      self->state.spec.logic->retry();
      step(self);
    },
    [=](eos_atom) {
      auto& st = self->state;
      st.in.end_of_stream();
      st.spec.logic->end_of_input();
      if (st.failed)
        return report_done(self);
      step(self);
    },
    [=](stats_atom) { return observe(self); },
    [=](tap_atom, int32_t count, caf::actor& subscriber) { self->state.in.subscribe(count, std::move(subscriber)); },
  };
}

} // namespace

caf::actor spawn_producer(caf::actor_system& sys, ProducerSpec spec) {
  // Shown RUNNING before the actor's thread first runs: the cell is the task's, and
  // an earlier run of it (paused and resumed, moved away and back) left FINISHED
  // there when it drained, which the task's RUNNING must not sit beside.
  if (spec.cell)
    spec.cell->publish(starting_stats(spec));
  return sys.spawn<caf::detached>(producer_behavior, std::move(spec));
}

} // namespace weir::actors
