// Every message weir's actors exchange, and their registration with CAF.
//
// CAF 0.17 drops a message of an unannounced type between nodes with only a log
// line, so every type that can cross nodes is announced in announce_types() and
// round-trips through CAF's binary serializer in messages.test.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <caf/atom.hpp>
#include <caf/meta/type_name.hpp>

#include "runtime/data/decoded_batch.hpp"
#include "runtime/kafka/topic_partition.hpp"
#include "runtime/stage_stats.hpp"
#include "runtime/batch.hpp"
#include "runtime/credit.hpp"
#include "actors/sink_protocol.hpp"

namespace caf {
class actor_system_config;
}

namespace weir::runtime {

template <class Inspector>
auto inspect(Inspector& f, StageStats& x) {
  return f(caf::meta::type_name("weir::StageStats"), x.name, x.kind, x.state, x.records_in,
           x.records_out, x.batches_in, x.bytes_in, x.errors, x.last_error, x.cpu_ns, x.busy_ns,
           x.credit_wait_ns, x.idle_ns, x.busy_since_ns, x.mailbox,
           x.capacity, x.held, x.out_capacity, x.out_in_flight, x.out_max_in_flight, x.lag,
           x.partition_lags, x.partitions, x.idle_reason, x.waiting, x.commits, x.commit_ns,
           x.source_lag_bytes, x.poll_to_ack);
}

} // namespace weir::runtime

namespace weir::actors {

using OffsetList = std::vector<runtime::kafka::TopicPartitionOffset>;

// The credit protocol (see weir/credit.hpp; the SDK's weir/sink_protocol.hpp
// documents it for sink authors and defines these atoms):
//   upstream -> downstream : attach            (downstream answers with credit)
//   upstream -> downstream : batch, Batch|DecodedBatch, charged bytes
//   upstream -> downstream : eos               (no more batches will follow)
//   downstream -> upstream : credit, Credit
// Sink -> the task's source: durable, offsets (everything up to them is durable).
using protocol::attach_atom;
using protocol::batch_atom;
using protocol::credit_atom;
using protocol::durable_atom;
using protocol::eos_atom;

// Observation and control.
using protocol::done_atom;
using protocol::stats_atom;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
/// To a source: stop reading, let what is in flight drain (and commit), then quit.
using stop_atom = caf::atom_constant<caf::atom("stop")>;
/// (tap_atom, int32_t count, caf::actor subscriber) to a stage: the subscriber gets
/// (tap_atom, std::vector<std::string>) with the next `count` records passing the
/// stage as JSON lines (count 0 cancels).
using tap_atom = caf::atom_constant<caf::atom("tap")>;

/// CAF 0.17 message types must be copyable; a DecodedBatch is move-only (its values
/// point into its own arena). Messages carry it by shared pointer, and exactly one
/// actor uses it at a time. Serializing it (between nodes) encodes the batch.
struct DecodedBatchMsg {
  std::shared_ptr<runtime::data::DecodedBatch> batch;
};

template <class Inspector>
auto inspect(Inspector& f, DecodedBatchMsg& x) {
  if (!x.batch)
    x.batch = std::make_shared<runtime::data::DecodedBatch>();
  return f(caf::meta::type_name("weir::DecodedBatch"), *x.batch);
}

using StageStats = runtime::StageStats;

/// Loads the middleman and announces every message type; call it on every
/// actor_system_config weir creates.
void announce_types(caf::actor_system_config& cfg);

} // namespace weir::actors
