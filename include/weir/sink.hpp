// The convenience bases for a custom sink: implement open / put / flush / close
// (Sink, blocking), or open / put-with-a-completion / close (AsyncSink).
//
// weir runs one sink object per task of a connector, inside that task's sink writer
// actor (see actors/sink_protocol.hpp for the messages around it). Records arrive
// already converted by the worker's converters and transformed by the connector's
// SMTs. A sink reads each record's key, value and headers as weir's decoded values
// with their schemas (SinkRecord::data, the weir/data API), and, when it registered
// for it (SinkInput::JsonText, the default), also as JSON text: weir renders that
// text for every record, so a sink that does not need it registers SinkInput::Values.
//
// Threading: every call on one sink object comes from one thread at a time (the sink
// writer actor runs on its own thread, so blocking I/O in put() and flush() is fine).
// Different tasks of a connector are different objects, possibly running at the same
// time: share nothing mutable between them without a lock. An AsyncSink's
// BatchCompletion is the exception: complete it from any thread (its I/O thread).
//
// Order of calls: open() once, then put() + flush() per batch, then close() once when
// the task stops (also after a failure, as long as open() succeeded). A sink is
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
// Asynchronous sinks (AsyncSink): put(batch, done) starts the write and returns at
// once; the batch counts as written when `done` is completed. Up to
// `max.in.flight.batches` batches are out at once (a connector key weir adds to every
// async sink, its default declared at registration); the credit protocol holds the
// rest upstream, so memory stays bounded by it. Batches may complete in any order;
// weir acks them in offset order (a partition's offsets commit only once every
// earlier batch completed).
//
// Exactly-once: a sink is exactly-once only if it stores, in the same atomic write as
// the records, the next offset of each partition it wrote, and reports them from
// stored_offsets() when the task starts: the consumer then resumes there, not at the
// group's committed offset (unless that one is later), the first time each
// partition is assigned to the task. A sink that cannot write both atomically must return
// nothing from stored_offsets() (the default) and is at-least-once.
//
// Errors:
// - a record the destination rejects (bad data): call batch.fail(i, reason) (an
//   AsyncSink: done.fail(i, reason)) and go on; weir applies the connector's
//   errors.tolerance (fail the task, or log and send the record to the dead-letter
//   topic with Kafka Connect's context headers, stage TASK_PUT);
// - anything that makes the whole batch fail (destination down): throw from put()
//   or flush() (an AsyncSink: done.fail_batch(reason)). weir retries the batch (put()
//   again with the same records) with backoff within errors.retry.timeout (default 0:
//   no retry), then fails this task: its status becomes FAILED with the message as
//   the trace. Other tasks and connectors in the process are not affected.
// - throwing from open() fails the task's start; from close(), is logged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weir/config.hpp"
#include "weir/record.hpp"

namespace weir {

/// How a sink reads its records, declared at registration (SinkDescriptor::input).
enum class SinkInput : uint8_t {
  /// The decoded values (SinkRecord::data) and, rendered by weir for every record,
  /// key, value and header values as JSON text (SinkRecord::key, value, headers).
  JsonText,
  /// The decoded values only: nothing is rendered; SinkRecord::key, value and
  /// headers stay empty.
  Values,
};

/// A record header. `value` is the header's value as JSON text (std::nullopt: null).
struct SinkHeader {
  std::string_view key;
  std::optional<std::string_view> value;
};

/// One record as put() sees it. Every view points into memory weir owns, valid only
/// until put() returns (an AsyncSink: until it completes the batch): copy whatever
/// the sink keeps beyond that.
struct SinkRecord {
  std::string_view topic;
  int32_t partition = -1;
  int64_t offset = -1;
  int64_t timestamp = -1; ///< milliseconds since the epoch; -1 when unknown
  /// Key and value as JSON text, for a sink registered with SinkInput::JsonText
  /// (what JsonConverter with schemas.enable=false writes for the converted,
  /// transformed value: `"text"`, `42`, `{"id":1}`); std::nullopt for a null key or
  /// value (e.g. a tombstone), and always with SinkInput::Values.
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  std::span<const SinkHeader> headers; ///< as JSON text (SinkInput::JsonText only)
  /// The record as weir holds it, read-only: key and value with their schemas
  /// (nullptr: schemaless), headers as values. Always set; no text in between.
  const RecordData* data = nullptr;
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

/// The base class of a blocking sink task. See the file comment for the contract.
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

/// How a batch given to AsyncSink::put ended (what a BatchCompletion delivers).
struct BatchOutcome {
  std::vector<RecordFailure> failures; ///< records the destination rejected
  /// Set: the whole batch failed (nothing of it counts as written); weir retries it.
  std::optional<std::string> error;
};

/// Completes one batch of an AsyncSink. Move-only; complete it once, from any
/// thread, with succeed() (after fail() for each rejected record) or fail_batch().
/// A handle destroyed without either fails its batch ("dropped"), so a lost handle
/// is retried, never taken as written.
class BatchCompletion {
public:
  using Callback = std::function<void(BatchOutcome)>;

  BatchCompletion() = default;
  explicit BatchCompletion(Callback done) : done_(std::move(done)) {}
  BatchCompletion(BatchCompletion&& other) noexcept
      : done_(std::exchange(other.done_, nullptr)), outcome_(std::move(other.outcome_)) {}
  BatchCompletion& operator=(BatchCompletion&& other) noexcept {
    if (this != &other) {
      abandon();
      done_ = std::exchange(other.done_, nullptr);
      outcome_ = std::move(other.outcome_);
    }
    return *this;
  }
  BatchCompletion(const BatchCompletion&) = delete;
  BatchCompletion& operator=(const BatchCompletion&) = delete;
  ~BatchCompletion() { abandon(); }

  /// Reports record `i` of the batch as rejected (bad data), as SinkBatch::fail does.
  void fail(size_t i, std::string reason) { outcome_.failures.push_back({i, std::move(reason)}); }
  /// The batch is written (all but the records failed above).
  void succeed() { finish(); }
  /// The whole batch failed; weir puts it again after a backoff (see Errors).
  void fail_batch(std::string error) {
    outcome_.error = std::move(error);
    finish();
  }
  /// Whether it still has to be completed.
  bool pending() const noexcept { return static_cast<bool>(done_); }

private:
  void finish() {
    if (auto done = std::exchange(done_, nullptr))
      done(std::move(outcome_));
  }
  void abandon() noexcept {
    if (!done_)
      return;
    try {
      fail_batch("the sink dropped the batch's completion without completing it");
    } catch (...) { // noexcept: a destructor; weir's callback does not throw
    }
  }

  Callback done_;
  BatchOutcome outcome_;
};

/// The base class of an asynchronous sink task: it starts a batch's write and
/// completes it later (one thread pipelining requests to a network service). See
/// the file comment for the contract; calls other than the completion come from one
/// thread at a time, as for Sink.
class AsyncSink {
public:
  virtual ~AsyncSink() = default;

  /// As Sink::open. `config` also holds `max.in.flight.batches`.
  virtual void open(const Config& config, const SinkContext& context) = 0;

  /// Starts writing every record of `batch` and returns without waiting. The batch
  /// and every view into it stay valid and unchanged until `done` is completed;
  /// complete it once the destination has the records. A batch that failed
  /// (fail_batch) comes back here, with the same records, after a backoff.
  virtual void put(const SinkBatch& batch, BatchCompletion done) = 0;

  /// Releases resources, once, when the task stops. After a clean stop every batch
  /// was completed; after a failure some may not be: complete (or drop) their
  /// handles and stop reading their records before returning, since weir frees
  /// them right after. An exception from it is logged.
  virtual void close() {}

  /// As Sink::stored_offsets.
  virtual std::vector<StoredOffset> stored_offsets() { return {}; }
};

} // namespace weir
