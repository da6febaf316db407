// The SQL the JDBC sink runs on PostgreSQL, built once per table, operation and column
// set (and cached by the writer), never per record.
//
// A batch segment goes in through COPY: straight into the table for inserts, else into
// a temporary staging table from which one set-based statement applies it:
//   Upsert  INSERT INTO t (cols) SELECT DISTINCT ON (keys) cols FROM stage
//           ORDER BY keys, ord DESC ON CONFLICT (keys) DO UPDATE SET c = EXCLUDED.c, ...
//   Update  UPDATE t SET c = s.c, ... FROM (SELECT DISTINCT ON (keys) ...) s WHERE keys match
//   Delete  DELETE FROM t USING stage s WHERE keys match
// DISTINCT ON keeps the last record of a key that occurs twice in one segment (`ord`
// is the record's place in the batch): ON CONFLICT may not touch a row twice in one
// statement, and the last value is what record-by-record writes would leave.
#pragma once

#include <string>
#include <string_view>

#include "connectors/jdbc/sql_text.hpp"

namespace weir::connectors::jdbc {

/// The staging table's extra column: the record's index in the batch.
inline constexpr std::string_view stage_order_column = "__weir_ord";

/// A table name as SQL: `schema.table` names are split at the last dot (as Confluent
/// does for PostgreSQL), each part quoted unless `quote` is false.
std::string postgres_table(std::string_view name, bool quote);

/// `COPY target (cols[, __weir_ord]) FROM STDIN`.
std::string copy_sql(std::string_view target, const Row& row, bool quote, bool with_order);

/// `CREATE TEMP TABLE stage ON COMMIT DELETE ROWS AS SELECT cols, 0::bigint AS
/// __weir_ord FROM table WITH NO DATA`: the table's own column types.
std::string stage_sql(std::string_view stage, std::string_view table, const Row& row, bool quote);

/// The statement applying `stage` to `table` for Upsert, Update or Delete (see above);
/// empty when there is nothing to do (Insert, an Update of key columns only).
std::string apply_sql(Op op, std::string_view table, std::string_view stage, const Row& row, bool quote);

} // namespace weir::connectors::jdbc
