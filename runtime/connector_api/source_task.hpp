// What a source connector's task implements, and the source offsets it reports.
//
// Kafka Connect's model: every source record names a source partition (a map, e.g.
// {"filename": F}) and its offset in it (e.g. {"position": N}). weir keeps both as
// canonical JSON text. A task does not attach them to each record: it says, after
// appending records, which offset each partition has reached (set_offset), which is
// all that committing needs, since offsets are committed batch by batch, in order.
//
// Records are appended as bytes into the batch's raw Batch (one copy), with a Form
// saying how the poller turns them into Connect values for the transforms: a file
// line becomes a STRING, generated JSON a schemaless map, a database row whatever
// the task's decode() builds. The credit a batch is charged is therefore its real
// size, so a slow broker bounds memory.
//
// Threading: a SourceTask is called by one actor at a time. SourceOffsets is shared
// by the poller (emitted) and the producer (delivered) and is thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/stage_logic.hpp"

namespace weir::runtime::connector_api {

/// Source partition (JSON text) -> source offset (JSON text).
using OffsetMap = std::map<std::string, std::string>;

/// How the bytes a task appends become a Connect key or value.
enum class Form : uint8_t {
  Null,   ///< always null (no bytes are stored)
  String, ///< a STRING (schema STRING), as FileStreamSource emits lines
  Json,   ///< JSON text decoded schemaless: objects become maps
  Custom, ///< the task's decode() builds it (e.g. a struct with its schema)
};

/// A batch under construction: records appended by a task's poll().
class SourceRecords {
public:
  /// `raw` receives the records; the batch stays within `max_bytes` of credit
  /// (payload_bytes) and `max_records`, except that one record always fits.
  SourceRecords(Batch& raw, uint64_t max_bytes, size_t max_records) noexcept
    : raw_(raw), max_bytes_(max_bytes), max_records_(max_records) {}

  /// True while a record with `bytes` bytes of key and value still fits.
  bool has_room(size_t bytes) const noexcept {
    if (raw_.empty())
      return true;
    return raw_.size() < max_records_
           && raw_.byte_size() + (raw_.size() + 1) * sizeof(data::DecodedRecord) + bytes
                + sizeof(RecordRef)
                <= max_bytes_;
  }
  size_t size() const noexcept { return raw_.size(); }

  /// Appends a record; the bytes are copied once. `partition` -1 lets the
  /// producer's partitioner choose; `timestamp` -1 means none (the producer's clock).
  void add(std::string_view topic, std::optional<std::string_view> key,
           std::optional<std::string_view> value, int64_t timestamp = -1, int32_t partition = -1) {
    raw_.append(topic, partition, -1, timestamp, key, value);
  }

  /// The offset `partition` has reached with the records appended so far. Call it
  /// after appending them; a later call for the same partition replaces it.
  void set_offset(std::string_view partition, std::string_view offset);

  std::vector<std::pair<std::string, std::string>>& offsets() noexcept { return offsets_; }

private:
  Batch& raw_;
  uint64_t max_bytes_;
  size_t max_records_;
  std::vector<std::pair<std::string, std::string>> offsets_;
};

/// One source task: Kafka Connect's SourceTask (start, poll, stop) in weir's terms.
class SourceTask {
public:
  using Status = DecodedFeed::Status;

  virtual ~SourceTask() = default;

  /// Called once before the first poll with the offsets stored for this connector
  /// (every partition any of its tasks reported); a task resumes from its own.
  /// Throws (std::exception with a message naming the file, table, ...) to fail.
  virtual void start(const OffsetMap& stored) = 0;

  /// Appends what is available now, without blocking for long: `idle` when nothing
  /// was (the poller asks again a little later), `end` when nothing ever will be.
  /// Throwing fails the task; the message becomes its status trace.
  virtual Status poll(SourceRecords& out) = 0;

  /// How appended keys and values become Connect values.
  virtual Form key_form() const noexcept { return Form::Null; }
  virtual Form value_form() const noexcept = 0;

  /// Builds record `index`'s key and value for Form::Custom, from the raw bytes
  /// (`batch.raw()[batch[index].raw_index]`). Throws data::DataError for bad data.
  virtual void decode(data::DecodedBatch& /*batch*/, uint32_t /*index*/) {}

  /// Kafka Connect's SourceTask.commit(): `committed` holds the offsets Kafka now
  /// holds durably (every record up to them delivered, or committed with the
  /// transaction). Called between polls, on the poller's thread, when they changed;
  /// a task that must tell its source how far it may forget (a replication slot)
  /// does it here, never earlier.
  virtual void commit(const OffsetMap& /*committed*/) {}

  /// The first `count` batches poll() filled (in order, counting only polls that
  /// appended records) are committed as commit() describes; called just before it.
  /// For tasks that acknowledge record by record (a plugin's commit_records).
  virtual void committed_batches(uint64_t /*count*/) {}

  /// Bytes the origin keeps for this task that Kafka does not hold yet (a
  /// replication slot's lag), for the actor tree and /metrics; -1: not known.
  virtual int64_t lag_bytes() const { return -1; }

  /// Why this task has nothing to read at all (e.g. more tasks than tables), for its
  /// status, as a sink task without partitions reports it; empty when it has work.
  virtual std::string idle_reason() const { return {}; }

  /// The kind shown in the actor tree ("file", "datagen", "jdbc", ...).
  virtual std::string_view kind() const noexcept = 0;
};

/// Tracks batches from the poller to their delivery and the offsets that are safe
/// to store: a batch's offsets count only once it and every earlier batch has been
/// delivered, so a stored offset never skips a record that might be lost.
class SourceOffsets {
public:
  explicit SourceOffsets(OffsetMap stored = {}) : committed_(std::move(stored)) {}

  /// The poller sends batch `sequence` (increasing) of `records` records, which reach
  /// `positions`.
  void emitted(uint64_t sequence, std::vector<std::pair<std::string, std::string>> positions,
               uint64_t records = 1);
  /// Every record of batch `sequence` was delivered (or, with exactly-once, committed).
  void delivered(uint64_t sequence);

  /// The offsets after every batch up to `sequence` (delivered or not), for writing
  /// them into the transaction that carries those batches.
  OffsetMap through(uint64_t sequence) const;

  /// Every committed offset.
  OffsetMap committed() const;
  /// Committed offsets that changed since the last call: what a flush writes.
  OffsetMap take_changes();

  /// Batches delivered and still waiting for an earlier one, for tests and stats.
  uint64_t committed_batches() const;
  size_t pending_batches() const;
  /// Per record, the time from emitted() to delivered() (the task's poll-to-ack).
  metrics::LatencyHistogram poll_to_ack() const;

private:
  struct Pending {
    uint64_t sequence;
    std::vector<std::pair<std::string, std::string>> positions;
    bool delivered = false;
    std::chrono::steady_clock::time_point emitted;
    uint64_t records = 0;
  };

  mutable std::mutex mutex_;
  std::deque<Pending> pending_;
  OffsetMap committed_;
  OffsetMap changed_;
  uint64_t committed_batches_ = 0;
  metrics::LatencyHistogram poll_to_ack_;
};

} // namespace weir::runtime::connector_api
