#include "actors/stage.hpp"

#include <algorithm>
#include <ctime>
#include <deque>
#include <exception>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"
#include "runtime/credit.hpp"

namespace weir::actors {

namespace {

uint64_t thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

/// Charges the CPU time of a scope to a counter: per-stage CPU is what makes an
/// expensive transform visible in the actor tree.
class CpuMeter {
public:
  explicit CpuMeter(uint64_t& total) : total_(total), start_(thread_cpu_ns()) {}
  ~CpuMeter() { total_ += thread_cpu_ns() - start_; }

private:
  uint64_t& total_;
  uint64_t start_;
};

/// The sending half shared by transforms and sources.
struct Outlet {
  caf::actor downstream;
  runtime::CreditWindow window;

  void fill_stats(StageStats& s) const {
    s.out_capacity = window.capacity();
    s.out_in_flight = {window.in_flight_batches(), window.in_flight_bytes()};
    s.out_max_in_flight = {window.max_in_flight_batches(), window.max_in_flight_bytes()};
  }
};

struct Pending {
  Batch batch;
  uint64_t arrival_bytes; // what the upstream was charged for it
};

struct StageState {
  StageSpec spec;
  runtime::CreditLedger ledger{Credit{}};
  Outlet out;
  caf::actor upstream;
  std::deque<Pending> pending; // processed, waiting for downstream credit
  bool upstream_done = false;
  bool failed = false;
  StageStats stats;
  static inline const char* name = "weir.stage";
};

using stage_actor = caf::stateful_actor<StageState>;

void release(stage_actor* self, uint64_t arrival_bytes) {
  auto& st = self->state;
  auto c = st.ledger.on_release(arrival_bytes);
  if (st.upstream)
    self->send(st.upstream, credit_atom::value, c);
}

void finish_if_drained(stage_actor* self) {
  auto& st = self->state;
  if (!st.upstream_done || !st.pending.empty())
    return;
  st.stats.state = "FINISHED";
  if (st.out.downstream)
    self->send(st.out.downstream, eos_atom::value);
  if (st.spec.observer)
    self->send(st.spec.observer, done_atom::value, st.stats);
  self->quit();
}

void drain(stage_actor* self) {
  auto& st = self->state;
  while (!st.pending.empty()) {
    auto& front = st.pending.front();
    auto bytes = front.batch.byte_size();
    if (!st.out.window.can_send(bytes))
      break;
    st.out.window.on_send(bytes);
    st.stats.records_out += front.batch.size();
    auto arrival = front.arrival_bytes;
    self->send(st.out.downstream, batch_atom::value, std::move(front.batch));
    st.pending.pop_front();
    release(self, arrival);
  }
  finish_if_drained(self);
}

void fail(stage_actor* self, const std::string& what) {
  auto& st = self->state;
  st.failed = true;
  st.stats.state = "FAILED";
  ++st.stats.errors;
  st.stats.last_error = what;
  spdlog::error("stage {} failed: {}", st.spec.name, what);
}

caf::behavior stage_behavior(stage_actor* self, StageSpec spec) {
  auto& st = self->state;
  st.spec = std::move(spec);
  st.ledger = runtime::CreditLedger{st.spec.capacity};
  st.out.downstream = st.spec.downstream;
  st.stats.name = st.spec.name;
  st.stats.kind = std::string{st.spec.logic->kind()};
  st.stats.state = "RUNNING";
  st.stats.capacity = st.spec.capacity;
  if (st.out.downstream) {
    // A task's pipeline lives and dies as one: a stage that fails or is stopped
    // takes its neighbours with it (across nodes too, as remote links).
    self->link_to(st.out.downstream);
    self->send(st.out.downstream, attach_atom::value);
  }
  return {
    [=](attach_atom) {
      auto& st = self->state;
      st.upstream = caf::actor_cast<caf::actor>(self->current_sender());
      self->send(st.upstream, credit_atom::value, st.ledger.initial_grant());
    },
    [=](batch_atom, Batch& batch) {
      auto& st = self->state;
      auto arrival = batch.byte_size();
      st.ledger.on_receive(arrival);
      ++st.stats.batches_in;
      st.stats.records_in += batch.size();
      st.stats.bytes_in += arrival;
      if (!st.failed) {
        try {
          CpuMeter meter{st.stats.cpu_ns};
          st.spec.logic->process(batch);
        } catch (const std::exception& e) {
          fail(self, e.what());
        }
      }
      // A failed stage holds its input: nothing past the failure moves on, and the
      // upstream, out of credit, stops reading.
      if (st.failed)
        return;
      if (!st.out.downstream) {
        st.stats.records_out += batch.size();
        if (st.upstream && !batch.empty())
          self->send(st.upstream, durable_atom::value, durable_offsets(batch));
        release(self, arrival);
        return;
      }
      st.pending.push_back({std::move(batch), arrival});
      drain(self);
    },
    [=](credit_atom, Credit c) {
      self->state.out.window.grant(c);
      drain(self);
    },
    [=](durable_atom, OffsetList& offsets) {
      if (self->state.upstream)
        self->send(self->state.upstream, durable_atom::value, std::move(offsets));
    },
    [=](eos_atom) {
      self->state.upstream_done = true;
      if (!self->state.failed)
        finish_if_drained(self);
    },
    [=](stats_atom) {
      auto& st = self->state;
      st.stats.mailbox = self->mailbox().size();
      st.stats.held = {st.ledger.held_batches(), st.ledger.held_bytes()};
      st.out.fill_stats(st.stats);
      return st.stats;
    },
  };
}

struct SourceState {
  SourceSpec spec;
  Outlet out;
  bool blocked = false;      // out of credit: not pulling
  bool paused = false;       // blocked for a while: the source was told to pause
  bool idle = false;         // the source had nothing; wait for the tick
  bool tick_pending = false;
  bool ended = false;
  StageStats stats;
  static inline const char* name = "weir.source";
};

using source_actor = caf::stateful_actor<SourceState>;

void schedule_tick(source_actor* self, std::chrono::milliseconds delay) {
  auto& st = self->state;
  if (st.tick_pending)
    return;
  st.tick_pending = true;
  self->delayed_send(self, delay, tick_atom::value);
}

// Running out of credit stops pulling at once; the source itself is told to
// pause (a Kafka consumer pauses its partitions, which drops librdkafka's
// prefetched data) only when the stall outlasts one tick, so that the normal
// rhythm of credit returning costs no refetch.
void set_blocked(source_actor* self, bool blocked) {
  auto& st = self->state;
  st.blocked = blocked;
  if (!blocked && st.paused) {
    st.paused = false;
    st.spec.source->set_blocked(false);
  }
}

void pause_if_still_blocked(source_actor* self) {
  auto& st = self->state;
  if (st.blocked && !st.paused) {
    st.paused = true;
    st.spec.source->set_blocked(true);
  }
}

void pump(source_actor* self) {
  auto& st = self->state;
  while (!st.ended && !st.idle) {
    auto room = std::min(st.out.window.sendable_bytes(), st.spec.max_batch_bytes);
    if (room == 0) {
      set_blocked(self, true);
      schedule_tick(self, std::chrono::milliseconds{100}); // keep serving the source
      return;
    }
    set_blocked(self, false);
    Batch batch;
    runtime::BatchSource::Status status;
    try {
      CpuMeter meter{st.stats.cpu_ns};
      status = st.spec.source->fill(batch, room);
    } catch (const std::exception& e) {
      ++st.stats.errors;
      st.stats.last_error = e.what();
      st.stats.state = "FAILED";
      spdlog::error("source {} failed: {}", st.spec.name, e.what());
      st.ended = true;
      return;
    }
    if (!batch.empty()) {
      st.out.window.on_send(batch.byte_size());
      st.stats.records_out += batch.size();
      self->send(st.out.downstream, batch_atom::value, std::move(batch));
    }
    if (status == runtime::BatchSource::Status::end) {
      st.ended = true;
      st.stats.state = "FINISHED";
      self->send(st.out.downstream, eos_atom::value);
      self->quit();
      return;
    }
    if (status == runtime::BatchSource::Status::idle) {
      st.idle = true;
      schedule_tick(self, st.spec.idle_delay);
      return;
    }
  }
}

caf::behavior source_behavior(source_actor* self, SourceSpec spec) {
  auto& st = self->state;
  st.spec = std::move(spec);
  st.out.downstream = st.spec.downstream;
  st.stats.name = st.spec.name;
  st.stats.kind = std::string{st.spec.source->kind()};
  st.stats.state = "RUNNING";
  self->link_to(st.out.downstream);
  self->send(st.out.downstream, attach_atom::value);
  return {
    [=](credit_atom, Credit c) {
      self->state.out.window.grant(c);
      pump(self);
    },
    [=](durable_atom, const OffsetList& offsets) {
      auto& st = self->state;
      try {
        st.spec.source->on_durable(offsets);
      } catch (const std::exception& e) {
        ++st.stats.errors;
        st.stats.last_error = e.what();
        spdlog::warn("source {}: committing offsets failed: {}", st.spec.name, e.what());
      }
    },
    [=](tick_atom) {
      auto& st = self->state;
      st.tick_pending = false;
      st.idle = false;
      if (st.blocked) {
        pause_if_still_blocked(self);
        st.spec.source->serve();
      }
      pump(self);
    },
    [=](stats_atom) {
      auto& st = self->state;
      st.stats.mailbox = self->mailbox().size();
      st.out.fill_stats(st.stats);
      return st.stats;
    },
  };
}

} // namespace

OffsetList durable_offsets(const Batch& batch) {
  OffsetList out;
  for (const auto& r : batch.records()) {
    auto topic = batch.topic(r);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& o) {
      return o.partition == r.partition && o.topic == topic;
    });
    if (it == out.end())
      out.push_back({std::string{topic}, r.partition, r.offset + 1});
    else
      it->offset = std::max(it->offset, r.offset + 1);
  }
  return out;
}

caf::actor spawn_stage(caf::actor_system& sys, StageSpec spec) {
  return sys.spawn(stage_behavior, std::move(spec));
}

caf::actor spawn_source(caf::actor_system& sys, SourceSpec spec) {
  if (spec.detached)
    return sys.spawn<caf::detached>(source_behavior, std::move(spec));
  return sys.spawn(source_behavior, std::move(spec));
}

} // namespace weir::actors
