#include "connectors/jdbc/sql_text.hpp"

#include <boost/test/unit_test.hpp>

using namespace weir::connectors::jdbc;
using namespace weir::runtime::data;

namespace {

// A row of columns named `names`, the first `keys` of them key columns.
Row row_of(std::vector<std::string_view> names, uint32_t keys) {
  Row row;
  for (auto n : names) row.columns.push_back({n, Value::int64(1), schemas::int64().get()});
  row.key_count = keys;
  return row;
}

} // namespace

BOOST_AUTO_TEST_SUITE(jdbc_sql_text)

BOOST_AUTO_TEST_CASE(identifiers_are_always_quoted) {
  BOOST_TEST(quoted("t") == "\"t\"");
  BOOST_TEST(quoted("a\"b") == "\"a\"\"b\"");
  BOOST_TEST(quoted("user-events.v1") == "\"user-events.v1\"");
}

BOOST_AUTO_TEST_CASE(statements_by_operation) {
  struct Case {
    Op op;
    Row row;
    std::string sql;
  };
  const std::vector<Case> cases{
      {Op::Insert, row_of({"a", "b"}, 0), R"(INSERT INTO "t" ("a", "b") VALUES (?1, ?2))"},
      {Op::Upsert, row_of({"k", "a", "b"}, 1),
       R"(INSERT INTO "t" ("k", "a", "b") VALUES (?1, ?2, ?3) ON CONFLICT ("k") DO UPDATE SET "a" = excluded."a", "b" = excluded."b")"},
      {Op::Upsert, row_of({"k1", "k2"}, 2), R"(INSERT INTO "t" ("k1", "k2") VALUES (?1, ?2) ON CONFLICT ("k1", "k2") DO NOTHING)"},
      {Op::Update, row_of({"k1", "k2", "a"}, 2), R"(UPDATE "t" SET "a" = ?3 WHERE "k1" = ?1 AND "k2" = ?2)"},
      {Op::Delete, row_of({"k"}, 1), R"(DELETE FROM "t" WHERE "k" = ?1)"},
  };
  for (const auto& c : cases) BOOST_TEST(statement_sql("\"t\"", c.op, c.row) == c.sql);
}

BOOST_AUTO_TEST_CASE(ddl_from_a_row) {
  Row row;
  row.columns = {{"id", Value::int64(1), schemas::int64().get()},
                 {"name", Value::string("x"), schemas::optional_string().get()},
                 {"n", Value(), nullptr}};
  row.key_count = 1;
  BOOST_TEST(create_table_sql("\"t\"", row) ==
             R"(CREATE TABLE "t" ("id" INTEGER NOT NULL, "name" TEXT, "n", PRIMARY KEY ("id")))");
  row.key_count = 0;
  BOOST_TEST(create_table_sql("\"t\"", row) == R"(CREATE TABLE "t" ("id" INTEGER NOT NULL, "name" TEXT, "n"))");
  BOOST_TEST(add_column_sql("\"t\"", row.columns[1]) == R"(ALTER TABLE "t" ADD COLUMN "name" TEXT)");
}

BOOST_AUTO_TEST_CASE(time_types_as_utc_text) {
  struct Case {
    Logical logical;
    int64_t value;
    std::string text;
  };
  const std::vector<Case> cases{
      {Logical::Date, 0, "1970-01-01"},
      {Logical::Date, -1, "1969-12-31"},
      {Logical::Date, 11016, "2000-02-29"},
      {Logical::Date, 19723, "2024-01-01"},
      {Logical::Date, -719528, "0000-01-01"},
      {Logical::Time, 0, "00:00:00.000"},
      {Logical::Time, 86399999, "23:59:59.999"},
      {Logical::Timestamp, 0, "1970-01-01 00:00:00.000"},
      {Logical::Timestamp, -1, "1969-12-31 23:59:59.999"},
      {Logical::Timestamp, 951782400000, "2000-02-29 00:00:00.000"},
      {Logical::Timestamp, 1704067200123, "2024-01-01 00:00:00.123"},
      {Logical::Timestamp, 253402300799999, "9999-12-31 23:59:59.999"},
  };
  std::string out = "previous content";
  for (const auto& c : cases) {
    format_time(c.logical, c.value, out);
    BOOST_TEST(out == c.text);
  }
}

BOOST_AUTO_TEST_SUITE_END()
