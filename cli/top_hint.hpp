// What `top` says about a stage: which of its credit figures apply to its kind, and
// what it is waiting on, read from one snapshot of its published figures. Pure
// logic, CAF- and JSON-free, so each case is tested on its own (docs/shell.md,
// "Reading top", says the same in words).
//
// The figures per role (GET /weir/tree):
// - a reader (sink_reader: the consumer; source_reader: a source's poller) has no
//   upstream stage: its records in are what its polls returned (from Kafka, or from
//   the source system) and it grants no credit. It polls again and again while it
//   has credit, reading its mailbox only in between, so its mailbox holds credit
//   returns (and ticks) that arrived during its polls, and its in-flight figure
//   still counts the batches whose credit waits there: in flight at the full grant
//   with a mailbox is a reader busy polling, not one waiting on the next stage;
// - a transform and a sink writer hold credit for the batches they received and
//   have not passed on (or written); a transform's in-flight batches were sent to
//   the next stage and not yet credited back; a sink writer has no next stage;
// - a producer (source_writer) holds credit for the batches handed to Kafka and not
//   yet acknowledged; it has no next stage either.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace weir::cli::shell {

/// One stage's figures as `top` reads them (batches; bytes decide nothing here).
struct StageFigures {
  std::string role;  ///< sink_reader, source_reader, transform, sink_writer, source_writer
  std::string state; ///< RUNNING, FINISHED, FAILED...
  uint64_t held = 0, granted = 0;        ///< credit this stage granted its upstream, and holds
  uint64_t in_flight = 0, out_granted = 0; ///< credit its downstream granted it, and in flight
  uint64_t mailbox = 0;                  ///< messages waiting in the actor's mailbox
  int64_t partitions = -1;               ///< a consumer's assigned partitions; -1: not a consumer
};

/// Whether the stage grants credit (it has an upstream stage): all but readers.
bool has_upstream(std::string_view role);
/// Whether the stage sends to a next stage: readers and transforms.
bool has_downstream(std::string_view role);

/// What the stage is waiting on, one of: "next stage" (every batch it may send is in
/// flight and no credit return waits unread: the stage after it is slower), "poll"
/// (a reader not held back by credit: the pace is its own poll's, of Kafka or of
/// the source system), "no partition" (a
/// consumer with none assigned), "its work" (a transform or sink holding all the
/// credit it grants: batches queue at it, it is the slow one), "Kafka acks" (a
/// producer whose every batch awaits Kafka's acknowledgement), "previous stage"
/// (credit to spare and nothing to send: input is what it lacks), "-" for a stage
/// that is not RUNNING.
std::string_view waiting_on(const StageFigures& stage);

} // namespace weir::cli::shell
