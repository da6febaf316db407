#include "connectors/jdbc/postgres_sql.hpp"

namespace weir::connectors::jdbc {

namespace {

void column_list(std::string& s, const Row& row, size_t first, size_t last, bool quote, std::string_view prefix = {}) {
  for (size_t i = first; i < last; ++i) {
    if (i != first) s += ", ";
    s += prefix;
    append_identifier(s, row.columns[i].name, quote);
  }
}

// `t.k1 = s.k1 AND ...`
void keys_match(std::string& s, const Row& row, bool quote, std::string_view left, std::string_view right) {
  for (uint32_t i = 0; i < row.key_count; ++i) {
    if (i != 0) s += " AND ";
    s.append(left).append(".");
    append_identifier(s, row.columns[i].name, quote);
    s.append(" = ").append(right).append(".");
    append_identifier(s, row.columns[i].name, quote);
  }
}

// `SELECT DISTINCT ON (keys) cols FROM stage ORDER BY keys, ord DESC`
void last_per_key(std::string& s, std::string_view stage, const Row& row, bool quote) {
  s += "SELECT DISTINCT ON (";
  column_list(s, row, 0, row.key_count, quote);
  s += ") ";
  column_list(s, row, 0, row.columns.size(), quote);
  s.append(" FROM ").append(stage).append(" ORDER BY ");
  column_list(s, row, 0, row.key_count, quote);
  s += ", ";
  append_quoted(s, stage_order_column);
  s += " DESC";
}

} // namespace

std::string postgres_table(std::string_view name, bool quote) {
  std::string out;
  if (auto dot = name.rfind('.'); dot != std::string_view::npos && dot != 0 && dot + 1 != name.size()) {
    append_identifier(out, name.substr(0, dot), quote);
    out += '.';
    name.remove_prefix(dot + 1);
  }
  append_identifier(out, name, quote);
  return out;
}

std::string copy_sql(std::string_view target, const Row& row, bool quote, bool with_order) {
  std::string s = "COPY " + std::string(target) + " (";
  column_list(s, row, 0, row.columns.size(), quote);
  if (with_order) {
    s += ", ";
    append_quoted(s, stage_order_column);
  }
  return s + ") FROM STDIN";
}

std::string stage_sql(std::string_view stage, std::string_view table, const Row& row, bool quote) {
  std::string s = "CREATE TEMP TABLE " + std::string(stage) + " ON COMMIT DELETE ROWS AS SELECT ";
  column_list(s, row, 0, row.columns.size(), quote);
  s += ", 0::bigint AS ";
  append_quoted(s, stage_order_column);
  s.append(" FROM ").append(table).append(" WITH NO DATA");
  return s;
}

std::string apply_sql(Op op, std::string_view table, std::string_view stage, const Row& row, bool quote) {
  const size_t keys = row.key_count, count = row.columns.size();
  std::string s;
  switch (op) {
    case Op::Insert: // COPY goes straight into the table
      return {};
    case Op::Delete:
      s = "DELETE FROM " + std::string(table) + " AS t USING " + std::string(stage) + " AS s WHERE ";
      keys_match(s, row, quote, "t", "s");
      return s;
    case Op::Update:
      if (keys == count) return {};
      s = "UPDATE " + std::string(table) + " AS t SET ";
      for (size_t i = keys; i < count; ++i) {
        if (i != keys) s += ", ";
        append_identifier(s, row.columns[i].name, quote);
        s += " = s.";
        append_identifier(s, row.columns[i].name, quote);
      }
      s += " FROM (";
      last_per_key(s, stage, row, quote);
      s += ") AS s WHERE ";
      keys_match(s, row, quote, "t", "s");
      return s;
    case Op::Upsert:
      break;
  }
  s = "INSERT INTO " + std::string(table) + " AS t (";
  column_list(s, row, 0, count, quote);
  s += ") ";
  last_per_key(s, stage, row, quote);
  s += " ON CONFLICT (";
  column_list(s, row, 0, keys, quote);
  if (keys == count) return s + ") DO NOTHING";
  s += ") DO UPDATE SET ";
  for (size_t i = keys; i < count; ++i) {
    if (i != keys) s += ", ";
    append_identifier(s, row.columns[i].name, quote);
    s += " = EXCLUDED.";
    append_identifier(s, row.columns[i].name, quote);
  }
  return s;
}

} // namespace weir::connectors::jdbc
