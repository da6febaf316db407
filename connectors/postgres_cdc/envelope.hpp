// Debezium's PostgreSQL change events in Connect terms: per table a key schema
// (`<prefix>.<schema>.<table>.Key`, the primary key columns), a row schema
// (`….Value`) and the envelope (`….Envelope`, version 2: before, after, source,
// transaction, op, ts_ms, ts_us, ts_ns), with the source block
// `io.debezium.connector.postgresql.Source`.
//
// Column values arrive as PostgreSQL's text output (pgoutput protocol 1 and the
// snapshot's queries both use it; the session runs with TimeZone=UTC and
// DateStyle=ISO) and map to Connect types as Debezium's defaults do
// (decimal.handling.mode=precise, time.precision.mode=adaptive):
//   bool BOOLEAN; int2 INT16; int4 INT32; int8/oid INT64; float4 FLOAT32; float8 FLOAT64;
//   numeric(p,s) Decimal; numeric VariableScaleDecimal; text/varchar/bpchar/char/name STRING;
//   bytea BYTES; date io.debezium.time.Date; time MicroTime; timestamp(0..3) Timestamp,
//   timestamp(4..6) MicroTimestamp; timestamptz ZonedTimestamp; uuid Uuid; json/jsonb Json.
// Any other type is emitted as its text (STRING) and reported once per column
// through the `unsupported` callback, naming table, column and type.
//
// As Debezium does, a NULL in a NOT NULL column (the non-key columns of a delete's
// key-only `before`) becomes the type's zero value; an unchanged TOASTed value
// becomes `__debezium_unavailable_value` (text columns) or null.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "connectors/postgres_cdc/pgoutput.hpp"
#include "runtime/data/schema.hpp"

namespace weir::connectors::postgres_cdc {

/// A table's column as the catalog describes it.
struct ColumnInfo {
  std::string name;
  uint32_t type_oid = 0;
  int32_t type_modifier = -1;
  std::string type_name; ///< format_type(), for messages
  bool not_null = false;
  bool primary_key = false;
};

/// How one column's text becomes a Connect value.
enum class Mapping : uint8_t {
  Boolean, Int16, Int32, Int64, Float32, Float64, Decimal, VariableDecimal, String, Bytes,
  Date, MicroTime, Timestamp, MicroTimestamp, ZonedTimestamp, Unsupported
};

/// One table's schemas and column mappings; immutable once built.
struct TableSchema {
  uint32_t oid = 0;
  std::string schema, table, topic;
  std::vector<ColumnInfo> columns;
  std::vector<Mapping> mappings;
  std::vector<int32_t> scales;       ///< Decimal columns' scale
  std::vector<uint32_t> key_columns; ///< primary key columns, in key order
  runtime::data::SchemaPtr key;      ///< null when the table has no primary key
  runtime::data::SchemaPtr row;
  runtime::data::SchemaPtr envelope;
};

/// Called once per column whose type weir emits as text.
using OnUnsupported = std::function<void(const std::string& message)>;

/// Builds a table's schemas; `topic_prefix` is topic.prefix.
std::shared_ptr<const TableSchema> make_table_schema(const std::string& topic_prefix, uint32_t oid,
                                                     std::string schema, std::string table,
                                                     std::vector<ColumnInfo> columns,
                                                     const OnUnsupported& unsupported);

/// `io.debezium.connector.postgresql.Source`.
const runtime::data::SchemaPtr& source_schema();

/// A row's struct from a TupleData (columns in table order). Throws
/// runtime::data::DataError naming table and column for text a type cannot read.
runtime::data::Value row_value(const TableSchema& t, const Tuple& tuple, runtime::data::Arena& arena);
/// The key struct from a TupleData of the whole row or its key ('K' tuples carry
/// every column, non-key ones null).
runtime::data::Value key_value(const TableSchema& t, const Tuple& tuple, runtime::data::Arena& arena);

/// What the source block says about one event.
struct SourceInfo {
  std::string_view version, server_name, database;
  int64_t commit_micros = 0; ///< the transaction's commit time (Unix µs); snapshot: read time
  std::string_view snapshot = "false"; ///< "true", "last", "false"
  int64_t tx_id = -1;                  ///< -1: null
  int64_t lsn = -1;                    ///< -1: null
  int64_t last_commit_lsn = -1;        ///< for `sequence`; -1: null
};

/// The envelope of one event; `before`/`after` are null Values when absent, `op`
/// one of c u d r t, `now_micros` the processing time (ts_ms/ts_us/ts_ns).
runtime::data::Value envelope_value(const TableSchema& t, const SourceInfo& source, char op,
                                    runtime::data::Value before, runtime::data::Value after,
                                    int64_t now_micros, runtime::data::Arena& arena);

/// Days since 1970-01-01 of `YYYY-MM-DD`, and µs of `HH:MM:SS[.ffffff]`; false for
/// other text (BC dates, infinity).
bool parse_date(std::string_view text, int32_t& days);
bool parse_time(std::string_view text, int64_t& micros);

} // namespace weir::connectors::postgres_cdc
