// The plain C++ side of a pipeline stage: what it does to batches. Actors in
// actors/ wrap these interfaces with mailboxes and credit; the logic itself is
// testable without an actor system.
//
// A pipeline moves one payload type: raw `Batch`es (bytes as Kafka holds them), or
// `data::DecodedBatch`es (parsed once by the converters, then shared by every
// transform and the sink). The interfaces are templates over that payload.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "runtime/data/decoded_batch.hpp"
#include "runtime/kafka/topic_partition.hpp"
#include "runtime/metrics/latency_histogram.hpp"
#include "runtime/batch.hpp"

namespace weir::runtime {

/// The bytes a payload is charged in credit. A decoded batch counts its raw bytes
/// and the arena its values live in, so a transform that grows values is charged
/// for it at the next hop.
inline uint64_t payload_bytes(const Batch& b) noexcept { return b.byte_size(); }
inline uint64_t payload_bytes(const data::DecodedBatch& b) noexcept {
  return b.raw().byte_size() + b.size() * sizeof(data::DecodedRecord);
}

/// Records that go on (a decoded batch's Live ones), and per-record errors so far.
inline size_t live_records(const Batch& b) noexcept { return b.size(); }
inline size_t live_records(const data::DecodedBatch& b) noexcept { return b.live_count(); }
inline size_t record_errors(const Batch&) noexcept { return 0; }
inline size_t record_errors(const data::DecodedBatch& b) noexcept { return b.errors().size(); }

/// Per partition, the offset after the last record of a batch: what a sink
/// reports durable once it has written the batch. Dropped and failed (tolerated)
/// records count: they were processed.
std::vector<kafka::TopicPartitionOffset> durable_offsets(const Batch& batch);
std::vector<kafka::TopicPartitionOffset> durable_offsets(const data::DecodedBatch& batch);

/// The sum of the known lags (-1 when none is known).
int64_t total_lag(const std::vector<kafka::PartitionLag>& lags);

/// process()'s answer: empty when the batch is done; otherwise the wait before the
/// same batch is to be processed again (a sink writer retrying within
/// errors.retry.timeout). The actor waits with a delayed message, not a sleep, so
/// it keeps answering stop, stats and taps meanwhile. A feed says the same with
/// FeedOf::Status::again and retry_after().
using RetryAfter = std::optional<std::chrono::milliseconds>;

/// A stage that transforms or consumes batches (an SMT, a sink writer). One actor
/// calls it at a time, so implementations need no locking.
template <class Payload>
class StageLogicOf {
public:
  virtual ~StageLogicOf() = default;

  /// Processes a batch in place. For a sink, a done batch is durable. Throwing fails
  /// the stage; the exception's message becomes its last error.
  virtual RetryAfter process(Payload& batch) = 0;

  /// The stage kind shown in the actor tree ("transform", "sink", ...).
  virtual std::string_view kind() const noexcept = 0;

  /// Records this stage has sent to the dead-letter queue so far (a sink writer's).
  virtual uint64_t dead_lettered() const noexcept { return 0; }
};

/// A stage that feeds batches into a pipeline (a generator, a sink task's topic reader,
/// a source task's poller). "Source" is kept for source connectors.
template <class Payload>
class FeedOf {
public:
  enum class Status {
    ready, ///< more records may follow at once
    idle,  ///< nothing to read now; ask again a little later
    end,   ///< finished: no record will ever follow
    again, ///< a service it needs is down (a schema registry): `out` stays empty, the
           ///< feed keeps what it read, and the same records come from the fill()
           ///< after retry_after() (within errors.retry.timeout, else fill() throws)
  };

  virtual ~FeedOf() = default;

  /// Appends records to `out` while its payload_bytes() stay within `max_bytes`
  /// (one oversized record may go alone into an empty batch). A decoding feed may
  /// overshoot; the actor then holds the batch until credit allows it.
  virtual Status fill(Payload& out, uint64_t max_bytes) = 0;

  /// After fill() returned `again`: how long to wait before calling it again. The
  /// actor waits with a delayed message, not a sleep, so it keeps answering stop
  /// and stats meanwhile.
  virtual std::chrono::milliseconds retry_after() const { return {}; }

  /// Called when a stall outlasts a tick (blocked = true) and when credit returns,
  /// so a Kafka consumer can pause and resume its partitions instead of buffering.
  virtual void set_blocked(bool /*blocked*/) {}

  /// Called periodically while blocked: a Kafka consumer must keep polling to
  /// serve group rebalances even when it reads nothing.
  virtual void serve() {}

  /// Everything up to these offsets (next offset to read, per partition) is
  /// durable downstream: a Kafka consumer commits them, a source task's poller stores them.
  virtual void on_durable(const std::vector<kafka::TopicPartitionOffset>& /*offsets*/) {}

  /// Consumer lag summed over assigned partitions (-1: unknown or not a consumer),
  /// and how many partitions are assigned (-1: not a consumer).
  virtual int64_t lag() const { return -1; }
  virtual int32_t assigned_partitions() const { return -1; }
  /// A consumer's lag per assigned partition (what lag() sums); empty otherwise.
  virtual std::vector<kafka::PartitionLag> partition_lags() const { return {}; }
  /// Of the time in fill(), how much (in total) was spent waiting for records to
  /// arrive (a consumer's poll timeout): the actor counts it idle, not busy.
  virtual uint64_t wait_ns() const { return 0; }
  /// Per record, the time from the fill() that read it to on_durable() covering it;
  /// empty for feeds that do not keep it.
  virtual metrics::LatencyHistogram poll_to_ack() const { return {}; }
  /// A consumer with no partition: why, in words ("topic orders does not exist",
  /// "waiting for its first assignment"); empty when it has partitions, is no
  /// consumer, or was simply given none (more tasks than partitions).
  virtual std::string idle_reason() const { return {}; }
  /// A feed that cannot work for now although it runs, in words ("waiting for the
  /// broker since 2026-12-02T07:30:01Z"); empty when it can.
  virtual std::string waiting_reason() const { return {}; }
  /// Offset commits completed so far, and their total time (request to answer).
  virtual uint64_t commits() const { return 0; }
  virtual uint64_t commit_ns() const { return 0; }
  /// A source task's origin: bytes it keeps for this source that Kafka does not hold
  /// yet (a replication slot's lag); -1 when the source has no such figure.
  virtual int64_t source_lag_bytes() const { return -1; }

  virtual std::string_view kind() const noexcept = 0;
};

using StageLogic = StageLogicOf<Batch>;
using BatchFeed = FeedOf<Batch>;
using DecodedStageLogic = StageLogicOf<data::DecodedBatch>;
using DecodedFeed = FeedOf<data::DecodedBatch>;

} // namespace weir::runtime
