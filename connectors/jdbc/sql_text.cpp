#include "connectors/jdbc/sql_text.hpp"

#include <algorithm>
#include <cstdio>

namespace weir::connectors::jdbc {

using runtime::data::Logical;

namespace {

void param(std::string& s, size_t index) {
  s += '?';
  s += std::to_string(index + 1);
}

// `"a", "b"` for columns [first, last).
void names(std::string& s, const Row& row, size_t first, size_t last, bool quote = true) {
  for (size_t i = first; i < last; ++i) {
    if (i != first) s += ", ";
    append_identifier(s, row.columns[i].name, quote);
  }
}

void where_keys(std::string& s, const Row& row) {
  s += " WHERE ";
  for (uint32_t i = 0; i < row.key_count; ++i) {
    if (i != 0) s += " AND ";
    append_quoted(s, row.columns[i].name);
    s += " = ";
    param(s, i);
  }
}

// Proleptic Gregorian date of a day count since 1970-01-01 (H. Hinnant's
// civil_from_days), exact for every int32 day count.
void civil(int64_t days, int64_t& y, unsigned& m, unsigned& d) noexcept {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  auto doe = static_cast<unsigned>(days - era * 146097);
  unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
}

int64_t floor_div(int64_t a, int64_t b) noexcept { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

} // namespace

std::string_view verb(Op op) noexcept {
  switch (op) {
    case Op::Insert: return "INSERT into";
    case Op::Upsert: return "upsert into";
    case Op::Update: return "UPDATE of";
    case Op::Delete: return "DELETE from";
  }
  return "?";
}

void append_quoted(std::string& out, std::string_view identifier) {
  out += '"';
  for (char c : identifier) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string quoted(std::string_view identifier) {
  std::string out;
  append_quoted(out, identifier);
  return out;
}

void append_identifier(std::string& out, std::string_view identifier, bool quote) {
  if (quote)
    append_quoted(out, identifier);
  else
    out += identifier;
}

std::string create_table_sql(std::string_view quoted_table, const Row& row, TypeOf type_of, bool quote,
                             bool if_not_exists) {
  std::string sql = (if_not_exists ? "CREATE TABLE IF NOT EXISTS " : "CREATE TABLE ") + std::string(quoted_table) + " (";
  for (size_t i = 0; i < row.columns.size(); ++i) {
    const Column& c = row.columns[i];
    if (i != 0) sql += ", ";
    append_identifier(sql, c.name, quote);
    if (auto type = type_of(c); !type.empty()) sql.append(" ").append(type);
    if (sql_not_null(c, i < row.key_count)) sql += " NOT NULL";
  }
  if (row.key_count != 0) {
    sql += ", PRIMARY KEY (";
    names(sql, row, 0, row.key_count, quote);
    sql += ")";
  }
  return sql + ")";
}

std::string add_column_sql(std::string_view quoted_table, const Column& column, TypeOf type_of, bool quote) {
  std::string sql = "ALTER TABLE " + std::string(quoted_table) + " ADD COLUMN ";
  append_identifier(sql, column.name, quote);
  if (auto type = type_of(column); !type.empty()) sql.append(" ").append(type);
  return sql;
}

std::string statement_sql(std::string_view quoted_table, Op op, const Row& row) {
  const size_t keys = row.key_count, count = row.columns.size();
  std::string sql;
  switch (op) {
    case Op::Delete:
      sql = "DELETE FROM " + std::string(quoted_table);
      where_keys(sql, row);
      return sql;
    case Op::Update:
      sql = "UPDATE " + std::string(quoted_table) + " SET ";
      for (size_t i = keys; i < count; ++i) {
        if (i != keys) sql += ", ";
        append_quoted(sql, row.columns[i].name);
        sql += " = ";
        param(sql, i);
      }
      where_keys(sql, row);
      return sql;
    case Op::Insert:
    case Op::Upsert:
      break;
  }
  sql = "INSERT INTO " + std::string(quoted_table) + " (";
  names(sql, row, 0, count);
  sql += ") VALUES (";
  for (size_t i = 0; i < count; ++i) {
    if (i != 0) sql += ", ";
    param(sql, i);
  }
  sql += ")";
  if (op != Op::Upsert) return sql;
  sql += " ON CONFLICT (";
  names(sql, row, 0, keys);
  if (keys == count) return sql + ") DO NOTHING";
  sql += ") DO UPDATE SET ";
  for (size_t i = keys; i < count; ++i) {
    if (i != keys) sql += ", ";
    append_quoted(sql, row.columns[i].name);
    sql += " = excluded.";
    append_quoted(sql, row.columns[i].name);
  }
  return sql;
}

void format_time(Logical logical, int64_t value, std::string& out) {
  char buf[64];
  int n = 0;
  int64_t y = 0;
  unsigned m = 0, d = 0;
  if (logical == Logical::Date) {
    civil(value, y, m, d);
    n = std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  } else if (logical == Logical::Time) {
    auto ms = static_cast<long long>(value);
    n = std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld.%03lld", ms / 3600000, ms / 60000 % 60,
                      ms / 1000 % 60, ms % 1000);
  } else {
    int64_t days = floor_div(value, 86400000);
    auto ms = static_cast<long long>(value - days * 86400000);
    civil(days, y, m, d);
    n = std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u %02lld:%02lld:%02lld.%03lld", static_cast<long long>(y),
                      m, d, ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000);
  }
  out.assign(buf, static_cast<size_t>(std::clamp(n, 0, static_cast<int>(sizeof buf) - 1)));
}

} // namespace weir::connectors::jdbc
