// JdbcSourceConnector (io.confluent.connect.jdbc.JdbcSourceConnector): copies table
// rows into topics named `topic.prefix` + table. connection.url picks the database:
// jdbc:sqlite:PATH is read here, jdbc:postgresql://... by postgres_source.hpp.
//
// Modes, with Confluent's queries and offsets (partition {"protocol":"1","table":T}):
//   bulk                    every row on every poll; no offset
//   incrementing            rows with column > last, ascending; {"incrementing": N}
//   timestamp               rows with last < ts < now - timestamp.delay.interval.ms,
//                           ascending; {"timestamp": ms, "timestamp_nanos": nanos of
//                           that second}, as java.sql.Timestamp's getTime/getNanos
//   timestamp+incrementing  (ts, id) after (last ts, last id); both offsets
//
// On SQLite:
// A timestamp column may hold integer milliseconds or SQLite date text
// ('YYYY-MM-DD HH:MM:SS[.SSS]', UTC). A query runs every `poll.interval.ms`; its
// rows are handed out `batch.max.rows` per poll from the open statement, as
// Confluent's connector does, so a table of any size streams with bounded memory.
//
// Rows become structs named after their table, one optional field per column
// (INTEGER -> INT64, BOOLEAN -> BOOLEAN, REAL/NUMERIC -> FLOAT64, TEXT/dates ->
// STRING, BLOB -> BYTES, by SQLite's type affinity rules), keys null. With
// value.converter.schemas.enable=true the JsonConverter writes the schema too.
//
// A missing table or column fails the task at start with a message naming it.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "runtime/data/schema.hpp"
#include "runtime/connector_api/source_task.hpp"
#include "weir/config.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace weir::connectors::jdbc {

/// Declares Confluent's source keys that weir supports, plus `tables` (set per task).
void define_jdbc_source(ConfigDef& def);

/// Whether connection.url names PostgreSQL (else SQLite).
bool is_postgres_source(const Config& config);

/// Tables of the connector's database that `table.whitelist` / `table.blacklist`
/// select, sorted; throws naming the database or a whitelisted table that is absent.
std::vector<std::string> select_tables(const Config& config);

enum class SourceMode { Bulk, Incrementing, Timestamp, TimestampIncrementing };

/// `mode`, checking that the columns it needs are named (ConfigError otherwise).
SourceMode source_mode(const Config& config);
inline bool uses_incrementing(SourceMode m) noexcept {
  return m == SourceMode::Incrementing || m == SourceMode::TimestampIncrementing;
}
inline bool uses_timestamp(SourceMode m) noexcept {
  return m == SourceMode::Timestamp || m == SourceMode::TimestampIncrementing;
}

/// Where a table (or the query) has got to: Confluent's TimestampIncrementingOffset.
struct SourceOffset {
  int64_t incrementing = -1;     ///< Confluent's start: every id above -1
  int64_t timestamp_micros = 0;  ///< since the epoch; 0 (the epoch) at the start
};
/// The offset's JSON for `mode` (empty for bulk).
std::string offset_json(SourceMode mode, const SourceOffset& offset);
/// A stored offset read back; throws naming `partition` when a number `mode` needs
/// is missing.
SourceOffset read_offset(SourceMode mode, std::string_view text, const std::string& partition);
/// {"protocol":"1","table":T}, and {"query":"query"} for query mode.
std::string table_partition(const std::string& table);
std::string query_partition();

class JdbcSourceTask : public runtime::connector_api::SourceTask {
public:
  explicit JdbcSourceTask(const Config& config);
  ~JdbcSourceTask() override;
  JdbcSourceTask(const JdbcSourceTask&) = delete;
  JdbcSourceTask& operator=(const JdbcSourceTask&) = delete;

  void start(const runtime::connector_api::OffsetMap& stored) override;
  Status poll(runtime::connector_api::SourceRecords& out) override;
  runtime::connector_api::Form value_form() const noexcept override {
    return runtime::connector_api::Form::Custom;
  }
  void decode(runtime::data::DecodedBatch& batch, uint32_t index) override;
  std::string_view kind() const noexcept override { return "jdbc"; }
  std::string idle_reason() const override { return idle_reason_; }

  struct Table; // one table's schema, query and offsets

private:
  using Mode = SourceMode;

  void prepare(Table& t);
  bool step_rows(Table& t, runtime::connector_api::SourceRecords& out);

  std::string path_;
  Mode mode_;
  std::string incrementing_column_;
  std::string timestamp_column_;
  std::string topic_prefix_;
  std::chrono::milliseconds poll_interval_;
  std::chrono::milliseconds timestamp_delay_;
  size_t batch_max_rows_;
  std::vector<std::string> table_names_;
  std::string idle_reason_; ///< set for a task beyond the table count: it has no table
  sqlite3* db_ = nullptr;
  std::vector<std::unique_ptr<Table>> tables_;
  std::string row_; // one row's encoded bytes, reused
};

} // namespace weir::connectors::jdbc
