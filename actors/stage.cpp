#include "actors/stage.hpp"

#include <algorithm>
#include <ctime>
#include <deque>
#include <exception>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/inlet.hpp"
#include "runtime/credit.hpp"

namespace weir::actors {

namespace {

using runtime::payload_bytes;

/// A batch whose process() asked to be tried again is due, or a feed's fill() that
/// answered `again`.
using retry_atom = caf::atom_constant<caf::atom("retry")>;

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

/// Charges the CPU time and the wall time of a scope (one batch) to the stage:
/// per-stage CPU is what makes an expensive transform visible in the actor tree,
/// wall time what makes a writer waiting on its database visible. One clock read
/// pair of each per batch, never per record.
class CpuMeter {
public:
  /// `timed` false (metrics.stage.timing.enabled=false): no clock is read.
  CpuMeter(StageStats& stats, bool timed)
    : stats_(timed ? &stats : nullptr), cpu_(timed ? thread_cpu_ns() : 0), wall_(timed ? wall_ns() : 0) {}
  ~CpuMeter() {
    if (!stats_)
      return;
    stats_->cpu_ns += thread_cpu_ns() - cpu_;
    stats_->busy_ns += wall_ns() - wall_;
  }

private:
  StageStats* stats_;
  uint64_t cpu_;
  uint64_t wall_;
};

/// Times a state that starts and ends on transitions (waiting for credit, idle):
/// the clock is read only when the state changes, so a stage that never waits
/// never reads it. `total` includes the wait still running.
class Stopwatch {
public:
  void start() {
    if (!since_) since_ = wall_ns();
  }
  void stop(uint64_t& total) {
    if (since_) total += wall_ns() - std::exchange(since_, 0);
  }
  uint64_t total(uint64_t stopped) const { return since_ ? stopped + (wall_ns() - since_) : stopped; }

private:
  uint64_t since_ = 0;
};

/// How a payload travels in a message (see DecodedBatchMsg).
template <class Payload>
struct Wire;
template <>
struct Wire<Batch> {
  using type = Batch;
  static type wrap(Batch&& b) { return std::move(b); }
  static Batch& unwrap(type& w) { return w; }
};
template <>
struct Wire<runtime::data::DecodedBatch> {
  using type = DecodedBatchMsg;
  static type wrap(runtime::data::DecodedBatch&& b) {
    return {std::make_shared<runtime::data::DecodedBatch>(std::move(b))};
  }
  static runtime::data::DecodedBatch& unwrap(type& w) { return *w.batch; }
};

/// The sending half shared by transforms and feeds. The credit a batch is
/// charged travels with it, so the receiver returns exactly that amount even
/// when the batch's size changed on the way (e.g. re-encoded between nodes).
template <class Payload>
struct Outlet {
  caf::actor downstream;
  runtime::CreditWindow window;

  Stopwatch waiting; ///< runs while a batch is ready and the credit does not cover it
  uint64_t waited_ns = 0; ///< the waits that ended

  template <class Self>
  bool try_send(Self* self, Payload& batch, StageStats& stats) {
    auto bytes = payload_bytes(batch);
    if (!window.can_send(bytes)) {
      waiting.start();
      return false;
    }
    waiting.stop(waited_ns);
    window.on_send(bytes);
    stats.records_out += batch.size();
    self->send(downstream, batch_atom::value, Wire<Payload>::wrap(std::move(batch)), bytes);
    return true;
  }

  /// Fills the outgoing figures into `s`; its credit wait counts the wait still running.
  void fill_stats(StageStats& s) const {
    s.credit_wait_ns = waiting.total(waited_ns);
    s.out_capacity = window.capacity();
    s.out_in_flight = {window.in_flight_batches(), window.in_flight_bytes()};
    s.out_max_in_flight = {window.max_in_flight_batches(), window.max_in_flight_bytes()};
  }
};

template <class Payload>
struct Pending {
  Payload batch;
  uint64_t charged; // what the upstream was charged for it
};

template <class Payload>
struct StageState {
  StageSpecOf<Payload> spec;
  Inlet in;
  Outlet<Payload> out;
  std::deque<Pending<Payload>> pending; // processed, waiting for downstream credit
  // A batch waiting for its retry, and the batches that arrived behind it.
  std::optional<Pending<Payload>> retrying;
  std::deque<Pending<Payload>> queued;
  bool failed = false;
  StageStats stats;
  static inline const char* name = "weir.stage";
};

template <class Payload>
using stage_actor = caf::stateful_actor<StageState<Payload>>;

/// Brings the stage's figures up to date; publishes them to its cell, if any, so
/// readers see them without asking this actor (which may be busy for a while).
template <class Payload>
StageStats& observe(stage_actor<Payload>* self) {
  auto& st = self->state;
  st.stats.mailbox = self->mailbox().size();
  st.in.fill_stats(st.stats);
  st.out.fill_stats(st.stats);
  if (st.spec.cell)
    st.spec.cell->publish(st.stats);
  return st.stats;
}

template <class Payload>
void finish_if_drained(stage_actor<Payload>* self) {
  auto& st = self->state;
  // Waiting for the downstream to return every credit also lets the sink's last
  // durable report pass through on its way to the feed.
  if (!st.in.upstream_done() || st.retrying || !st.pending.empty() || st.out.window.in_flight_batches() > 0)
    return;
  st.stats.state = "FINISHED";
  observe(self);
  if (st.out.downstream)
    self->send(st.out.downstream, eos_atom::value);
  if (st.spec.observer)
    self->send(st.spec.observer, done_atom::value, st.stats);
  self->quit();
}

template <class Payload>
void drain(stage_actor<Payload>* self) {
  auto& st = self->state;
  while (!st.pending.empty() && st.out.try_send(self, st.pending.front().batch, st.stats)) {
    auto charged = st.pending.front().charged;
    st.pending.pop_front();
    st.in.release(self, charged);
  }
  finish_if_drained(self);
}

template <class Payload>
void fail(stage_actor<Payload>* self, const std::string& what) {
  self->state.failed = true;
  mark_failed(self->state.stats, what);
  // Its last figures stay published; its end carries the trace, so its task actor,
  // which monitors it, hears of the failure as a message.
  observe(self);
  self->quit(caf::make_error(caf::sec::runtime_error, what));
}

/// Sends copies of the records that passed to whoever taps this stage. Only
/// decoded batches are shown (raw bytes mean nothing to a reader).
template <class Payload>
void feed_taps(stage_actor<Payload>* self, const Payload& batch) {
  if constexpr (std::is_same_v<Payload, runtime::data::DecodedBatch>) {
    self->state.in.tap(self, batch);
  }
}

/// Runs the logic on a batch, then passes it on (or, for a sink, acks it). A batch
/// the logic wants to try again waits for a delayed retry message, and the ones
/// arriving meanwhile queue behind it: order is kept.
template <class Payload>
void handle(stage_actor<Payload>* self, Payload& batch, uint64_t charged) {
  auto& st = self->state;
  if (!st.failed) {
    // A stage on its own thread may block in process() for seconds (a database
    // that holds a lock): its figures say so while it does. Such a batch costs a
    // write anyway, so one more publish is nothing beside it.
    if (st.spec.detached && st.spec.cell) {
      st.stats.busy_since_ns = wall_ns();
      st.spec.cell->publish(st.stats);
    }
    runtime::RetryAfter retry;
    try {
      CpuMeter meter{st.stats, st.spec.timed};
      retry = st.spec.logic->process(batch);
    } catch (const std::exception& e) {
      fail(self, e.what());
    }
    st.stats.busy_since_ns = 0;
    if (retry && !st.failed) {
      st.retrying.emplace(Pending<Payload>{std::move(batch), charged});
      self->delayed_send(self, *retry, retry_atom::value);
      observe(self);
      return;
    }
  }
  if (!st.failed)
    feed_taps(self, batch);
  // A failed stage holds its input: nothing past the failure moves on, and the
  // upstream, out of credit, stops reading.
  if (st.failed) {
    observe(self);
    return;
  }
  if (!st.out.downstream) {
    // A sink's output is what it wrote; records that failed (and were tolerated)
    // count as errors, so the progress line shows them instead of hiding them.
    st.stats.records_out += runtime::live_records(batch);
    st.stats.errors += runtime::record_errors(batch);
    st.stats.dead_lettered = st.spec.logic->dead_lettered();
    if (!batch.empty())
      st.in.durable(self, runtime::durable_offsets(batch));
    st.in.release(self, charged);
    observe(self);
    return;
  }
  st.pending.push_back({std::move(batch), charged});
  drain(self);
  observe(self);
}

template <class Payload>
void on_batch(stage_actor<Payload>* self, Payload& batch, uint64_t charged) {
  auto& st = self->state;
  st.in.arrived(st.stats, batch.size(), charged);
  if (st.retrying)
    st.queued.push_back({std::move(batch), charged});
  else
    handle(self, batch, charged);
}

/// The batch waiting for its retry is due: tried again, then what queued behind it.
template <class Payload>
void on_retry(stage_actor<Payload>* self) {
  auto& st = self->state;
  if (!st.retrying)
    return;
  auto p = std::move(*st.retrying);
  st.retrying.reset();
  handle(self, p.batch, p.charged);
  while (!st.retrying && !st.queued.empty()) {
    auto next = std::move(st.queued.front());
    st.queued.pop_front();
    handle(self, next.batch, next.charged);
  }
  finish_if_drained(self);
}

/// A new stage's figures: RUNNING, nothing counted yet.
StageStats starting_stats(const std::string& name, std::string_view kind, Credit capacity) {
  StageStats stats;
  stats.name = name;
  stats.kind = std::string{kind};
  stats.state = "RUNNING";
  stats.capacity = capacity;
  return stats;
}

template <class Payload>
StageStats starting_stats(const StageSpecOf<Payload>& spec) {
  return starting_stats(spec.name, spec.logic->kind(), spec.capacity);
}

template <class Payload>
caf::behavior stage_behavior(stage_actor<Payload>* self, StageSpecOf<Payload> spec) {
  auto& st = self->state;
  st.spec = std::move(spec);
  st.in = Inlet{st.spec.capacity};
  st.out.downstream = st.spec.downstream;
  st.stats = starting_stats(st.spec);
  if (st.out.downstream) {
    // A task's pipeline lives and dies as one: a stage that fails or is stopped
    // takes its neighbours with it (across nodes too, as remote links).
    self->link_to(st.out.downstream);
    self->send(st.out.downstream, attach_atom::value);
  }
  return {
    [=](attach_atom) { self->state.in.attach(self); },
    [=](batch_atom, typename Wire<Payload>::type& batch, uint64_t charged) {
      on_batch(self, Wire<Payload>::unwrap(batch), charged);
    },
    [=](retry_atom) { on_retry(self); },
    [=](credit_atom, Credit c) {
      self->state.out.window.grant(c);
      drain(self);
    },
    [=](durable_atom, OffsetList& offsets) { self->state.in.durable(self, std::move(offsets)); },
    [=](eos_atom) {
      self->state.in.end_of_stream();
      if (!self->state.failed)
        finish_if_drained(self);
    },
    [=](stats_atom) { return observe(self); },
    [=](tap_atom, int32_t count, caf::actor& subscriber) { self->state.in.subscribe(count, std::move(subscriber)); },
  };
}

template <class Payload>
struct SourceState {
  FeedSpecOf<Payload> spec;
  Outlet<Payload> out;
  std::optional<Payload> ready; // filled but not yet covered by credit
  bool blocked = false;         // out of credit: not pulling
  bool paused = false;          // blocked for a while: the feed was told to pause
  bool idle = false;            // the feed had nothing; wait for the tick
  bool retrying = false;        // the feed answered `again`; wait for the retry message
  bool tick_pending = false;
  bool ended = false;
  bool eos_sent = false;
  StageStats stats;
  Stopwatch idling;      // runs from an idle fill to the next tick
  uint64_t idled_ns = 0; // the idle spells that ended
  std::chrono::steady_clock::time_point observed; // last observe()
  static inline const char* name = "weir.feed";
};

template <class Payload>
using feed_actor = caf::stateful_actor<SourceState<Payload>>;

/// As for stages; a feed's lag asks the Kafka client for watermarks, so unless
/// `now` is asked for, it is refreshed at most five times a second.
template <class Payload>
StageStats& observe(feed_actor<Payload>* self, bool now = false) {
  auto& st = self->state;
  auto t = std::chrono::steady_clock::now();
  if (!now && t - st.observed < std::chrono::milliseconds{200})
    return st.stats;
  st.observed = t;
  st.stats.mailbox = self->mailbox().size();
  st.out.fill_stats(st.stats);
  st.stats.idle_ns = st.idling.total(st.idled_ns);
  st.stats.partition_lags = st.spec.feed->partition_lags();
  st.stats.lag = st.stats.partition_lags.empty() ? st.spec.feed->lag() : runtime::total_lag(st.stats.partition_lags);
  st.stats.poll_to_ack = st.spec.feed->poll_to_ack();
  st.stats.partitions = st.spec.feed->assigned_partitions();
  // A consumer without partitions, or a source task without work (partitions -1).
  if (st.stats.partitions <= 0)
    st.stats.idle_reason = st.spec.feed->idle_reason();
  else
    st.stats.idle_reason.clear();
  st.stats.waiting = st.spec.feed->waiting_reason();
  st.stats.commits = st.spec.feed->commits();
  st.stats.commit_ns = st.spec.feed->commit_ns();
  st.stats.source_lag_bytes = st.spec.feed->source_lag_bytes();
  if (st.spec.cell)
    st.spec.cell->publish(st.stats);
  return st.stats;
}

template <class Payload>
void schedule_tick(feed_actor<Payload>* self, std::chrono::milliseconds delay) {
  auto& st = self->state;
  if (st.tick_pending)
    return;
  st.tick_pending = true;
  if (delay.count() == 0)
    self->send(self, tick_atom::value); // behind what the mailbox holds, without the clock's thread
  else
    self->delayed_send(self, delay, tick_atom::value);
}

// Running out of credit stops pulling at once; the feed itself is told to
// pause (a Kafka consumer pauses its partitions, which drops librdkafka's
// prefetched data) only when the stall outlasts one tick, so that the normal
// rhythm of credit returning costs no refetch.
template <class Payload>
void block(feed_actor<Payload>* self) {
  self->state.blocked = true;
  schedule_tick(self, std::chrono::milliseconds{100}); // keep serving the feed
}

template <class Payload>
void unblock(feed_actor<Payload>* self) {
  auto& st = self->state;
  st.blocked = false;
  if (st.paused) {
    st.paused = false;
    st.spec.feed->set_blocked(false);
  }
}

// The end of the stream goes downstream at once; the feed itself stays until
// every batch came back as credit, so the sink's last durable report still
// reaches it (and is committed) before it quits.
template <class Payload>
void end_stream(feed_actor<Payload>* self) {
  auto& st = self->state;
  if (!st.eos_sent) {
    st.eos_sent = true;
    st.stats.state = "FINISHED";
    observe(self, true);
    self->send(st.out.downstream, eos_atom::value);
  }
  if (st.out.window.in_flight_batches() == 0)
    self->quit();
}

template <class Payload>
std::string role_of(const FeedSpecOf<Payload>& spec) {
  return spec.role.empty() ? "feed " + spec.name : spec.role;
}

template <class Payload>
void pump(feed_actor<Payload>* self) {
  auto& st = self->state;
  // A batch that outgrew the credit while it was filled goes first.
  if (st.ready) {
    if (!st.out.try_send(self, *st.ready, st.stats))
      return block(self);
    st.ready.reset();
    if (st.ended)
      return end_stream(self);
  }
  while (!st.ended && !st.idle && !st.retrying) {
    auto room = std::min(st.out.window.sendable_bytes(), st.spec.max_batch_bytes);
    if (room == 0) {
      st.out.waiting.start();
      return block(self);
    }
    st.out.waiting.stop(st.out.waited_ns);
    unblock(self);
    Payload batch;
    typename runtime::FeedOf<Payload>::Status status;
    auto busy_before = st.stats.busy_ns;
    auto waited_before = st.spec.feed->wait_ns();
    try {
      CpuMeter meter{st.stats, st.spec.timed};
      status = st.spec.feed->fill(batch, room);
    } catch (const std::exception& e) {
      ++st.stats.errors;
      st.stats.last_error = e.what();
      st.stats.state = "FAILED";
      spdlog::error("{} failed: {}", role_of(st.spec), e.what());
      st.ended = true;
      observe(self, true);
      self->quit(caf::make_error(caf::sec::runtime_error, std::string{e.what()})); // as a failed stage
      return;
    }
    st.ended = status == runtime::FeedOf<Payload>::Status::end;
    // Waiting for records to come (a consumer's poll timeout) is idle, not work: all
    // of an empty poll, and the wait of one that a record ended (a trickle).
    auto waited = status == runtime::FeedOf<Payload>::Status::idle && batch.empty()
                    ? st.stats.busy_ns - busy_before
                    : std::min(st.spec.feed->wait_ns() - waited_before, st.stats.busy_ns - busy_before);
    st.idled_ns += waited;
    st.stats.busy_ns -= waited;
    // A feed's "in" is what its poll returned: from Kafka for a sink task's
    // consumer, from the source system for a source task's poller.
    if (!batch.empty()) {
      ++st.stats.batches_in;
      st.stats.records_in += batch.size();
      st.stats.bytes_in += payload_bytes(batch);
    }
    if (!batch.empty() && !st.out.try_send(self, batch, st.stats)) {
      st.ready.emplace(std::move(batch));
      return block(self);
    }
    if (st.ended)
      return end_stream(self);
    if (status == runtime::FeedOf<Payload>::Status::idle) {
      st.idle = true;
      st.idling.start();
      return schedule_tick(self, st.spec.idle_delay);
    }
    // A service the feed needs is down: the same fill() again later, by message, so
    // stop and stats are answered meanwhile (a detached feed's thread does not sleep).
    if (status == runtime::FeedOf<Payload>::Status::again) {
      st.retrying = true;
      self->delayed_send(self, st.spec.feed->retry_after(), retry_atom::value);
      return;
    }
  }
}

template <class Payload>
StageStats starting_stats(const FeedSpecOf<Payload>& spec) {
  return starting_stats(spec.name, spec.feed->kind(), {}); // a feed grants no credit
}

template <class Payload>
caf::behavior feed_behavior(feed_actor<Payload>* self, FeedSpecOf<Payload> spec) {
  auto& st = self->state;
  st.spec = std::move(spec);
  st.out.downstream = st.spec.downstream;
  st.stats = starting_stats(st.spec);
  self->link_to(st.out.downstream);
  self->send(st.out.downstream, attach_atom::value);
  return {
    [=](credit_atom, Credit c) {
      self->state.out.window.grant(c);
      if (self->state.eos_sent) {
        end_stream(self);
      } else {
        pump(self);
        observe(self);
      }
    },
    [=](stop_atom) {
      auto& st = self->state;
      st.ended = true;
      if (!st.ready)
        end_stream(self);
    },
    [=](durable_atom, const OffsetList& offsets) {
      auto& st = self->state;
      try {
        st.spec.feed->on_durable(offsets);
      } catch (const std::exception& e) {
        ++st.stats.errors;
        st.stats.last_error = e.what();
        spdlog::warn("{}: committing offsets failed: {}", role_of(st.spec), e.what());
      }
    },
    [=](tick_atom) {
      auto& st = self->state;
      st.tick_pending = false;
      st.idle = false;
      st.idling.stop(st.idled_ns);
      if (st.blocked) {
        if (!st.paused) {
          st.paused = true;
          st.spec.feed->set_blocked(true);
        }
        st.spec.feed->serve();
      }
      pump(self);
      observe(self);
    },
    [=](retry_atom) {
      self->state.retrying = false;
      pump(self);
      observe(self);
    },
    [=](stats_atom) { return observe(self, true); },
  };
}

template <class Payload>
caf::actor spawn_stage_of(caf::actor_system& sys, StageSpecOf<Payload> spec) {
  // Shown in the tree before its first batch, and before the actor first runs, so
  // what an earlier run of the same task left in the cell (a drained stage's
  // FINISHED) is gone by the time the task shows RUNNING.
  if (spec.cell)
    spec.cell->publish(starting_stats(spec));
  if (spec.detached)
    return sys.spawn<caf::detached>(stage_behavior<Payload>, std::move(spec));
  return sys.spawn(stage_behavior<Payload>, std::move(spec));
}

template <class Payload>
caf::actor spawn_feed_of(caf::actor_system& sys, FeedSpecOf<Payload> spec) {
  // As for stages (above).
  if (spec.cell)
    spec.cell->publish(starting_stats(spec));
  if (spec.detached)
    return sys.spawn<caf::detached>(feed_behavior<Payload>, std::move(spec));
  return sys.spawn(feed_behavior<Payload>, std::move(spec));
}

} // namespace

caf::actor spawn_stage(caf::actor_system& sys, StageSpec spec) {
  return spawn_stage_of(sys, std::move(spec));
}
caf::actor spawn_stage(caf::actor_system& sys, DecodedStageSpec spec) {
  return spawn_stage_of(sys, std::move(spec));
}
caf::actor spawn_feed(caf::actor_system& sys, FeedSpec spec) {
  return spawn_feed_of(sys, std::move(spec));
}
caf::actor spawn_feed(caf::actor_system& sys, DecodedFeedSpec spec) {
  return spawn_feed_of(sys, std::move(spec));
}

} // namespace weir::actors
