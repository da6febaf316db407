// The plain C++ side of a pipeline stage: what it does to batches. Actors in
// actors/ wrap these interfaces with mailboxes and credit; the logic itself is
// testable without an actor system.
#pragma once

#include <cstdint>
#include <string_view>

#include <vector>

#include "runtime/kafka/topic_partition.hpp"
#include "weir/batch.hpp"

namespace weir::runtime {

/// A stage that transforms or consumes batches (an SMT chain, a sink writer).
/// One actor calls it at a time, so implementations need no locking.
class StageLogic {
public:
  virtual ~StageLogic() = default;

  /// Processes a batch in place. For a sink, returning means the batch is durable.
  /// Throwing fails the stage; the exception's message becomes its last error.
  virtual void process(Batch& batch) = 0;

  /// The stage kind shown in the actor tree ("transform", "sink", ...).
  virtual std::string_view kind() const noexcept = 0;
};

/// A stage that produces batches (a generator, a Kafka consumer, a source poller).
class BatchSource {
public:
  enum class Status {
    ready, ///< more records may follow at once
    idle,  ///< nothing to read now; ask again a little later
    end,   ///< finished: no record will ever follow
  };

  virtual ~BatchSource() = default;

  /// Appends records to `out` while out.byte_size() stays within `max_bytes`
  /// (one oversized record may go alone into an empty batch).
  virtual Status fill(Batch& out, uint64_t max_bytes) = 0;

  /// Called when credit runs out (blocked = true) and when it returns, so a Kafka
  /// consumer can pause and resume its partitions instead of buffering.
  virtual void set_blocked(bool /*blocked*/) {}

  /// Called periodically while blocked: a Kafka consumer must keep polling to
  /// serve group rebalances even when it reads nothing.
  virtual void serve() {}

  /// Everything up to these offsets (next offset to read, per partition) is
  /// durable downstream: a Kafka consumer commits them, a source stores them.
  virtual void on_durable(const std::vector<kafka::TopicPartitionOffset>& /*offsets*/) {}

  virtual std::string_view kind() const noexcept = 0;
};

} // namespace weir::runtime
