// JdbcSourceConnector (io.confluent.connect.jdbc.JdbcSourceConnector) on SQLite:
// copies table rows into topics named `topic.prefix` + table.
//
// Modes, with Confluent's queries and offsets (partition {"protocol":"1","table":T}):
//   bulk                    every row on every poll; no offset
//   incrementing            rows with column > last, ascending; {"incrementing": N}
//   timestamp               rows with last < ts < now - timestamp.delay.interval.ms,
//                           ascending; {"timestamp": ms, "timestamp_nanos": 0}
//   timestamp+incrementing  (ts, id) after (last ts, last id); both offsets
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
#include "runtime/pipeline/source_task.hpp"
#include "weir/config.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace weir::connectors::jdbc {

/// Declares Confluent's source keys that weir supports, plus `tables` (set per task).
void define_jdbc_source(ConfigDef& def);

/// Tables of the connector's database that `table.whitelist` / `table.blacklist`
/// select, sorted; throws naming the database or a whitelisted table that is absent.
std::vector<std::string> select_tables(const Config& config);

class JdbcSourceTask : public runtime::pipeline::SourceTask {
public:
  explicit JdbcSourceTask(const Config& config);
  ~JdbcSourceTask() override;
  JdbcSourceTask(const JdbcSourceTask&) = delete;
  JdbcSourceTask& operator=(const JdbcSourceTask&) = delete;

  void start(const runtime::pipeline::OffsetMap& stored) override;
  Status poll(runtime::pipeline::SourceRecords& out) override;
  runtime::pipeline::Form value_form() const noexcept override {
    return runtime::pipeline::Form::Custom;
  }
  void decode(runtime::data::DecodedBatch& batch, uint32_t index) override;
  std::string_view kind() const noexcept override { return "jdbc"; }

  /// {"protocol":"1","table":T}
  static std::string partition_of(const std::string& table);

  struct Table; // one table's schema, query and offsets

private:
  enum class Mode { Bulk, Incrementing, Timestamp, TimestampIncrementing };

  void prepare(Table& t);
  bool step_rows(Table& t, runtime::pipeline::SourceRecords& out);

  std::string path_;
  Mode mode_;
  std::string incrementing_column_;
  std::string timestamp_column_;
  std::string topic_prefix_;
  std::chrono::milliseconds poll_interval_;
  std::chrono::milliseconds timestamp_delay_;
  size_t batch_max_rows_;
  std::vector<std::string> table_names_;
  sqlite3* db_ = nullptr;
  std::vector<std::unique_ptr<Table>> tables_;
  std::string row_; // one row's encoded bytes, reused
};

} // namespace weir::connectors::jdbc
