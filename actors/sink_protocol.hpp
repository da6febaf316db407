// The sink writer's message protocol: what a task's sink writer actor receives and
// sends. weir's sink writer actor speaks it around a weir::Sink (weir/sink.hpp), so
// a plugin never sees it; its atoms are the definitions weir's actors use
// (actors/messages.hpp takes them from here).
//
// Messages, for one task (upstream = the last SMT stage, or the consumer):
//
//   upstream -> sink   (attach_atom)
//       once, when the pipeline is built. The sink answers with its capacity:
//   sink -> upstream   (credit_atom, weir::Credit{batches, bytes})
//       the upstream never has more batches or bytes in flight than granted.
//   upstream -> sink   (batch_atom, <decoded batch>, uint64_t charged_bytes)
//       one batch. The batch belongs to the sink from here on: it is moved, never
//       shared, and lives until the sink is done with it.
//   sink -> upstream   (durable_atom, offsets)
//       after the batch is written durably (Sink::flush returned): every record up
//       to those offsets may be committed. This is the ack. Sent before the credit.
//   sink -> upstream   (credit_atom, weir::Credit{1, charged_bytes})
//       the batch's credit, returned once the batch is written: the upstream may
//       send another. A sink that holds a batch back (writing, retrying) keeps its
//       credit, so a slow sink stops the consumer instead of growing memory.
//   upstream -> sink   (eos_atom)
//       no batch follows (the task is stopping): the sink finishes what it holds,
//       calls Sink::close, sends (done_atom, stats) to the task's observer and quits.
//   anyone -> sink     (stats_atom)  -> StageStats (records in/out, errors, state)
//
// Errors out:
//   - a rejected record (SinkBatch::fail) becomes a record error in the batch: the
//     error policy applies errors.tolerance and the dead-letter topic; the batch is
//     still acked;
//   - an exception from put/flush, after errors.retry.timeout, fails the sink: its
//     state becomes FAILED with the message as last error, it holds the failed batch
//     and returns neither ack nor credit for it, so nothing after the failure is
//     committed; the upstream, out of credit, stops reading. The task's status
//     (REST, state file) becomes FAILED with that message. The actors of a task are
//     linked to each other only: other tasks never see the failure.
//
// An asynchronous sink (weir::AsyncSink, actors/async_sink_stage.hpp) speaks the same
// messages: its batch credit is max.in.flight.batches, it holds a batch from its
// arrival until it and every earlier batch are written, then sends durable and
// credit for it, so acks and credit still go up in arrival order.
//
// Flush and close: the sink flushes after every batch, before the ack (there is no
// separate flush message: offsets are committed only after an ack, so a flush timer
// would add nothing); close happens on eos or when the task is stopped.
#pragma once

#include <caf/atom.hpp>

#include "runtime/credit.hpp"

namespace weir::protocol {

using attach_atom = caf::atom_constant<caf::atom("attach")>;
using batch_atom = caf::atom_constant<caf::atom("batch")>;
using credit_atom = caf::atom_constant<caf::atom("credit")>;
using durable_atom = caf::atom_constant<caf::atom("durable")>;
using eos_atom = caf::atom_constant<caf::atom("eos")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using stats_atom = caf::atom_constant<caf::atom("stats")>;

} // namespace weir::protocol
