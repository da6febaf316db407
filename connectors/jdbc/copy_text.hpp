// PostgreSQL's COPY text format, written straight from decoded values, and the
// PostgreSQL column types auto.create / auto.evolve declare.
//
// One row is its values separated by tabs and ended by a newline; in each value a
// backslash, tab, newline and carriage return are backslash-escaped and a null is `\N`
// (https://www.postgresql.org/docs/current/sql-copy.html, "Text Format"). Values are
// rendered as PostgreSQL's input functions read them: booleans t/f, integers and
// Decimals as exact decimal text, doubles with round-trip precision (NaN, Infinity,
// -Infinity), bytes as bytea hex (`\x...`, its backslash escaped), Connect's Date /
// Time / Timestamp as ISO text in UTC, arrays, maps and structs as compact JSON (for a
// JSONB column).
//
// Bytes the server would reject (invalid UTF-8, a NUL inside text) are passed on as
// they are: the server's error then names the row, which the writer fails on its own.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "connectors/jdbc/row_mapper.hpp"
#include "runtime/convert/json_converter.hpp"

namespace weir::connectors::jdbc {

class CopyTextEncoder {
public:
  CopyTextEncoder();

  /// Appends `column`'s value, escaped, to `out` (no separator). `out` and the
  /// encoder's scratch memory are reused across calls: nothing is allocated once they
  /// have grown, apart from Decimals longer than the small-string buffer.
  void append_value(std::string& out, const Column& column);

  /// Appends `text` escaped for a COPY text field.
  static void append_escaped(std::string& out, std::string_view text);

private:
  runtime::convert::JsonConverter json_;
  std::string scratch_;
};

/// The PostgreSQL type of a column: by schema (SMALLINT for int8/int16, INTEGER,
/// BIGINT, REAL, DOUBLE PRECISION, BOOLEAN, TEXT, BYTEA, NUMERIC for Decimal, DATE,
/// TIME, TIMESTAMP, JSONB for arrays, maps and structs) or, schemaless, by the value's
/// kind (TEXT for a null).
std::string_view postgres_type(const Column& column) noexcept;

} // namespace weir::connectors::jdbc
