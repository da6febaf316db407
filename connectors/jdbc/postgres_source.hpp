// JdbcSourceConnector (io.confluent.connect.jdbc.JdbcSourceConnector) on PostgreSQL,
// through libpq: connection.url=jdbc:postgresql://... read as PgJDBC reads it
// (postgres_url.hpp), connection.user / connection.password.
//
// The same modes, queries and offsets as Confluent's connector (see jdbc_source.hpp),
// with PostgreSQL's SQL:
//   incrementing            WHERE "id" > $last ORDER BY "id" ASC
//   timestamp               WHERE "ts" > $last AND "ts" < now() - delay ORDER BY "ts" ASC
//   timestamp+incrementing  WHERE "ts" < now() - delay AND (("ts" = $last AND "id" > $id)
//                           OR "ts" > $last) ORDER BY "ts", "id" ASC
// appended to `SELECT * FROM "schema"."table"`, or to `query` (a custom query: then
// there is one partition {"query":"query"}, one task and the topic is topic.prefix).
// Table partitions are {"protocol":"1","table":"database.schema.table"}; a timestamp
// offset is Confluent's {"timestamp": ms, "timestamp_nanos": nanos of the second}, so
// PostgreSQL's microseconds resume exactly.
//
// Like Confluent's task, it reads one table at a time: a query runs in a transaction
// as a server-side cursor, fetched batch.max.rows rows at a time in binary format, the
// next FETCH sent while the last one's rows are encoded (memory stays bounded by two
// fetches whatever the table's size); once the cursor is drained the table waits
// poll.interval.ms and the next table that is due is read.
// The session's time zone is UTC, so timestamps without a time zone read as UTC.
//
// Rows become structs named after their table (no name for a query), one field per
// column, typed as postgres_values.hpp says; columns of a type weir does not map are
// left out with a warning, as Confluent does. Keys are null.
//
// Bad input fails start() with a message naming it: a table that does not exist, an
// incrementing or timestamp column that is missing, of the wrong type, or nullable
// (validate.non.null), a query the server rejects.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/connector_api/source_task.hpp"
#include "weir/config.hpp"

namespace weir::connectors::jdbc {

/// `schema.table` names of the tables (of table.types, in schemas matching
/// schema.pattern) that table.whitelist / table.blacklist select, sorted. A list entry
/// may name `table`, `schema.table` or `database.schema.table`. Throws naming the
/// server or a whitelisted table that is absent.
std::vector<std::string> select_postgres_tables(const Config& config);

class PostgresSourceTask : public runtime::connector_api::SourceTask {
public:
  explicit PostgresSourceTask(const Config& config);
  ~PostgresSourceTask() override;
  PostgresSourceTask(const PostgresSourceTask&) = delete;
  PostgresSourceTask& operator=(const PostgresSourceTask&) = delete;

  void start(const runtime::connector_api::OffsetMap& stored) override;
  Status poll(runtime::connector_api::SourceRecords& out) override;
  runtime::connector_api::Form value_form() const noexcept override {
    return runtime::connector_api::Form::Custom;
  }
  void decode(runtime::data::DecodedBatch& batch, uint32_t index) override;
  std::string_view kind() const noexcept override { return "jdbc"; }
  std::string idle_reason() const override;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace weir::connectors::jdbc
