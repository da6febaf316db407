#include "actors/async_sink_stage.hpp"

#include <time.h>

#include <chrono>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/inlet.hpp"
#include "actors/messages.hpp"

namespace weir::actors {

namespace {

/// A completion arrived (AsyncSinkLogic's wake), and a failed batch's retry is due.
using written_atom = caf::atom_constant<caf::atom("written")>;
using rewrite_atom = caf::atom_constant<caf::atom("rewrite")>;

uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t wall_ns() {
  return static_cast<uint64_t>(
    std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count());
}

struct AsyncSinkState {
  AsyncSinkSpec spec;
  Inlet in;
  bool failed = false;
  StageStats stats;
  // Busy is the time with a batch held (being written, or waiting for an older
  // one): the destination works for this task then, so a slow one shows as the
  // task's bottleneck, as a blocking writer's time in write() does.
  uint64_t busy_since = 0;
  uint64_t busy_done_ns = 0;
  static inline const char* name = "weir.async_sink";
};

using async_sink_actor = caf::stateful_actor<AsyncSinkState>;

StageStats& observe(async_sink_actor* self) {
  auto& st = self->state;
  if (st.spec.timed) {
    bool held = st.spec.logic->held() > 0;
    if (held && !st.busy_since)
      st.busy_since = wall_ns();
    else if (!held && st.busy_since)
      st.busy_done_ns += wall_ns() - std::exchange(st.busy_since, 0);
    st.stats.busy_ns = st.busy_done_ns + (st.busy_since ? wall_ns() - st.busy_since : 0);
  }
  st.stats.mailbox = self->mailbox().size();
  st.in.fill_stats(st.stats);
  st.stats.dead_lettered = st.spec.logic->dead_lettered();
  if (st.spec.cell)
    st.spec.cell->publish(st.stats);
  return st.stats;
}

// As a blocking sink: a failed stage holds what it has, returns neither ack nor
// credit, so nothing past the failure is committed and the upstream stops reading.
void fail(async_sink_actor* self, const std::string& what) {
  self->state.failed = true;
  mark_failed(self->state.stats, what);
  observe(self);
  self->quit(caf::make_error(caf::sec::runtime_error, what)); // as a failed stage (stage.cpp)
}

void finish_if_drained(async_sink_actor* self) {
  auto& st = self->state;
  if (!st.in.upstream_done() || st.failed || st.spec.logic->held() > 0)
    return;
  st.stats.state = "FINISHED";
  observe(self);
  if (st.spec.observer)
    self->send(st.spec.observer, done_atom::value, st.stats);
  self->quit();
}

/// Acks the written batches at the front, in order: durable offsets, then credit.
void ack(async_sink_actor* self) {
  auto& st = self->state;
  while (auto a = st.spec.logic->pop_acked()) {
    st.stats.records_out += a->written;
    st.stats.errors += a->errors;
    st.in.durable(self, std::move(a->offsets));
    st.in.release(self, a->charged);
  }
  observe(self);
  finish_if_drained(self);
}

/// Runs a step of the logic, its CPU time charged to the stage; an exception fails
/// the stage.
template <class F>
void guarded(async_sink_actor* self, F&& f) {
  auto& st = self->state;
  if (st.failed)
    return;
  auto cpu = st.spec.timed ? thread_cpu_ns() : 0;
  try {
    f();
  } catch (const std::exception& e) {
    fail(self, e.what());
  }
  if (st.spec.timed)
    st.stats.cpu_ns += thread_cpu_ns() - cpu;
}

caf::behavior async_sink(async_sink_actor* self, AsyncSinkSpec spec) {
  auto& st = self->state;
  st.spec = std::move(spec);
  st.in = Inlet{Credit{st.spec.logic->max_in_flight(), st.spec.capacity_bytes}};
  st.stats.name = st.spec.name;
  st.stats.kind = "sink";
  st.stats.state = "RUNNING";
  st.stats.capacity = st.in.capacity();
  // Called on the writer's threads: a message is the one safe way into this actor.
  // Weak, so the writer's callbacks never keep the actor alive.
  st.spec.logic->set_wake([weak = caf::actor_cast<caf::weak_actor_ptr>(self)] {
    if (auto strong = weak.lock())
      caf::anon_send(caf::actor_cast<caf::actor>(strong), written_atom::value);
  });
  return {
    [=](attach_atom) { self->state.in.attach(self); },
    [=](batch_atom, DecodedBatchMsg& msg, uint64_t charged) {
      auto& st = self->state;
      st.in.arrived(st.stats, msg.batch->size(), charged);
      if (!st.failed)
        st.in.tap(self, *msg.batch);
      guarded(self, [&] { st.spec.logic->submit(std::move(msg.batch), charged); });
      observe(self);
    },
    [=](written_atom) {
      guarded(self, [&] {
        for (const auto& r : self->state.spec.logic->on_completed())
          self->delayed_send(self, r.delay, rewrite_atom::value, r.id);
        ack(self);
      });
    },
    [=](rewrite_atom, uint64_t id) { guarded(self, [&] { self->state.spec.logic->restart(id); }); },
    [=](eos_atom) {
      self->state.in.end_of_stream();
      finish_if_drained(self);
    },
    [=](stats_atom) { return observe(self); },
    [=](tap_atom, int32_t count, caf::actor& subscriber) { self->state.in.subscribe(count, std::move(subscriber)); },
  };
}

} // namespace

caf::actor spawn_async_sink(caf::actor_system& sys, AsyncSinkSpec spec) {
  if (spec.cell) {
    StageStats s;
    s.name = spec.name;
    s.kind = "sink";
    s.state = "RUNNING";
    spec.cell->publish(s);
  }
  return sys.spawn<caf::detached>(async_sink, std::move(spec));
}

} // namespace weir::actors
