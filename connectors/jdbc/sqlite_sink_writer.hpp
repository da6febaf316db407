// The JDBC sink's writer on SQLite: rows and consumed offsets in one transaction.
//
// write() turns every Live record of a decoded batch into an INSERT, an upsert
// (INSERT ... ON CONFLICT(pk) DO UPDATE), an UPDATE or (tombstones, with
// delete.enabled) a DELETE, through prepared statements cached per table and column
// set, and in the same transaction stores, per topic-partition, the next offset to
// consume in `__weir_sink_offsets`. Records below the stored offset are replays
// (after a crash or a rebalance) and are skipped, which makes the table exactly-once.
//
// Errors: a record the database rejects (a constraint, a type mismatch on a STRICT
// table, a missing column without auto.evolve) or that cannot map to columns is
// marked Failed in the batch (stage TASK_PUT, class JdbcSinkTask) and the others are
// written: SQLite rolls back just the failing statement. Anything else — the file
// cannot be opened or written, the disk is full, the database is busy past the
// timeout — throws std::runtime_error with the transaction rolled back.
//
// Threading: one instance per task, used by one actor at a time. Several tasks (and
// processes) may share one database file: WAL lets them read while one writes, and
// each write() takes the write lock for its transaction.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "connectors/jdbc/jdbc_sink_config.hpp"
#include "runtime/data/decoded_batch.hpp"
#include "runtime/kafka/topic_partition.hpp"

namespace weir::connectors::jdbc {

class JdbcSinkWriter {
public:
  /// What the writer has done since it was created.
  struct Stats {
    uint64_t transactions = 0;
    uint64_t written = 0;  ///< rows inserted, upserted or updated (statements run)
    uint64_t deleted = 0;  ///< delete statements run for tombstones
    uint64_t failed = 0;   ///< records this writer marked Failed
    uint64_t skipped = 0;  ///< replayed records below the stored offset
    uint64_t retried = 0;  ///< transactions run again (PostgreSQL: deadlock, serialization)
    /// PostgreSQL upsert segments COPYed straight into the table (none of their keys
    /// was there), and those that found a key and went through the staging table.
    uint64_t upserts_direct = 0, upserts_staged = 0;
  };

  /// What write() does once a record fails. Continue (for errors.tolerance=all): the
  /// other records are written and the error policy deals with the failed ones.
  /// Stop (for errors.tolerance=none): nothing from the failed record on is written,
  /// the stored offsets end just before it (so it is consumed again after a restart),
  /// the records after it stay Live and unwritten, and the caller fails the task.
  enum class OnRecordError : uint8_t { Continue, Stop };

  /// Opens (creating if needed) the database of `config.connection_url` in WAL mode
  /// with synchronous=NORMAL and a busy timeout, creates `__weir_sink_offsets` and
  /// reads this connector's stored offsets. Throws std::runtime_error if the database
  /// cannot be opened or set up.
  JdbcSinkWriter(JdbcSinkConfig config, std::string connector_name, int32_t task_id,
                 OnRecordError on_error = OnRecordError::Continue);
  ~JdbcSinkWriter();
  JdbcSinkWriter(const JdbcSinkWriter&) = delete;
  JdbcSinkWriter& operator=(const JdbcSinkWriter&) = delete;

  /// Writes every Live record of `batch` and the batch's offsets (next offset per
  /// topic-partition over all its records, whatever their state) in one transaction.
  /// Marks records that fail Failed; returns when the transaction is committed (the
  /// batch is durable). Throws std::runtime_error on a database-level failure, after
  /// rolling back: nothing of the batch is written then.
  void write(runtime::data::DecodedBatch& batch);

  /// The next offset to consume per topic-partition, as stored for this connector
  /// (read from the database, not a cache): seek the consumer to these on partition
  /// assignment. Throws std::runtime_error if the database cannot be read.
  std::vector<runtime::kafka::TopicPartitionOffset> stored_offsets();

  const Stats& stats() const noexcept;
  const JdbcSinkConfig& config() const noexcept;

  /// The busy timeout: how long a write waits for another writer's transaction.
  static constexpr int busy_timeout_ms = 30000;
  /// The table holding the offsets (shared by every connector writing this database).
  static constexpr std::string_view offsets_table = "__weir_sink_offsets";

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace weir::connectors::jdbc
