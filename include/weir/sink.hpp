// The convenience base for a custom sink: implement open / put / flush / close.
//
// weir runs one Sink object per task of a connector, inside that task's sink writer
// actor (see weir/sink_protocol.hpp for the messages around it). Records arrive
// already converted by the worker's converters and transformed by the connector's
// SMTs; put() sees each record's key, value and headers as JSON text.
//
// Threading: every call on one Sink object comes from one thread at a time (the sink
// writer actor runs on its own thread, so blocking I/O in put() and flush() is fine).
// Different tasks of a connector are different objects, possibly running at the same
// time: share nothing mutable between them without a lock.
//
// Order of calls: open() once, then put() + flush() per batch, then close() once when
// the task stops (also after a failure, as long as open() succeeded). A Sink is
// destroyed right after close().
//
// When records count as written (the ack): when flush() returns after put(), weir
// treats the batch's records as durable: it returns the batch's credit upstream and
// lets the task's consumer commit their offsets. Return from flush() only once the
// destination has them (the file synced, the HTTP request answered 2xx): returning
// earlier loses records on a crash; returning later only slows the pipeline.
// Delivery is at-least-once: after a crash or a rebalance, records after the last
// commit are put() again. Make writes idempotent (upserts, keyed by
// topic/partition/offset) where duplicates matter.
//
// Exactly-once: a sink is exactly-once only if it stores, in the same atomic write as
// the records, the next offset of each partition it wrote, and reports them from
// stored_offsets() when the task starts: the consumer then resumes there, not at the
// group's committed offset (unless that one is later), the first time each
// partition is assigned to the task. A sink that cannot write both atomically must return
// nothing from stored_offsets() (the default) and is at-least-once.
//
// Errors:
// - a record the destination rejects (bad data): call batch.fail(i, reason) and go
//   on; weir applies the connector's errors.tolerance (fail the task, or log and send
//   the record to the dead-letter topic with Kafka Connect's context headers);
// - anything that makes the whole batch fail (destination down): throw from put()
//   or flush(). weir retries the batch (put() again with the same records) with
//   backoff within errors.retry.timeout (default 0: no retry), then fails this task:
//   its status becomes FAILED with the exception's message as the trace. Other
//   tasks and connectors in the process are not affected.
// - throwing from open() fails the task's start; from close(), is logged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weir/config.hpp"

namespace weir {

/// A record header. `value` is the header's value as JSON text (std::nullopt: null).
struct SinkHeader {
  std::string_view key;
  std::optional<std::string_view> value;
};

/// One record as put() sees it. Every view points into memory weir owns, valid only
/// until put() returns: copy whatever the sink keeps beyond that.
struct SinkRecord {
  std::string_view topic;
  int32_t partition = -1;
  int64_t offset = -1;
  int64_t timestamp = -1; ///< milliseconds since the epoch; -1 when unknown
  /// Key and value as JSON text (what JsonConverter with schemas.enable=false writes
  /// for the converted, transformed value: `"text"`, `42`, `{"id":1}`); std::nullopt
  /// for a null key or value (e.g. a tombstone).
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  std::span<const SinkHeader> headers;
};

/// A record put() could not write, reported through SinkBatch::fail.
struct RecordFailure {
  size_t index = 0; ///< the record's index in the batch
  std::string reason;
};

/// The records of one batch, in offset order per partition. Records that an SMT
/// dropped or that failed earlier (converters, SMTs) are not in it.
class SinkBatch {
public:
  SinkBatch() = default;
  explicit SinkBatch(std::vector<SinkRecord> records) : records_(std::move(records)) {}

  size_t size() const noexcept { return records_.size(); }
  bool empty() const noexcept { return records_.empty(); }
  const SinkRecord& operator[](size_t i) const noexcept { return records_[i]; }
  std::span<const SinkRecord> records() const noexcept { return records_; }
  auto begin() const noexcept { return records_.begin(); }
  auto end() const noexcept { return records_.end(); }

  /// Reports record `i` as rejected (bad data) with a reason for the task's log and
  /// the dead-letter topic's `__connect.errors.exception.message` header. The other
  /// records still count as written when flush() returns.
  void fail(size_t i, std::string reason) { failures_.push_back({i, std::move(reason)}); }
  std::span<const RecordFailure> failures() const noexcept { return failures_; }

private:
  std::vector<SinkRecord> records_;
  std::vector<RecordFailure> failures_;
};

/// Where a task runs: for file names, client ids and log lines.
struct SinkContext {
  std::string connector; ///< the connector's `name`
  int task = 0;          ///< 0 .. tasks.max-1
};

/// A partition's next offset to read, as an exactly-once sink stored it.
struct StoredOffset {
  std::string topic;
  int32_t partition = -1;
  int64_t next_offset = -1;
};

/// The base class of a sink task. See the file comment for the contract.
class Sink {
public:
  virtual ~Sink() = default;

  /// Starts the task. `config` holds the connector's keys parsed by the plugin's
  /// ConfigDef (typed getters; unknown keys were already rejected), plus the common
  /// ones (`topics`, `errors.*`, ...) in config.originals().
  virtual void open(const Config& config, const SinkContext& context) = 0;

  /// Writes (or buffers) every record of `batch`. Do not keep the batch or any view
  /// into it after returning. Throw to fail the whole batch (see Errors above).
  virtual void put(SinkBatch& batch) = 0;

  /// Makes everything put() so far durable; see "When records count as written".
  virtual void flush() {}

  /// Releases resources. Called once, when the task stops (after the last flush(),
  /// or after a failure). An exception from it is logged.
  virtual void close() {}

  /// For exactly-once sinks: the offsets stored with the data (any partitions; those
  /// never assigned to the task are ignored). Called once, after open().
  virtual std::vector<StoredOffset> stored_offsets() { return {}; }
};

} // namespace weir
