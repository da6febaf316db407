// What a built-in sink connector implements (the pipeline's last stage runs it):
// plugins implement weir::Sink (include/weir/sink.hpp) instead, which
// engine/plugins/sink_adapter.hpp adapts to this.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/decoded_batch.hpp"
#include "runtime/kafka/topic_partition.hpp"

namespace weir::runtime::connector_api {

/// What a sink connector implements: write a batch durably.
class SinkWriter {
public:
  virtual ~SinkWriter() = default;

  /// Writes every Live record of `batch`; returning means they are durable. A record
  /// the destination rejects is marked Failed (batch.fail) and the others are still
  /// written. A replayed record an exactly-once writer skips (its offset is below the
  /// one stored with the data) is marked Dropped, so that "records written" counts only
  /// what this write made durable. Throwing means the whole batch failed (it may be
  /// retried).
  virtual void write(data::DecodedBatch& batch) = 0;

  /// Offsets the destination stored itself (exactly-once sinks), asked once when the
  /// task starts: where the task's consumer starts reading each partition the first
  /// time it is assigned, unless the group committed a later offset. Empty for
  /// at-least-once sinks.
  virtual std::vector<kafka::TopicPartitionOffset> stored_offsets() { return {}; }

  /// Whether the destination stores the consumed offsets with the data and skips
  /// records below them (the JDBC sinks): then a record read twice is written once,
  /// and the task's consumer may read before its group has settled (see JoinGate).
  virtual bool exactly_once() const noexcept { return false; }
};

/// How an asynchronous write of one batch ended (AsyncSinkWriter::start).
struct WriteOutcome {
  struct Failure {
    uint32_t index = 0; ///< the record's index in the DecodedBatch
    std::string reason;
  };
  std::vector<Failure> failures; ///< records the destination rejected
  /// Set: the whole batch failed (nothing written); it may be started again.
  std::optional<std::string> error;
};

/// A writer that completes batches later (a plugin's weir::AsyncSink): its task
/// keeps up to max_in_flight() batches started at once, and acks them in order.
/// write() still works (it starts the batch and waits), for callers without an actor.
class AsyncSinkWriter : public SinkWriter {
public:
  /// Batches that may be started and not completed at once (>= 1).
  virtual uint32_t max_in_flight() const noexcept = 0;

  /// Starts writing every Live record of `batch` and returns. `done` is called once,
  /// from any thread, possibly before start() returns. `batch` must stay alive and
  /// unchanged until then, or until the writer is destroyed (which stops the writes).
  virtual void start(const data::DecodedBatch& batch, std::function<void(WriteOutcome)> done) = 0;

  /// Who rejected a record, for its error context (the connector class).
  virtual std::string_view class_name() const noexcept = 0;
};

} // namespace weir::runtime::connector_api
