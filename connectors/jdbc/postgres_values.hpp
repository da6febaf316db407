// PostgreSQL column types to Connect schemas, and PostgreSQL's binary output format
// (what libpq returns with resultFormat 1) to Connect values, as Confluent's JDBC
// source maps PgJDBC's types (GenericDatabaseDialect / PostgreSqlDatabaseDialect):
//
//   bool BOOLEAN; int2 INT16; int4 INT32; int8 INT64; oid INT64; float4 FLOAT32;
//   float8 FLOAT64; text, varchar, bpchar, name, "char", json, jsonb, uuid, xml STRING;
//   bytea BYTES; date Date; time Time (ms); timestamp, timestamptz Timestamp (ms);
//   numeric(p,s) Decimal(s) (parameter connect.decimal.precision = p), unconstrained
//   numeric Decimal(127) with precision 0, as Confluent's dialect does; arrays of
//   these ARRAY of the element's optional schema (one dimension).
// numeric.mapping narrows NUMERIC as Confluent does: precision_only makes
// numeric(p<=18, 0) INT8/16/32/64 by p; best_fit does too, and numeric(p<=18, s>0)
// FLOAT64; best_fit_eager_double makes every numeric with s>0 FLOAT64. An
// unconstrained numeric stays Decimal (Confluent would read it as INT8).
// Timestamps without a time zone are read as UTC (Confluent's db.timezone default).
// Any other type is unsupported: Confluent drops such a column with a warning, and
// so does weir (plan_column says why).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/data/arena.hpp"
#include "runtime/data/schema.hpp"

namespace weir::connectors::jdbc {

enum class NumericMapping : uint8_t { None, BestFit, BestFitEagerDouble, PrecisionOnly };

/// Parses numeric.mapping (none, best_fit, best_fit_eager_double, precision_only).
NumericMapping numeric_mapping(std::string_view text);

/// How a column's binary value becomes a Connect value.
enum class PgKind : uint8_t {
  Boolean, Int16, Int32, Int64, Oid, Float32, Float64, Decimal, NumericInt8, NumericInt16,
  NumericInt32, NumericInt64, NumericDouble, Text, Jsonb, Uuid, Bytes, Date, Time, Timestamp,
  Array, Unsupported
};

/// A column as the catalog (or a query's description) gives it.
struct PgColumn {
  std::string name;
  uint32_t type_oid = 0;
  int32_t type_modifier = -1;
  uint32_t element_oid = 0; ///< for arrays: the element type; else 0
  std::string type_name;    ///< format_type(), for messages
  bool not_null = false;
};

/// What a column becomes; `schema` is null for an unsupported column.
struct ColumnPlan {
  std::string name;
  PgKind kind = PgKind::Unsupported;
  PgKind element = PgKind::Unsupported; ///< for arrays
  int32_t scale = 0;                    ///< Decimal (and Decimal elements)
  runtime::data::SchemaPtr schema;
};

/// The plan of `column` under `mapping`; kind Unsupported (schema null) when weir
/// has no mapping for its type.
ColumnPlan plan_column(const PgColumn& column, NumericMapping mapping);

/// Whether `oid` is an integer type (int2, int4, int8), as an incrementing column must be.
bool is_integer_type(uint32_t oid) noexcept;
/// Whether `oid` is timestamp or timestamptz, as a timestamp column must be.
bool is_timestamp_type(uint32_t oid) noexcept;
/// Whether `oid` is timestamptz.
bool is_zoned_timestamp_type(uint32_t oid) noexcept;

/// One column's binary value as a Connect value (strings and bytes view `bytes`,
/// which must outlive it; anything built is in `arena`). Throws
/// runtime::data::DataError for a value the schema cannot hold (NaN or infinity in
/// a Decimal, an infinite date, a multi-dimensional array), naming `what`.
runtime::data::Value decode_binary(const ColumnPlan& plan, std::string_view bytes,
                                   runtime::data::Arena& arena, std::string_view what);

/// Binary integer (int2/int4/int8) or timestamp values as int64: the integer, or
/// microseconds since 1970-01-01 UTC.
int64_t binary_integer(std::string_view bytes);
int64_t binary_timestamp_micros(std::string_view bytes);

/// A binary numeric as decimal text (`-12.50`, dscale digits after the point);
/// nullopt for NaN and infinities.
std::optional<std::string> numeric_text(std::string_view bytes);
/// Decimal text as the unscaled integer at `scale` in Connect's Decimal bytes
/// (big-endian two's complement, any size), rounding half up when it has more digits.
std::string decimal_bytes_of(std::string_view text, int32_t scale);

} // namespace weir::connectors::jdbc
