// The SQL the JDBC sink runs on SQLite, built from a Row's column names, the DDL both
// databases share (with each one's column types), and the text form of Connect's time
// types. Built once per table and column set (statements are cached), never per record.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "connectors/jdbc/row_mapper.hpp"

namespace weir::connectors::jdbc {

enum class Op : uint8_t { Insert, Upsert, Update, Delete };

/// For messages: `INSERT into`, `upsert into`, `UPDATE of`, `DELETE from`.
std::string_view verb(Op op) noexcept;

/// An identifier in double quotes, inner quotes doubled: any name is safe.
void append_quoted(std::string& out, std::string_view identifier);
std::string quoted(std::string_view identifier);
/// Quoted, or as given (quote.sql.identifiers=never: the database folds its case).
void append_identifier(std::string& out, std::string_view identifier, bool quote);

/// A column's declared type for auto.create / auto.evolve; empty: none.
using TypeOf = std::string_view (*)(const Column&) noexcept;

/// `CREATE TABLE [IF NOT EXISTS] t (columns with types and NOT NULL, PRIMARY KEY
/// (key columns))`, with SQLite's types unless given others.
std::string create_table_sql(std::string_view quoted_table, const Row& row, TypeOf type = sql_type,
                             bool quote = true, bool if_not_exists = false);
/// `ALTER TABLE t ADD COLUMN c TYPE` (always nullable).
std::string add_column_sql(std::string_view quoted_table, const Column& column, TypeOf type = sql_type,
                           bool quote = true);

/// The statement for `op` on the row's columns; parameter ?N binds row.columns[N-1]:
///   Insert  INSERT INTO t (c1, ...) VALUES (?1, ...)
///   Upsert  ... ON CONFLICT (keys) DO UPDATE SET c = excluded.c, ... (DO NOTHING if all are keys)
///   Update  UPDATE t SET c = ?N, ... WHERE k = ?1 AND ...
///   Delete  DELETE FROM t WHERE k = ?1 AND ... (the row holds only key columns)
std::string statement_sql(std::string_view quoted_table, Op op, const Row& row);

/// Connect's Date (days), Time (ms of the day) and Timestamp (ms since the epoch) as
/// the UTC text SQLite's date functions read: `YYYY-MM-DD`, `HH:MM:SS.SSS`,
/// `YYYY-MM-DD HH:MM:SS.SSS`. Replaces `out`'s content (reusing its memory).
void format_time(runtime::data::Logical logical, int64_t value, std::string& out);

} // namespace weir::connectors::jdbc
