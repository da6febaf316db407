#include "actors/producer_stage.hpp"

#include <chrono>
#include <memory>
#include <unordered_map>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"
#include "runtime/credit.hpp"
#include "runtime/kafka/producer.hpp"
#include "engine/pipeline/source_offsets_topic.hpp"
#include "engine/pipeline/source_pipeline.hpp"

namespace weir::actors {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/// Tokens of the offset records a transaction writes: apart from batch tokens.
constexpr uint64_t offsets_token = uint64_t{1} << 63;

struct InFlight {
  uint64_t charged;  // credit the upstream was charged
  uint64_t sequence; // the source batch (0: not a source batch)
};

struct ProducerState {
  ProducerSpec spec;
  std::unique_ptr<runtime::kafka::Producer> producer;
  runtime::CreditLedger ledger{Credit{}};
  caf::actor upstream;
  std::unordered_map<uint64_t, InFlight> in_flight; // token -> batch
  uint64_t next_token = 0;
  Batch encoded; // reused for every decoded batch
  // Exactly-once: the open transaction's batches, in order.
  bool in_transaction = false;
  std::vector<uint64_t> transaction_batches;
  Clock::time_point transaction_start;
  bool upstream_done = false;
  bool failed = false;
  bool tick_pending = false;
  StageStats stats;
  static inline const char* name = "weir.producer";
};

using producer_actor = caf::stateful_actor<ProducerState>;

/// Publishes the current figures to the stage's metrics cell, if any.
void publish(producer_actor* self) {
  auto& st = self->state;
  st.stats.waiting = st.producer ? st.producer->brokers().describe() : std::string{};
  if (!st.spec.cell)
    return;
  if (st.spec.offsets)
    st.stats.poll_to_ack = st.spec.offsets->poll_to_ack();
  st.stats.held = {st.ledger.held_batches(), st.ledger.held_bytes()};
  st.spec.cell->publish(st.stats);
}

/// A failed producer holds what it has: no credit goes back, so the task stops,
/// and no offset advances past what was delivered (or committed).
void fail(producer_actor* self, const std::string& what) {
  auto& st = self->state;
  st.failed = true;
  st.stats.state = "FAILED";
  ++st.stats.errors;
  st.stats.last_error = what;
  spdlog::error("producer {} failed: {}", st.spec.name, what);
  publish(self);
  self->quit(caf::make_error(caf::sec::runtime_error, what)); // as a failed stage (stage.cpp)
}

/// Writes the offsets the transaction's batches reach into the offsets topic, then
/// commits: records and offsets become visible together, or neither does.
void commit_transaction(producer_actor* self) {
  auto& st = self->state;
  if (!st.in_transaction)
    return;
  const auto& txn = st.spec.transactions;
  try {
    if (!st.transaction_batches.empty()) {
      Batch offsets;
      // Partitioned by key (the Java partitioner), as Kafka Connect writes offsets, so
      // every offset of one source partition stays in order in one topic partition.
      for (const auto& [partition, offset] : st.spec.offsets->through(st.transaction_batches.back()))
        offsets.append(txn.offsets_topic, -1, -1, -1,
                       engine::pipeline::offset_record_key(txn.connector, partition), offset);
      st.producer->produce(offsets, offsets_token | st.next_token++);
    }
    st.producer->commit_transaction(txn.timeout);
  } catch (const std::exception& e) {
    st.in_transaction = false;
    return fail(self, std::string{"exactly-once: transaction not committed: "} + e.what());
  }
  st.in_transaction = false;
  for (auto seq : st.transaction_batches)
    st.spec.offsets->delivered(seq);
  st.transaction_batches.clear();
}

void finish_if_drained(producer_actor* self) {
  auto& st = self->state;
  if (!st.upstream_done || !st.in_flight.empty() || st.failed)
    return;
  commit_transaction(self);
  st.stats.state = st.failed ? "FAILED" : "FINISHED";
  publish(self);
  if (st.spec.observer)
    self->send(st.spec.observer, done_atom::value, st.stats);
  self->quit();
}

void schedule_tick(producer_actor* self) {
  auto& st = self->state;
  if (st.tick_pending || (st.in_flight.empty() && !st.in_transaction))
    return;
  st.tick_pending = true;
  self->delayed_send(self, 2ms, tick_atom::value);
}

void on_delivery(producer_actor* self, uint64_t token, size_t delivered, size_t failed,
                 const std::string& first_error) {
  auto& st = self->state;
  if (failed > 0) {
    // Never a silent drop: the failure fails the task, is logged and shown in the tree.
    st.stats.errors += failed;
    fail(self, std::to_string(failed) + " record(s) not delivered: " + first_error);
  }
  if (token & offsets_token)
    return;
  auto it = st.in_flight.find(token);
  if (it == st.in_flight.end())
    return;
  st.stats.records_out += delivered;
  auto [charged, sequence] = it->second;
  st.in_flight.erase(it);
  if (st.failed)
    return;
  // Without transactions a delivered batch is durable; with them, only its commit is.
  if (sequence != 0 && st.spec.offsets && !st.spec.transactions.enabled)
    st.spec.offsets->delivered(sequence);
  auto credit = st.ledger.on_release(charged);
  if (st.upstream)
    self->send(st.upstream, credit_atom::value, credit);
  publish(self);
}

void produce(producer_actor* self, const Batch& batch, uint64_t charged) {
  auto& st = self->state;
  auto token = st.next_token++;
  st.in_flight.emplace(token, InFlight{charged, batch.sequence});
  try {
    if (st.spec.transactions.enabled && !st.in_transaction) {
      st.producer->begin_transaction();
      st.in_transaction = true;
      st.transaction_start = Clock::now();
    }
    if (st.spec.transactions.enabled && batch.sequence != 0)
      st.transaction_batches.push_back(batch.sequence);
    st.producer->produce(batch, token);
    if (st.spec.transactions.enabled && st.spec.transactions.interval.count() == 0)
      commit_transaction(self);
  } catch (const std::exception& e) {
    fail(self, e.what());
  }
  schedule_tick(self);
}

void on_arrival(producer_actor* self, uint64_t records, uint64_t bytes) {
  auto& st = self->state;
  st.ledger.on_receive(bytes);
  ++st.stats.batches_in;
  st.stats.records_in += records;
  st.stats.bytes_in += bytes;
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
  st.ledger = runtime::CreditLedger{st.spec.capacity};
  st.stats = starting_stats(st.spec);
  st.producer = std::make_unique<runtime::kafka::Producer>(
    st.spec.props, [self](uint64_t token, size_t ok, size_t failed, const std::string& err) {
      on_delivery(self, token, ok, failed, err);
    });
  if (st.spec.transactions.enabled) {
    try {
      st.producer->init_transactions(st.spec.transactions.timeout);
    } catch (const std::exception& e) {
      fail(self, e.what());
    }
  }
  return {
    [=](attach_atom) {
      auto& st = self->state;
      st.upstream = caf::actor_cast<caf::actor>(self->current_sender());
      self->send(st.upstream, credit_atom::value, st.ledger.initial_grant());
    },
    [=](batch_atom, const Batch& batch, uint64_t bytes) {
      on_arrival(self, batch.size(), bytes);
      if (!self->state.failed)
        produce(self, batch, bytes);
    },
    [=](batch_atom, DecodedBatchMsg& msg, uint64_t bytes) {
      auto& st = self->state;
      on_arrival(self, msg.batch->size(), bytes);
      if (st.failed)
        return;
      try {
        st.spec.encoder->encode(*msg.batch, st.encoded);
      } catch (const std::exception& e) {
        return fail(self, e.what());
      }
      msg.batch.reset(); // the decoded form is no longer needed: free it before the send
      produce(self, st.encoded, bytes);
    },
    [=](tick_atom) {
      auto& st = self->state;
      st.tick_pending = false;
      try {
        st.producer->poll(0ms);
      } catch (const std::exception& e) {
        fail(self, e.what());
      }
      if (st.producer->brokers().describe() != st.stats.waiting)
        publish(self); // the broker went away or came back: the task status says so
      const auto& txn = st.spec.transactions;
      if (st.in_transaction && !st.failed && txn.interval.count() > 0
          && Clock::now() - st.transaction_start >= txn.interval)
        commit_transaction(self);
      schedule_tick(self);
      finish_if_drained(self);
    },
    [=](eos_atom) {
      self->state.upstream_done = true;
      finish_if_drained(self);
    },
    [=](stats_atom) {
      auto& st = self->state;
      st.stats.mailbox = self->mailbox().size();
      st.stats.held = {st.ledger.held_batches(), st.ledger.held_bytes()};
      return st.stats;
    },
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
