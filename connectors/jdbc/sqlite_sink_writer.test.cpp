#include "connectors/jdbc/sqlite_sink_writer.hpp"

#include <boost/test/unit_test.hpp>
#include <cstdlib>
#include <filesystem>
#include <sqlite3.h>

#include "runtime/convert/converter.hpp"
#include "tests/support/jdbc_records.hpp"

using namespace weir;
using namespace weir::connectors::jdbc;
using namespace weir::runtime::data;
using weir::runtime::kafka::TopicPartitionOffset;
using weir::testing::decode;
using weir::testing::In;
using weir::testing::messages;
using weir::testing::people;

namespace {

using Raw = std::map<std::string, std::string>;

// A database file in a fresh temporary directory, removed afterwards.
struct TempDb {
  std::filesystem::path dir;
  TempDb() {
    char tmpl[] = "/tmp/weir-jdbc-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  ~TempDb() { std::filesystem::remove_all(dir); }
  std::string path() const { return (dir / "sink.db").string(); }

  JdbcSinkConfig config(Raw raw) const {
    raw["connection.url"] = "jdbc:sqlite:" + path();
    return JdbcSinkConfig::parse(raw);
  }

  void exec(const std::string& sql) const {
    sqlite3* db = nullptr;
    BOOST_REQUIRE(sqlite3_open(path().c_str(), &db) == SQLITE_OK);
    char* error = nullptr;
    int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    std::string message = error ? error : "";
    sqlite3_free(error);
    sqlite3_close(db);
    BOOST_REQUIRE_MESSAGE(rc == SQLITE_OK, sql << ": " << message);
  }

  // A query's rows as text: columns joined by '|', rows by ';', NULL as "NULL".
  std::string rows(const std::string& sql) const {
    sqlite3* db = nullptr;
    BOOST_REQUIRE(sqlite3_open(path().c_str(), &db) == SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    std::string out;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK) {
      out = std::string("error: ") + sqlite3_errmsg(db);
    } else {
      while (sqlite3_step(s) == SQLITE_ROW) {
        if (!out.empty()) out += ';';
        for (int i = 0; i < sqlite3_column_count(s); ++i) {
          if (i != 0) out += '|';
          auto* text = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
          out += text ? text : "NULL";
        }
      }
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    return out;
  }
};

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

} // namespace

BOOST_AUTO_TEST_SUITE(jdbc_sink_writer)

BOOST_AUTO_TEST_CASE(insert_modes_by_pk_modes) {
  struct Case {
    Raw raw;
    std::string seed;   // SQL run before the writer opens
    std::string select; // what to compare
    std::string expected;
    size_t failed_in_second; // records the second batch fails
  };
  const std::string by_id = "SELECT id, name FROM t ORDER BY id, rowid";
  const std::string by_coordinates =
      "SELECT __connect_topic, __connect_partition, __connect_offset, id, name FROM t ORDER BY 3";
  const std::string people_table = "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);"
                                   "INSERT INTO t VALUES (1, 'x'), (2, 'y');";
  const std::vector<Case> cases{
      {{{"pk.mode", "none"}}, "", "SELECT id, name FROM t ORDER BY rowid", "1|a;2|b;1|c;3|d", 0},
      {{{"pk.mode", "kafka"}}, "", by_coordinates, "t|0|0|1|a;t|0|1|2|b;t|0|2|1|c;t|0|3|3|d", 0},
      {{{"pk.mode", "record_key"}}, "", by_id, "1|a;2|b;3|d", 1},
      {{{"pk.mode", "record_value"}, {"pk.fields", "id"}}, "", by_id, "1|a;2|b;3|d", 1},
      {{{"insert.mode", "upsert"}, {"pk.mode", "kafka"}}, "", by_coordinates,
       "t|0|0|1|a;t|0|1|2|b;t|0|2|1|c;t|0|3|3|d", 0},
      {{{"insert.mode", "upsert"}, {"pk.mode", "record_key"}}, "", by_id, "1|c;2|b;3|d", 0},
      {{{"insert.mode", "upsert"}, {"pk.mode", "record_value"}, {"pk.fields", "id"}}, "", by_id, "1|c;2|b;3|d", 0},
      {{{"insert.mode", "update"}, {"pk.mode", "record_key"}}, people_table, by_id, "1|c;2|b", 0},
      {{{"insert.mode", "update"}, {"pk.mode", "record_value"}, {"pk.fields", "id"}}, people_table, by_id,
       "1|c;2|b", 0},
      {{{"insert.mode", "update"}, {"pk.mode", "kafka"}},
       "CREATE TABLE t (__connect_topic TEXT, __connect_partition INTEGER, __connect_offset INTEGER, id INTEGER,"
       " name TEXT, PRIMARY KEY (__connect_topic, __connect_partition, __connect_offset));"
       "INSERT INTO t VALUES ('t', 0, 1, 0, 'old');",
       by_coordinates, "t|0|1|2|b", 0},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("insert.mode=" << (c.raw.contains("insert.mode") ? c.raw.at("insert.mode") : "insert")
                                      << " pk.mode=" << c.raw.at("pk.mode")) {
      TempDb db;
      if (!c.seed.empty()) db.exec(c.seed);
      Raw raw = c.raw;
      raw["auto.create"] = "true";
      JdbcSinkWriter writer(db.config(raw), "sink", 0);
      auto first = decode(people(0, {{1, "a"}, {2, "b"}}));
      writer.write(first);
      BOOST_TEST(first.errors().empty());
      auto second = decode(people(2, {{1, "c"}, {3, "d"}}));
      writer.write(second);
      BOOST_TEST(second.errors().size() == c.failed_in_second);
      if (c.failed_in_second != 0) {
        BOOST_TEST(contains(second.errors().all()[0].message, "UNIQUE constraint failed: t.id"),
                   second.errors().all()[0].message);
        BOOST_TEST((second[0].state == RecordState::Failed));
      }
      BOOST_TEST(db.rows(c.select) == c.expected);
      BOOST_TEST(db.rows("SELECT topic, partition, next_offset FROM __weir_sink_offsets") == "t|0|4");
    }
  }
}

BOOST_AUTO_TEST_CASE(schemaless_type_inference) {
  TempDb db;
  JdbcSinkWriter writer(db.config({{"auto.create", "true"}}), "sink", 0);
  auto b = decode({{0, std::nullopt,
                    R"({"i":1,"f":1.5,"b":true,"s":"x","n":null,"o":{"a":1,"b":[1,"x"]},"a":[1,2],"neg":-7})"}});
  writer.write(b);
  BOOST_TEST(b.errors().empty());
  BOOST_TEST(db.rows("SELECT name, type, \"notnull\" FROM pragma_table_info('t')") ==
             "i|INTEGER|0;f|REAL|0;b|INTEGER|0;s|TEXT|0;n||0;o|TEXT|0;a|TEXT|0;neg|INTEGER|0");
  BOOST_TEST(db.rows("SELECT i, typeof(i), f, typeof(f), b, typeof(b), s, n, o, a, neg FROM t") ==
             R"(1|integer|1.5|real|1|integer|x|NULL|{"a":1,"b":[1,"x"]}|[1,2]|-7)");
}

BOOST_AUTO_TEST_CASE(schemaless_values_must_be_maps) {
  TempDb db;
  JdbcSinkWriter writer(db.config({{"auto.create", "true"}}), "sink", 0);
  auto b = decode({{0, std::nullopt, "42"}, {1, std::nullopt, R"(["a"])"}, {2, std::nullopt, R"({"x":1})"}});
  writer.write(b);
  BOOST_REQUIRE(b.errors().size() == 2u);
  BOOST_TEST(contains(b.errors().all()[0].message, "must be a map (a JSON object)"));
  BOOST_TEST(contains(b.errors().all()[0].message, "found: int64"));
  BOOST_TEST(b.errors().all()[0].exception_class == "org.apache.kafka.connect.errors.DataException");
  BOOST_TEST(db.rows("SELECT x FROM t") == "1");
}

BOOST_AUTO_TEST_CASE(schema_struct_with_logical_types) {
  const std::string schema = R"({"type":"struct","name":"row","optional":false,"fields":[
    {"field":"id","type":"int32","optional":false},
    {"field":"amount","type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},
    {"field":"day","type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1},
    {"field":"at","type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1},
    {"field":"t","type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1},
    {"field":"flag","type":"boolean","optional":true},
    {"field":"tiny","type":"int8","optional":true},
    {"field":"ratio","type":"float","optional":true},
    {"field":"name","type":"string","optional":true},
    {"field":"data","type":"bytes","optional":true},
    {"field":"tags","type":"array","items":{"type":"string","optional":false},"optional":true},
    {"field":"inner","type":"struct","fields":[{"field":"x","type":"int32","optional":false}],"optional":true},
    {"field":"level","type":"string","optional":false,"default":"info"}]})";
  auto envelope = [&](const std::string& payload) { return R"({"schema":)" + schema + R"(,"payload":)" + payload + "}"; };
  TempDb db;
  JdbcSinkWriter writer(db.config({{"auto.create", "true"}, {"insert.mode", "upsert"}, {"pk.mode", "record_value"},
                                   {"pk.fields", "id"}}),
                        "sink", 0);
  auto b = decode({{0, std::nullopt,
                    envelope(R"({"id":1,"amount":"MDk=","day":19723,"at":1704067200123,"t":3723004,"flag":true,)"
                             R"("tiny":-5,"ratio":0.5,"name":null,"data":"AQI=","tags":["a","b"],"inner":{"x":7},)"
                             R"("level":null})")},
                   {1, std::nullopt,
                    envelope(R"({"id":2,"amount":"+w==","day":-1,"at":-1,"t":0,"flag":false,"tiny":0,"ratio":null,)"
                             R"("name":"n","data":null,"tags":[],"inner":null,"level":"debug"})")}},
                  true);
  writer.write(b);
  BOOST_TEST(messages(b) == std::vector<std::string>{});
  BOOST_TEST(db.rows("SELECT name, type, \"notnull\", pk FROM pragma_table_info('t')") ==
             "id|INTEGER|1|1;amount|NUMERIC|0|0;day|DATE|1|0;at|TIMESTAMP|0|0;t|TIME|0|0;flag|INTEGER|0|0;"
             "tiny|INTEGER|0|0;ratio|REAL|0|0;name|TEXT|0|0;data|BLOB|0|0;tags|TEXT|0|0;inner|TEXT|0|0;"
             "level|TEXT|0|0");
  BOOST_TEST(db.rows("SELECT id, amount, typeof(amount), day, at, t, flag, tiny, ratio, name, hex(data), tags, inner,"
                     " level FROM t ORDER BY id") ==
             R"(1|123.45|real|2024-01-01|2024-01-01 00:00:00.123|01:02:03.004|1|-5|0.5|NULL|0102|["a","b"]|{"x":7}|info;)"
             R"(2|-0.05|real|1969-12-31|1969-12-31 23:59:59.999|00:00:00.000|0|0|NULL|n||[]|NULL|debug)");
}

BOOST_AUTO_TEST_CASE(missing_table_without_auto_create_fails_the_records) {
  TempDb db;
  JdbcSinkWriter writer(db.config({}), "sink", 3);
  auto b = decode(people(0, {{1, "a"}, {2, "b"}}));
  writer.write(b);
  BOOST_REQUIRE(b.errors().size() == 2u);
  const auto& e = b.errors().all()[0];
  BOOST_TEST(e.message == "Table \"t\" is missing and auto-creation is disabled (auto.create=false)");
  BOOST_TEST(to_string(e.stage) == "TASK_PUT");
  BOOST_TEST(e.class_name == "io.confluent.connect.jdbc.sink.JdbcSinkTask");
  BOOST_TEST(e.exception_class == "io.confluent.connect.jdbc.sink.TableAlterOrCreateException");
  BOOST_TEST(writer.stats().failed == 2u);
  // The records were processed (and failed): their offsets are stored.
  BOOST_TEST(db.rows("SELECT name FROM sqlite_master WHERE name = 't'") == "");
  BOOST_TEST(db.rows("SELECT next_offset FROM __weir_sink_offsets") == "2");
}

BOOST_AUTO_TEST_CASE(auto_evolve_adds_missing_columns) {
  for (bool evolve : {true, false}) {
    BOOST_TEST_CONTEXT("auto.evolve=" << evolve) {
      TempDb db;
      JdbcSinkWriter writer(db.config({{"auto.create", "true"}, {"auto.evolve", evolve ? "true" : "false"}}), "sink", 0);
      auto first = decode({{0, std::nullopt, R"({"id":1})"}});
      writer.write(first);
      auto second = decode({{1, std::nullopt, R"({"id":2,"email":"e@x","score":2.5})"}, {2, std::nullopt, R"({"id":3})"}});
      writer.write(second);
      if (evolve) {
        BOOST_TEST(second.errors().empty());
        BOOST_TEST(db.rows("SELECT name, type FROM pragma_table_info('t')") == "id|INTEGER;email|TEXT;score|REAL");
        BOOST_TEST(db.rows("SELECT id, email, score FROM t ORDER BY id") == "1|NULL|NULL;2|e@x|2.5;3|NULL|NULL");
      } else {
        BOOST_TEST(messages(second) ==
                   std::vector<std::string>{
                       "Table \"t\" has no column \"email\" and auto-evolution is disabled (auto.evolve=false)"});
        BOOST_TEST(db.rows("SELECT id FROM t ORDER BY id") == "1;3");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(tombstones_delete_rows_when_enabled) {
  TempDb db;
  Raw raw{{"auto.create", "true"}, {"insert.mode", "upsert"}, {"pk.mode", "record_key"}, {"delete.enabled", "true"}};
  JdbcSinkWriter writer(db.config(raw), "sink", 0);
  // A tombstone for a table that does not exist yet deletes nothing.
  auto early = decode({{0, R"({"id":1})", std::nullopt}});
  writer.write(early);
  BOOST_TEST(early.errors().empty());
  auto rows = decode(people(1, {{1, "a"}, {2, "b"}, {3, "c"}}));
  writer.write(rows);
  auto deletes = decode({{4, R"({"id":1})", std::nullopt}, {5, R"({"id":9})", std::nullopt},
                         {6, R"({"id":3})", R"({"id":3,"name":"c2"})"}, {7, std::nullopt, std::nullopt}});
  writer.write(deletes);
  BOOST_TEST(messages(deletes) ==
             std::vector<std::string>{"PK mode for table 't' is record_key, but the record key is null"});
  BOOST_TEST(db.rows("SELECT id, name FROM t ORDER BY id") == "2|b;3|c2");
  BOOST_TEST(writer.stats().deleted == 2u); // the early tombstone had no table to delete from

  TempDb db2;
  JdbcSinkWriter no_deletes(db2.config({{"auto.create", "true"}, {"pk.mode", "record_key"}}), "sink", 0);
  auto tombstone = decode({{0, R"({"id":1})", std::nullopt}});
  no_deletes.write(tombstone);
  BOOST_REQUIRE(tombstone.errors().size() == 1u);
  BOOST_TEST(contains(tombstone.errors().all()[0].message, "'delete.enabled=false'"));
}

BOOST_AUTO_TEST_CASE(record_key_primitive_needs_one_pk_field) {
  TempDb db;
  JdbcSinkWriter writer(db.config({{"auto.create", "true"}, {"insert.mode", "upsert"}, {"pk.mode", "record_key"},
                                   {"pk.fields", "code"}}),
                        "sink", 0);
  auto b = decode({{0, R"("a")", R"({"v":1})"}, {1, R"("b")", R"({"v":2})"}, {2, R"("a")", R"({"v":3})"}});
  writer.write(b);
  BOOST_TEST(b.errors().empty());
  BOOST_TEST(db.rows("SELECT code, v FROM t ORDER BY code") == "a|3;b|2");
  BOOST_TEST(db.rows("SELECT name, type, pk FROM pragma_table_info('t')") == "code|TEXT|1;v|INTEGER|0");

  TempDb db2;
  JdbcSinkWriter unnamed(db2.config({{"auto.create", "true"}, {"pk.mode", "record_key"}}), "sink", 0);
  auto c = decode({{0, R"("a")", R"({"v":1})"}});
  unnamed.write(c);
  BOOST_REQUIRE(c.errors().size() == 1u);
  BOOST_TEST(contains(c.errors().all()[0].message, "Need exactly one PK column"));
}

// Issue 20, item 2: a null or missing primary-key field is a bad record, never a row
// under another key (or under NULL, on a table without a PRIMARY KEY).
BOOST_AUTO_TEST_CASE(a_null_or_missing_primary_key_field_fails_the_record) {
  for (const std::string mode : {"record_value", "record_key"}) {
    BOOST_TEST_CONTEXT("pk.mode=" << mode) {
      TempDb db;
      db.exec("CREATE TABLE t (id INTEGER, name TEXT)"); // no PRIMARY KEY: NULL would be stored
      JdbcSinkWriter writer(db.config({{"pk.mode", mode}, {"pk.fields", "id"}}), "sink", 0);
      auto b = decode({{0, R"({"id":1})", R"({"id":1,"name":"a"})"},
                       {1, R"({"id":null})", R"({"id":null,"name":"b"})"},
                       {2, R"({"other":3})", R"({"name":"c"})"}});
      writer.write(b);
      BOOST_REQUIRE(b.errors().size() == 2u);
      BOOST_TEST(contains(b.errors().all()[0].message, "Primary key field 'id' of table 't' is null"),
                 b.errors().all()[0].message);
      BOOST_TEST(contains(b.errors().all()[1].message, "does not contain field: id"), b.errors().all()[1].message);
      BOOST_TEST(db.rows("SELECT id, name FROM t") == "1|a");
    }
  }
}

BOOST_AUTO_TEST_CASE(record_key_struct_fields) {
  const std::string key_schema = R"({"type":"struct","optional":false,"fields":[)"
                                 R"({"field":"region","type":"string","optional":false},)"
                                 R"({"field":"id","type":"int64","optional":false},)"
                                 R"({"field":"extra","type":"string","optional":true}]})";
  auto key = [&](const std::string& payload) { return R"({"schema":)" + key_schema + R"(,"payload":)" + payload + "}"; };
  TempDb db;
  JdbcSinkWriter writer(db.config({{"auto.create", "true"}, {"insert.mode", "upsert"}, {"pk.mode", "record_key"},
                                   {"pk.fields", "region,id"}}),
                        "sink", 0);
  auto b = decode({{0, key(R"({"region":"eu","id":1,"extra":"x"})"), R"({"id":"ignored","v":1})"},
                   {1, key(R"({"region":"us","id":1,"extra":null})"), R"({"v":2})"},
                   {2, key(R"({"region":"eu","id":1,"extra":null})"), R"({"v":3})"}},
                  false, true);
  writer.write(b);
  BOOST_TEST(messages(b) == std::vector<std::string>{});
  // The key's fields win over value fields of the same name; unlisted key fields are not written.
  BOOST_TEST(db.rows("SELECT name, type, pk FROM pragma_table_info('t')") == "region|TEXT|1;id|INTEGER|2;v|INTEGER|0");
  BOOST_TEST(db.rows("SELECT region, id, v FROM t ORDER BY region") == "eu|1|3;us|1|2");
}

BOOST_AUTO_TEST_CASE(upsert_needs_a_unique_key_on_the_pk_columns) {
  TempDb db;
  db.exec("CREATE TABLE t (id INTEGER, name TEXT)");
  JdbcSinkWriter writer(db.config({{"insert.mode", "upsert"}, {"pk.mode", "record_value"}, {"pk.fields", "id"}}),
                        "sink", 0);
  auto b = decode(people(0, {{1, "a"}}));
  writer.write(b);
  BOOST_REQUIRE(b.errors().size() == 1u);
  BOOST_TEST(contains(b.errors().all()[0].message, "ON CONFLICT clause does not match any PRIMARY KEY or UNIQUE"),
             b.errors().all()[0].message);
}

// Upsert semantics that any faster way of writing must keep: records in order, the
// last one per key winning; columns the records lack keep their values (unlike
// INSERT OR REPLACE); a conflict on another unique column fails that record alone.
BOOST_AUTO_TEST_CASE(upsert_is_last_write_wins_and_keeps_other_columns) {
  const Raw upsert_by_id{{"insert.mode", "upsert"}, {"pk.mode", "record_value"}, {"pk.fields", "id"}};
  {
    BOOST_TEST_CONTEXT("a key repeated within a batch and across batches") {
      TempDb db;
      Raw raw = upsert_by_id;
      raw["auto.create"] = "true";
      JdbcSinkWriter writer(db.config(raw), "sink", 0);
      auto first = decode(people(0, {{1, "a"}, {1, "b"}, {2, "c"}, {1, "d"}}));
      writer.write(first);
      auto second = decode(people(4, {{2, "e"}, {3, "f"}, {2, "g"}}));
      writer.write(second);
      BOOST_TEST(first.errors().empty());
      BOOST_TEST(second.errors().empty());
      BOOST_TEST(db.rows("SELECT id, name FROM t ORDER BY id") == "1|d;2|g;3|f");
      BOOST_TEST(writer.stats().written == 7u);
    }
  }
  {
    BOOST_TEST_CONTEXT("a column the records do not have keeps its value") {
      TempDb db;
      db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, note TEXT DEFAULT 'new');"
              "INSERT INTO t VALUES (1, 'x', 'kept')");
      JdbcSinkWriter writer(db.config(upsert_by_id), "sink", 0);
      auto b = decode(people(0, {{1, "a"}, {2, "b"}}));
      writer.write(b);
      BOOST_TEST(b.errors().empty());
      BOOST_TEST(db.rows("SELECT id, name, note FROM t ORDER BY id") == "1|a|kept;2|b|new");
    }
  }
  {
    BOOST_TEST_CONTEXT("a text primary key") {
      TempDb db;
      JdbcSinkWriter writer(db.config({{"insert.mode", "upsert"}, {"pk.mode", "record_value"}, {"pk.fields", "name"},
                                       {"auto.create", "true"}}),
                            "sink", 0);
      auto b = decode(people(0, {{1, "a"}, {2, "a"}, {3, "b"}}));
      writer.write(b);
      BOOST_TEST(b.errors().empty());
      BOOST_TEST(db.rows("SELECT name, id FROM t ORDER BY name") == "a|2;b|3");
    }
  }
  {
    BOOST_TEST_CONTEXT("a conflict on another unique column fails that record alone") {
      TempDb db;
      db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE);"
              "INSERT INTO t VALUES (1, 'x')");
      JdbcSinkWriter writer(db.config(upsert_by_id), "sink", 0, JdbcSinkWriter::OnRecordError::Continue);
      auto b = decode(people(0, {{2, "x"}, {1, "y"}, {3, "x"}, {4, "z"}}));
      writer.write(b);
      // Record 0 finds 'x' taken; record 1 renames row 1, so record 2 may take 'x'.
      BOOST_REQUIRE(messages(b).size() == 1u);
      BOOST_TEST(contains(messages(b)[0], "UNIQUE constraint failed: t.name"), messages(b)[0]);
      BOOST_TEST((b[0].state == RecordState::Failed));
      BOOST_TEST(db.rows("SELECT id, name FROM t ORDER BY id") == "1|y;3|x;4|z");
    }
  }
}

BOOST_AUTO_TEST_CASE(fields_whitelist_keeps_listed_fields_and_the_key) {
  TempDb db;
  JdbcSinkWriter writer(db.config({{"auto.create", "true"}, {"pk.mode", "record_value"}, {"pk.fields", "id"},
                                   {"fields.whitelist", "name,missing"}}),
                        "sink", 0);
  auto b = decode({{0, std::nullopt, R"({"id":1,"name":"a","secret":"x"})"}});
  writer.write(b);
  BOOST_TEST(b.errors().empty());
  BOOST_TEST(db.rows("SELECT name FROM pragma_table_info('t')") == "id;name");
  BOOST_TEST(db.rows("SELECT id, name FROM t") == "1|a");
}

BOOST_AUTO_TEST_CASE(table_name_format_maps_topics_to_tables) {
  TempDb db;
  JdbcSinkWriter writer(db.config({{"auto.create", "true"}, {"table.name.format", "kafka_${topic}"}}), "sink", 0);
  auto b = decode({{0, std::nullopt, R"({"o":1})", "orders", 0},
                   {0, std::nullopt, R"({"u":"x"})", "users", 2},
                   {1, std::nullopt, R"({"o":2})", "orders", 0}});
  writer.write(b);
  BOOST_TEST(b.errors().empty());
  BOOST_TEST(db.rows("SELECT o FROM kafka_orders ORDER BY o") == "1;2");
  BOOST_TEST(db.rows("SELECT u FROM kafka_users") == "x");
  BOOST_TEST((writer.stored_offsets() ==
              std::vector<TopicPartitionOffset>{{"orders", 0, 2}, {"users", 2, 1}}));
}

BOOST_AUTO_TEST_CASE(offsets_follow_the_consumed_topic_when_an_smt_reroutes) {
  TempDb db;
  JdbcSinkWriter writer(db.config({{"auto.create", "true"}}), "sink", 0);
  auto b = decode({{0, std::nullopt, R"({"n":0})", "orders"}, {1, std::nullopt, R"({"n":1})", "orders"}});
  b.view(1).set_topic("archive"); // as RegexRouter would
  writer.write(b);
  BOOST_TEST(db.rows("SELECT n FROM orders") == "0");
  BOOST_TEST(db.rows("SELECT n FROM archive") == "1");
  BOOST_TEST((writer.stored_offsets() == std::vector<TopicPartitionOffset>{{"orders", 0, 2}}));
  auto again = decode({{1, std::nullopt, R"({"n":1})", "orders"}});
  again.view(0).set_topic("archive");
  writer.write(again);
  BOOST_TEST(writer.stats().skipped == 1u);
  BOOST_TEST(db.rows("SELECT count(*) FROM archive") == "1");
}

BOOST_AUTO_TEST_CASE(a_rejected_record_fails_alone) {
  TempDb db;
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER CHECK (age >= 0)) STRICT");
  JdbcSinkWriter writer(db.config({}), "sink", 0);
  auto b = decode({{0, std::nullopt, R"({"id":1,"name":"a","age":1})"},
                   {1, std::nullopt, R"({"id":2,"name":null,"age":1})"},
                   {2, std::nullopt, R"({"id":3,"name":"c","age":-1})"},
                   {3, std::nullopt, R"({"id":4,"name":"d","age":"old"})"},
                   {4, std::nullopt, R"({"id":1,"name":"dup","age":2})"},
                   {5, std::nullopt, R"({"id":5,"name":"e","age":5})"}});
  writer.write(b);
  BOOST_TEST(db.rows("SELECT id, name, age FROM t ORDER BY id") == "1|a|1;5|e|5");
  BOOST_TEST(messages(b) == (std::vector<std::string>{
                                "INSERT into table \"t\" failed: NOT NULL constraint failed: t.name",
                                "INSERT into table \"t\" failed: CHECK constraint failed: age >= 0",
                                "INSERT into table \"t\" failed: cannot store TEXT value in INTEGER column t.age",
                                "INSERT into table \"t\" failed: UNIQUE constraint failed: t.id",
                            }));
  for (uint32_t i = 0; i < b.size(); ++i)
    BOOST_TEST((b[i].state == (i == 0 || i == 5 ? RecordState::Live : RecordState::Failed)));
  BOOST_TEST(b.errors().all()[0].index == 1u);
  BOOST_TEST(b.errors().all()[0].exception_class == "java.sql.SQLException");
  BOOST_TEST(db.rows("SELECT next_offset FROM __weir_sink_offsets") == "6");
}

BOOST_AUTO_TEST_CASE(stop_mode_commits_nothing_from_the_failed_record_on) {
  TempDb db;
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
  JdbcSinkWriter writer(db.config({}), "sink", 0, JdbcSinkWriter::OnRecordError::Stop);
  auto b = decode({{0, std::nullopt, R"({"id":1})"},
                   {0, std::nullopt, R"({"id":7})", "t", 1},
                   {1, std::nullopt, R"({"id":1})"},
                   {2, std::nullopt, R"({"id":2})"},
                   {1, std::nullopt, R"({"id":8})", "t", 1}});
  writer.write(b);
  BOOST_TEST(b.errors().size() == 1u);
  BOOST_TEST((b[2].state == RecordState::Failed));
  BOOST_TEST(b[3].live());
  BOOST_TEST(db.rows("SELECT id FROM t ORDER BY id") == "1;7");
  // The failed record is consumed again on restart (and fails again).
  BOOST_TEST((writer.stored_offsets() == std::vector<TopicPartitionOffset>{{"t", 0, 1}, {"t", 1, 1}}));
}

BOOST_AUTO_TEST_CASE(a_rolled_back_transaction_throws_and_writes_nothing) {
  TempDb db;
  db.exec("CREATE TABLE t (id INTEGER);"
          "CREATE TRIGGER boom BEFORE INSERT ON t WHEN NEW.id = 99 BEGIN SELECT RAISE(ROLLBACK, 'boom'); END;");
  JdbcSinkWriter writer(db.config({}), "sink", 0);
  auto b = decode({{0, std::nullopt, R"({"id":1})"}, {1, std::nullopt, R"({"id":99})"}});
  BOOST_CHECK_EXCEPTION(writer.write(b), std::runtime_error,
                        [](const std::runtime_error& e) { return contains(e.what(), "boom"); });
  BOOST_TEST(db.rows("SELECT count(*) FROM t") == "0");
  BOOST_TEST(writer.stored_offsets().empty());
  BOOST_TEST(writer.stats().written == 0u); // the rolled-back statements do not count
  // The writer recovers for the next batch.
  auto next = decode({{0, std::nullopt, R"({"id":1})"}});
  writer.write(next);
  BOOST_TEST(db.rows("SELECT id FROM t") == "1");
  BOOST_TEST((writer.stored_offsets() == std::vector<TopicPartitionOffset>{{"t", 0, 1}}));
}

BOOST_AUTO_TEST_CASE(replayed_records_are_skipped) {
  TempDb db;
  JdbcSinkWriter writer(db.config({{"auto.create", "true"}}), "sink", 0);
  std::vector<In> five;
  for (int i = 0; i < 5; ++i) five.push_back({i, std::nullopt, R"({"n":)" + std::to_string(i) + "}"});
  auto first = decode(five);
  writer.write(first);
  auto again = decode(five);
  writer.write(again);
  BOOST_TEST(db.rows("SELECT count(*), count(DISTINCT n) FROM t") == "5|5");
  BOOST_TEST(writer.stats().skipped == 5u);
  // Not Live any more: the sink stage counts only Live records as written.
  BOOST_TEST(first.live_count() == 5u);
  BOOST_TEST(again.live_count() == 0u);
  std::vector<In> overlap;
  for (int i = 3; i < 8; ++i) overlap.push_back({i, std::nullopt, R"({"n":)" + std::to_string(i) + "}"});
  auto third = decode(overlap);
  writer.write(third);
  BOOST_TEST(third.live_count() == 3u);
  BOOST_TEST(db.rows("SELECT group_concat(n) FROM (SELECT n FROM t ORDER BY n)") == "0,1,2,3,4,5,6,7");
  BOOST_TEST(db.rows("SELECT connector, topic, partition, next_offset FROM __weir_sink_offsets") == "sink|t|0|8");
}

BOOST_AUTO_TEST_CASE(offsets_count_failed_and_dropped_records) {
  TempDb db;
  JdbcSinkWriter writer(db.config({{"auto.create", "true"}}), "sink", 0);
  auto b = decode({{0, std::nullopt, R"({"n":0})"}, {1, std::nullopt, "{bad json"}, {2, std::nullopt, R"({"n":2})"}});
  b[2].state = RecordState::Dropped;
  writer.write(b);
  BOOST_TEST(db.rows("SELECT n FROM t") == "0");
  BOOST_TEST(db.rows("SELECT next_offset FROM __weir_sink_offsets") == "3");
  BOOST_TEST(writer.stats().failed == 0u); // the converter failed that one, not the writer
}

BOOST_AUTO_TEST_CASE(offsets_survive_writers_and_stay_per_connector) {
  TempDb db;
  auto config = db.config({{"auto.create", "true"}});
  // Task B opens before task A writes: its cache is stale, the database is not.
  JdbcSinkWriter a(config, "sink", 0);
  JdbcSinkWriter b(config, "sink", 1);
  JdbcSinkWriter other(config, "other-sink", 0);
  std::vector<In> first, replay;
  for (int i = 0; i < 10; ++i) first.push_back({i, std::nullopt, R"({"n":)" + std::to_string(i) + "}"});
  for (int i = 5; i < 13; ++i) replay.push_back({i, std::nullopt, R"({"n":)" + std::to_string(i) + "}"});
  auto batch_a = decode(first);
  a.write(batch_a);
  auto batch_b = decode(replay);
  b.write(batch_b);
  BOOST_TEST(b.stats().skipped == 5u);
  BOOST_TEST(db.rows("SELECT count(*), count(DISTINCT n), max(n) FROM t") == "13|13|12");
  BOOST_TEST((a.stored_offsets() == std::vector<TopicPartitionOffset>{{"t", 0, 13}}));
  BOOST_TEST(other.stored_offsets().empty());
  // A connector of its own name has offsets of its own.
  auto batch_other = decode(replay);
  other.write(batch_other);
  BOOST_TEST(db.rows("SELECT count(*) FROM t") == "21");
  // A new writer (a restarted task) starts from what is stored.
  JdbcSinkWriter restarted(config, "sink", 0);
  BOOST_TEST((restarted.stored_offsets() == std::vector<TopicPartitionOffset>{{"t", 0, 13}}));
  auto batch_r = decode(replay);
  restarted.write(batch_r);
  BOOST_TEST(restarted.stats().skipped == replay.size());
}

BOOST_AUTO_TEST_CASE(opens_in_wal_mode_and_fails_loudly) {
  TempDb db;
  { JdbcSinkWriter writer(db.config({}), "sink", 0); }
  BOOST_TEST(db.rows("PRAGMA journal_mode") == "wal");
  JdbcSinkConfig bad = db.config({});
  bad.database_path = (db.dir / "no" / "such" / "dir.db").string();
  BOOST_CHECK_EXCEPTION(JdbcSinkWriter(bad, "sink", 0), std::runtime_error,
                        [](const std::runtime_error& e) { return contains(e.what(), "cannot open"); });
}

BOOST_AUTO_TEST_SUITE_END()
