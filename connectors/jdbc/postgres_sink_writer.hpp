// The JDBC sink's writer on PostgreSQL (libpq): rows and consumed offsets in one
// transaction per batch, every task on its own connection.
//
// write() runs one transaction. It first locks this batch's partitions' rows of
// `__weir_sink_offsets(connector, topic, partition, next_offset)` (inserting a row for a
// partition never seen, then SELECT ... FOR UPDATE): records below the stored next
// offset are replays and are skipped, so a zombie task left over from a rebalance
// waits for the lock and then finds its records already written (exactly-once, even
// in insert mode without keys). Consecutive records with the same table, operation
// and column set form a segment, sent with COPY (text format): inserts straight into
// the table, upserts, updates and deletes into a temporary staging table applied by
// one set-based statement (see postgres_sql.hpp). Then the new offsets, then COMMIT.
//
// Errors:
// - A record that cannot map to columns (DataError) is marked Failed.
// - A row PostgreSQL rejects (SQLSTATE classes 22 and 23: a unique or NOT NULL
//   violation, a value that does not fit its column, invalid UTF-8, a NUL byte): the
//   transaction is rolled back and the batch redone row by row under SAVEPOINTs; the
//   rejected rows are marked Failed (stage TASK_PUT, class JdbcSinkTask) with the
//   SQLSTATE, the server's message and the table/column, every other row is written.
// - With OnRecordError::Stop the first failed record ends the batch: rows before it
//   commit, the offsets end just before it, later records stay Live and unwritten.
// - Deadlocks and serialization failures (40P01, 40001), and concurrent creation of
//   the same table, roll back and retry the transaction inside write().
// - A lost connection or any other server error rolls back and throws
//   std::runtime_error; the next write() reconnects.
// No message contains the password.
//
// Threading: one instance per task, used by one actor at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "connectors/jdbc/jdbc_sink_config.hpp"
#include "connectors/jdbc/sqlite_sink_writer.hpp"
#include "runtime/data/decoded_batch.hpp"
#include "runtime/kafka/topic_partition.hpp"

namespace weir::connectors::jdbc {

class PostgresSinkWriter {
public:
  using Stats = JdbcSinkWriter::Stats;
  using OnRecordError = JdbcSinkWriter::OnRecordError;

  /// Connects (connection.attempts tries, connection.backoff.ms apart) and creates
  /// `__weir_sink_offsets` if missing. Throws std::runtime_error with libpq's message
  /// (host, port, reason) when the server cannot be reached.
  PostgresSinkWriter(JdbcSinkConfig config, std::string connector_name, int32_t task_id,
                     OnRecordError on_error = OnRecordError::Continue);
  ~PostgresSinkWriter();
  PostgresSinkWriter(const PostgresSinkWriter&) = delete;
  PostgresSinkWriter& operator=(const PostgresSinkWriter&) = delete;

  /// Writes every Live record of `batch` and the batch's offsets in one transaction
  /// (see above); returns once it is committed. Throws std::runtime_error when the
  /// connection is lost or the server fails otherwise: nothing of the batch is written
  /// then, and the records' states are as they were.
  void write(runtime::data::DecodedBatch& batch);

  /// The next offset to consume per topic-partition, as stored for this connector.
  /// Throws std::runtime_error if the server cannot be read.
  std::vector<runtime::kafka::TopicPartitionOffset> stored_offsets();

  const Stats& stats() const noexcept;
  const JdbcSinkConfig& config() const noexcept;

  /// Deadlock / serialization-failure retries per write() before it throws.
  static constexpr int max_retries = 50;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace weir::connectors::jdbc
