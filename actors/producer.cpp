#include "actors/producer.hpp"

#include <chrono>
#include <memory>
#include <unordered_map>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"
#include "runtime/credit.hpp"
#include "runtime/kafka/producer.hpp"

namespace weir::actors {

namespace {

using namespace std::chrono_literals;

struct ProducerState {
  ProducerSpec spec;
  std::unique_ptr<runtime::kafka::Producer> producer;
  runtime::CreditLedger ledger{Credit{}};
  caf::actor upstream;
  std::unordered_map<uint64_t, uint64_t> arrival_bytes; // token -> credit charged
  uint64_t next_token = 0;
  bool upstream_done = false;
  bool tick_pending = false;
  StageStats stats;
  static inline const char* name = "weir.producer";
};

using producer_actor = caf::stateful_actor<ProducerState>;

void finish_if_drained(producer_actor* self) {
  auto& st = self->state;
  if (!st.upstream_done || !st.arrival_bytes.empty())
    return;
  st.stats.state = st.stats.errors == 0 ? "FINISHED" : "FAILED";
  if (st.spec.observer)
    self->send(st.spec.observer, done_atom::value, st.stats);
  self->quit();
}

void schedule_tick(producer_actor* self) {
  auto& st = self->state;
  if (st.tick_pending || st.arrival_bytes.empty())
    return;
  st.tick_pending = true;
  self->delayed_send(self, 2ms, tick_atom::value);
}

void on_delivery(producer_actor* self, uint64_t token, size_t delivered, size_t failed,
                 const std::string& first_error) {
  auto& st = self->state;
  auto it = st.arrival_bytes.find(token);
  if (it == st.arrival_bytes.end())
    return;
  st.stats.records_out += delivered;
  if (failed > 0) {
    // Never a silent drop: the failure is counted, logged and shown in the tree.
    st.stats.errors += failed;
    st.stats.last_error = first_error;
    spdlog::error("producer {}: {} record(s) of a batch failed: {}", st.spec.name, failed,
                  first_error);
  }
  auto credit = st.ledger.on_release(it->second);
  st.arrival_bytes.erase(it);
  if (st.upstream)
    self->send(st.upstream, credit_atom::value, credit);
}

caf::behavior producer_behavior(producer_actor* self, ProducerSpec spec) {
  auto& st = self->state;
  st.spec = std::move(spec);
  st.ledger = runtime::CreditLedger{st.spec.capacity};
  st.stats.name = st.spec.name;
  st.stats.kind = "producer";
  st.stats.state = "RUNNING";
  st.stats.capacity = st.spec.capacity;
  st.producer = std::make_unique<runtime::kafka::Producer>(
    st.spec.props, [self](uint64_t token, size_t ok, size_t failed, const std::string& err) {
      on_delivery(self, token, ok, failed, err);
    });
  return {
    [=](attach_atom) {
      auto& st = self->state;
      st.upstream = caf::actor_cast<caf::actor>(self->current_sender());
      self->send(st.upstream, credit_atom::value, st.ledger.initial_grant());
    },
    [=](batch_atom, const Batch& batch, uint64_t bytes) {
      auto& st = self->state;
      st.ledger.on_receive(bytes);
      ++st.stats.batches_in;
      st.stats.records_in += batch.size();
      st.stats.bytes_in += bytes;
      auto token = st.next_token++;
      st.arrival_bytes.emplace(token, bytes);
      st.producer->produce(batch, token);
      schedule_tick(self);
    },
    [=](tick_atom) {
      auto& st = self->state;
      st.tick_pending = false;
      st.producer->poll(0ms);
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
  return sys.spawn<caf::detached>(producer_behavior, std::move(spec));
}

} // namespace weir::actors
