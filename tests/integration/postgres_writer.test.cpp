// The JDBC sink's PostgreSQL writer against the real server (WEIR_POSTGRES_URL, set by
// scripts/test.sh): every insert.mode and pk.mode, auto.create types, auto.evolve,
// tombstones, replays and zombie writers, rejected rows (found row by row, with their
// SQLSTATE), a lost connection, an unreachable server, and concurrent writers
// deadlocking on each other's keys. Each test writes its own tables and connector name.
#include "connectors/jdbc/postgres_sink_writer.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <thread>

#include "tests/support/jdbc_records.hpp"
#include "tests/support/postgres.hpp"

using namespace weir;
using namespace weir::connectors::jdbc;
using namespace weir::runtime::data;
using namespace weir::testing;

namespace {

using Raw = std::map<std::string, std::string>;

// A fresh table and connector name for each use, unique across runs of the suite.
std::string unique(const std::string& prefix) {
  static std::atomic<int> n{0};
  return prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(n++);
}

JdbcSinkConfig config(Raw raw) {
  for (auto& [k, v] : postgres_sink_keys()) raw.emplace(k, v);
  return JdbcSinkConfig::parse(raw);
}

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

// The records, on topic `topic` (which table.name.format=${topic} makes the table).
std::vector<In> on_topic(std::vector<In> records, const std::string& topic) {
  for (auto& r : records) r.topic = topic;
  return records;
}

} // namespace

BOOST_AUTO_TEST_SUITE(postgres_writer)

BOOST_AUTO_TEST_CASE(insert_modes_by_pk_modes) {
  struct Case {
    Raw raw;
    std::string seed; // SQL run before the writer opens; $T is the table
    std::string select;
    std::string expected;
    size_t failed_in_second;
  };
  const std::string by_id = "SELECT id, name FROM $T ORDER BY id, name";
  const std::string by_coordinates =
      "SELECT __connect_topic, __connect_partition, __connect_offset, id, name FROM $T ORDER BY 3";
  const std::string people_table = "CREATE TABLE $T (id BIGINT PRIMARY KEY, name TEXT);"
                                   "INSERT INTO $T VALUES (1, 'x'), (2, 'y');";
  const std::vector<Case> cases{
      {{{"pk.mode", "none"}}, "", "SELECT id, name FROM $T ORDER BY name", "1|a;2|b;1|c;3|d", 0},
      {{{"pk.mode", "kafka"}}, "", by_coordinates, "t|0|0|1|a;t|0|1|2|b;t|0|2|1|c;t|0|3|3|d", 0},
      {{{"pk.mode", "record_key"}}, "", by_id, "1|a;2|b;3|d", 1},
      {{{"pk.mode", "record_value"}, {"pk.fields", "id"}}, "", by_id, "1|a;2|b;3|d", 1},
      {{{"insert.mode", "upsert"}, {"pk.mode", "record_key"}}, "", by_id, "1|c;2|b;3|d", 0},
      {{{"insert.mode", "upsert"}, {"pk.mode", "record_value"}, {"pk.fields", "id"}}, "", by_id, "1|c;2|b;3|d", 0},
      {{{"insert.mode", "update"}, {"pk.mode", "record_key"}}, people_table, by_id, "1|c;2|b", 0},
      {{{"insert.mode", "update"}, {"pk.mode", "record_value"}, {"pk.fields", "id"}}, people_table, by_id,
       "1|c;2|b", 0},
  };
  Postgres pg;
  for (const auto& c : cases) {
    const std::string table = unique("modes");
    auto sql = [&](std::string s) {
      for (auto at = s.find("$T"); at != std::string::npos; at = s.find("$T")) s.replace(at, 2, table);
      return s;
    };
    BOOST_TEST_CONTEXT("insert.mode=" << (c.raw.contains("insert.mode") ? c.raw.at("insert.mode") : "insert")
                                      << " pk.mode=" << c.raw.at("pk.mode")) {
      if (!c.seed.empty()) pg.exec(sql(c.seed));
      Raw raw = c.raw;
      raw["auto.create"] = "true";
      raw["table.name.format"] = table;
      PostgresSinkWriter writer(config(raw), table, 0);
      auto first = decode(people(0, {{1, "a"}, {2, "b"}}));
      writer.write(first);
      BOOST_TEST(messages(first).empty());
      auto second = decode(people(2, {{1, "c"}, {3, "d"}}));
      writer.write(second);
      BOOST_TEST(second.errors().size() == c.failed_in_second);
      if (c.failed_in_second != 0) {
        const auto& m = second.errors().all()[0].message;
        BOOST_TEST(contains(m, "SQLSTATE 23505"), m);
        BOOST_TEST(contains(m, "duplicate key value violates unique constraint"), m);
        BOOST_TEST(second.errors().all()[0].exception_class == "org.postgresql.util.PSQLException");
        BOOST_TEST((second[0].state == RecordState::Failed));
        BOOST_TEST((second[1].state != RecordState::Failed));
      }
      BOOST_TEST(pg.rows(sql(c.select)) == c.expected);
      BOOST_TEST(pg.rows("SELECT topic, partition, next_offset FROM __weir_sink_offsets WHERE connector = '" + table +
                         "'") == "t|0|4");
    }
  }
}

BOOST_AUTO_TEST_CASE(upsert_keeps_the_last_value_of_a_key_seen_twice_in_one_batch) {
  Postgres pg;
  const std::string table = unique("twice");
  PostgresSinkWriter writer(config({{"auto.create", "true"}, {"insert.mode", "upsert"}, {"pk.mode", "record_key"}}),
                            table, 0);
  auto b = decode(on_topic(people(0, {{1, "a"}, {2, "b"}, {1, "c"}, {1, "d"}, {2, "e"}}), table));
  writer.write(b);
  BOOST_TEST(b.errors().empty());
  BOOST_TEST(pg.rows("SELECT id, name FROM " + table + " ORDER BY id") == "1|d;2|e");
  // And again over batches: the second values win.
  auto again = decode(on_topic(people(5, {{2, "f"}, {3, "g"}}), table));
  writer.write(again);
  BOOST_TEST(pg.rows("SELECT id, name FROM " + table + " ORDER BY id") == "1|d;2|f;3|g");
}

BOOST_AUTO_TEST_CASE(upserts_of_new_keys_copy_straight_into_the_table_and_known_keys_go_through_the_stage) {
  Postgres pg;
  const std::string table = unique("direct");
  PostgresSinkWriter writer(config({{"auto.create", "true"}, {"insert.mode", "upsert"}, {"pk.mode", "record_key"}}),
                            table, 0);
  auto write = [&](int64_t offset, std::vector<std::pair<int, std::string>> rows) {
    auto b = decode(on_topic(people(offset, std::move(rows)), table));
    writer.write(b);
    BOOST_TEST(b.errors().empty());
    return std::pair{writer.stats().upserts_direct, writer.stats().upserts_staged};
  };
  // New keys: one COPY into the table.
  BOOST_TEST((write(0, {{1, "a"}, {2, "b"}}) == std::pair<uint64_t, uint64_t>{1, 0}));
  // Key 2 is there: the COPY is rolled back and the segment staged.
  BOOST_TEST((write(2, {{2, "c"}, {3, "d"}}) == std::pair<uint64_t, uint64_t>{1, 1}));
  // The segment after a conflict is staged without trying; the one after tries again.
  BOOST_TEST((write(4, {{4, "e"}}) == std::pair<uint64_t, uint64_t>{1, 2}));
  BOOST_TEST((write(5, {{5, "f"}}) == std::pair<uint64_t, uint64_t>{2, 2}));
  BOOST_TEST(pg.rows("SELECT id, name FROM " + table + " ORDER BY id") == "1|a;2|c;3|d;4|e;5|f");
  BOOST_TEST(pg.rows("SELECT topic, partition, next_offset FROM __weir_sink_offsets WHERE connector = '" + table +
                     "'") == table + "|0|6");
}

BOOST_AUTO_TEST_CASE(auto_create_gives_postgres_types_and_values_round_trip) {
  Postgres pg;
  const std::string table = unique("types");
  const std::string schema = R"({"type":"struct","name":"row","optional":false,"fields":[
    {"field":"id","type":"int32","optional":false},
    {"field":"amount","type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},
    {"field":"day","type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1},
    {"field":"at","type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1},
    {"field":"t","type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1},
    {"field":"flag","type":"boolean","optional":true},
    {"field":"tiny","type":"int8","optional":true},
    {"field":"big","type":"int64","optional":true},
    {"field":"ratio","type":"double","optional":true},
    {"field":"name","type":"string","optional":true},
    {"field":"data","type":"bytes","optional":true},
    {"field":"tags","type":"array","items":{"type":"string"},"optional":true},
    {"field":"inner","type":"struct","fields":[{"field":"x","type":"int32"}],"optional":true}]})";
  const std::string payload =
      R"({"id":7,"amount":"MDk=","day":19723,"at":1704067200123,"t":3723004,"flag":true,"tiny":-3,)"
      R"("big":9007199254740993,"ratio":0.1,"name":"tab\there \\ \"q\" é","data":"AAEC/w==","tags":["a","b"],)"
      R"("inner":{"x":5}})";
  PostgresSinkWriter writer(config({{"auto.create", "true"}, {"pk.mode", "record_value"}, {"pk.fields", "id"}}),
                            table, 0);
  auto b = decode({{0, std::nullopt, R"({"schema":)" + schema + R"(,"payload":)" + payload + "}", table}}, true);
  writer.write(b);
  BOOST_TEST(messages(b).empty());
  BOOST_TEST(pg.rows("SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = '" +
                     table + "' ORDER BY ordinal_position") ==
             "id|integer|NO;amount|numeric|YES;day|date|NO;at|timestamp without time zone|YES;"
             "t|time without time zone|YES;flag|boolean|YES;tiny|smallint|YES;big|bigint|YES;"
             "ratio|double precision|YES;name|text|YES;data|bytea|YES;tags|jsonb|YES;inner|jsonb|YES");
  BOOST_TEST(pg.rows("SELECT id, amount, day, at, t, flag, tiny, big, ratio, name, encode(data, 'hex'), tags, "
                     "\"inner\" FROM " + table) ==
             "7|123.45|2024-01-01|2024-01-01 00:00:00.123|01:02:03.004|t|-3|9007199254740993|0.1|"
             "tab\there \\ \"q\" é|000102ff|[\"a\", \"b\"]|{\"x\": 5}");
  BOOST_TEST(pg.rows("SELECT constraint_type FROM information_schema.table_constraints WHERE table_name = '" + table +
                     "' AND constraint_type = 'PRIMARY KEY'") == "PRIMARY KEY");
}

// db.timezone: a Timestamp is written as that zone's wall-clock time (as Confluent
// binds it with a Calendar in that zone), for inserts and upserts alike.
BOOST_AUTO_TEST_CASE(db_timezone_writes_timestamps_as_that_zones_wall_clock) {
  Postgres pg;
  const std::string schema = R"({"type":"struct","optional":false,"fields":[
    {"field":"id","type":"int32","optional":false},
    {"field":"at","type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1}]})";
  auto record = [&](int64_t offset, int id, int64_t at, const std::string& topic) {
    return In{offset, R"({"id":)" + std::to_string(id) + "}",
              R"({"schema":)" + schema + R"(,"payload":{"id":)" + std::to_string(id) + R"(,"at":)" +
                  std::to_string(at) + "}}",
              topic};
  };
  for (const std::string mode : {"insert", "upsert"}) {
    BOOST_TEST_CONTEXT("insert.mode=" << mode) {
      const std::string table = unique("zoned");
      PostgresSinkWriter writer(config({{"auto.create", "true"}, {"insert.mode", mode}, {"pk.mode", "record_value"},
                                        {"pk.fields", "id"}, {"db.timezone", "Europe/Paris"}}),
                                table, 0);
      // 2024-01-01 00:00:00.123 UTC (Paris +1) and 2024-07-01 12:00:00 UTC (Paris +2).
      auto b = decode({record(0, 1, 1704067200123, table), record(1, 2, 1719835200000, table)}, true);
      writer.write(b);
      BOOST_TEST(messages(b).empty());
      BOOST_TEST(pg.rows("SELECT id, at FROM " + table + " ORDER BY id") ==
                 "1|2024-01-01 01:00:00.123;2|2024-07-01 14:00:00");
      BOOST_TEST(pg.rows("SELECT data_type FROM information_schema.columns WHERE table_name = '" + table +
                         "' AND column_name = 'at'") == "timestamp without time zone");
    }
  }
}

BOOST_AUTO_TEST_CASE(schemaless_values_and_doubles_keep_full_precision) {
  Postgres pg;
  const std::string table = unique("schemaless");
  PostgresSinkWriter writer(config({{"auto.create", "true"}}), table, 0);
  auto b = decode({{0, std::nullopt, R"({"i":-9223372036854775808,"f":0.30000000000000004,"b":false,"s":"x","n":null,)"
                                     R"("o":{"a":[1,"x"]}})", table}});
  writer.write(b);
  BOOST_TEST(messages(b).empty());
  BOOST_TEST(pg.rows("SELECT data_type FROM information_schema.columns WHERE table_name = '" + table +
                     "' ORDER BY ordinal_position") == "bigint;double precision;boolean;text;text;jsonb");
  BOOST_TEST(pg.rows("SELECT i, f::text, b, s, n, o FROM " + table) ==
             "-9223372036854775808|0.30000000000000004|f|x|NULL|{\"a\": [1, \"x\"]}");
}

BOOST_AUTO_TEST_CASE(auto_evolve_adds_a_field_that_appears_mid_stream) {
  Postgres pg;
  const std::string table = unique("evolve");
  PostgresSinkWriter writer(config({{"auto.create", "true"}, {"auto.evolve", "true"}}), table, 0);
  auto b = decode({{0, std::nullopt, R"({"id":1})", table},
                   {1, std::nullopt, R"({"id":2,"email":"b@x"})", table},
                   {2, std::nullopt, R"({"id":3,"email":"c@x","score":1.5})", table}});
  writer.write(b);
  BOOST_TEST(messages(b).empty());
  BOOST_TEST(pg.rows("SELECT id, email, score FROM " + table + " ORDER BY id") == "1|NULL|NULL;2|b@x|NULL;3|c@x|1.5");
  // Without auto.evolve a new field fails its record, naming the column.
  PostgresSinkWriter strict(config({{"auto.create", "true"}}), table + "_strict", 0);
  auto records = [&] {
    return decode({{0, std::nullopt, R"({"id":1})", table}, {1, std::nullopt, R"({"id":2,"extra":true})", table}},
                  false);
  };
  auto replayed = records();
  writer.write(replayed); // same connector, replays: skipped (and marked dropped, not written)
  BOOST_TEST(writer.stats().skipped == 2u);
  auto s = records();
  strict.write(s);
  BOOST_REQUIRE(s.errors().size() == 1u);
  BOOST_TEST(contains(s.errors().all()[0].message, "has no column \"extra\" and auto-evolution is disabled"));
}

BOOST_AUTO_TEST_CASE(tombstones_delete_rows_when_enabled) {
  Postgres pg;
  const std::string table = unique("tombstones");
  PostgresSinkWriter writer(config({{"auto.create", "true"}, {"insert.mode", "upsert"}, {"pk.mode", "record_key"},
                                    {"delete.enabled", "true"}}),
                            table, 0);
  auto b = decode(on_topic(people(0, {{1, "a"}, {2, "b"}, {3, "c"}}), table));
  writer.write(b);
  auto deletes = decode({{3, R"({"id":1})", std::nullopt, table},
                         {4, R"({"id":4})", R"({"id":4,"name":"d"})", table},
                         {5, R"({"id":3})", std::nullopt, table},
                         {6, R"({"id":3})", R"({"id":3,"name":"again"})", table}});
  writer.write(deletes);
  BOOST_TEST(messages(deletes).empty());
  // Order is kept: 3 is deleted, then written again.
  BOOST_TEST(pg.rows("SELECT id, name FROM " + table + " ORDER BY id") == "2|b;3|again;4|d");
  BOOST_TEST(writer.stats().deleted == 2u);
}

BOOST_AUTO_TEST_CASE(replays_and_a_zombie_writer_are_skipped) {
  Postgres pg;
  const std::string table = unique("zombie");
  Raw raw{{"auto.create", "true"}};
  PostgresSinkWriter live(config(raw), table, 0);
  PostgresSinkWriter zombie(config(raw), table, 1); // the same partition's previous owner
  auto first = decode(on_topic(people(0, {{1, "a"}, {2, "b"}, {3, "c"}}), table));
  live.write(first);
  auto replay = decode(on_topic(people(1, {{2, "b"}, {3, "c"}, {4, "d"}}), table));
  zombie.write(replay);
  BOOST_TEST(zombie.stats().skipped == 2u);
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table) == 4);
  auto offsets = live.stored_offsets();
  BOOST_REQUIRE(offsets.size() == 1u);
  BOOST_TEST(offsets[0].offset == 4);
  // A fresh writer (a restart) reads the same offsets.
  PostgresSinkWriter restarted(config(raw), table, 0);
  BOOST_TEST(restarted.stored_offsets()[0].offset == 4);
}

BOOST_AUTO_TEST_CASE(rejected_rows_fail_alone_with_their_sqlstate) {
  Postgres pg;
  const std::string table = unique("rejected");
  pg.exec("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, name TEXT NOT NULL, n INTEGER)");
  PostgresSinkWriter writer(config({{"pk.mode", "record_value"}, {"pk.fields", "id"}}), table, 0);
  auto b = decode({{0, std::nullopt, R"({"id":1,"name":"a","n":1})", table},
                   {1, std::nullopt, R"({"id":2,"name":null,"n":2})", table},            // NOT NULL
                   {2, std::nullopt, R"({"id":3,"name":"c","n":"three"})", table},       // not an integer
                   {3, std::nullopt, R"({"id":1,"name":"dup","n":4})", table},           // unique violation
                   {4, std::nullopt, R"({"id":5,"name":"nul\u0000byte","n":5})", table}, // NUL in text
                   {5, std::nullopt, R"({"id":6,"name":"f","n":99999999999})", table},   // out of range
                   {6, std::nullopt, R"({"id":7,"name":"g","n":7})", table}});
  writer.write(b);
  auto m = messages(b);
  BOOST_REQUIRE(m.size() == 5u);
  BOOST_TEST(contains(m[0], "SQLSTATE 23502"), m[0]);
  BOOST_TEST(contains(m[0], "\"name\""), m[0]);
  BOOST_TEST(contains(m[1], "SQLSTATE 22P02"), m[1]);
  BOOST_TEST(contains(m[2], "SQLSTATE 23505"), m[2]);
  BOOST_TEST(contains(m[3], "SQLSTATE 22"), m[3]); // 22021 (NUL byte) or 22P05
  BOOST_TEST(contains(m[4], "SQLSTATE 22003"), m[4]);
  for (const auto& e : b.errors().all()) BOOST_TEST(contains(e.message, table), e.message);
  BOOST_TEST(pg.rows("SELECT id, name FROM " + table + " ORDER BY id") == "1|a;7|g");
  BOOST_TEST(pg.scalar("SELECT next_offset FROM __weir_sink_offsets WHERE connector = '" + table + "'") == 7);
}

// The row-by-row pass over a full batch of upserts (each row its own savepoint, the
// staging table reused): every row but the rejected one is written.
BOOST_AUTO_TEST_CASE(one_rejected_row_in_a_large_upsert_batch) {
  Postgres pg;
  const std::string table = unique("large");
  pg.exec("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, name TEXT NOT NULL)");
  PostgresSinkWriter writer(config({{"insert.mode", "upsert"}, {"pk.mode", "record_value"}, {"pk.fields", "id"}}),
                            table, 0);
  std::vector<In> records;
  for (int i = 0; i < 3000; ++i)
    records.push_back({i, std::nullopt,
                       R"({"id":)" + std::to_string(i % 2500) + R"(,"name":)" +
                           (i == 1234 ? std::string("null") : "\"n" + std::to_string(i) + "\"") + "}",
                       table});
  auto b = decode(records);
  auto t0 = std::chrono::steady_clock::now();
  writer.write(b);
  BOOST_TEST_MESSAGE("3,000 upserts row by row: "
                     << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s");
  BOOST_REQUIRE(b.errors().size() == 1u);
  BOOST_TEST((b[1234].state == RecordState::Failed));
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table) == 2499); // id 1234 came only as the rejected row
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table + " WHERE id = 1234") == 0);
  // Ids 0..499 came twice: the second value (i + 2500) won.
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table + " WHERE id < 500 AND name <> 'n' || (id + 2500)") == 0);
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table + " WHERE id >= 500 AND name <> 'n' || id") == 0);
}

BOOST_AUTO_TEST_CASE(stop_mode_commits_the_rows_before_the_rejected_one_and_no_later_offset) {
  Postgres pg;
  const std::string table = unique("stop");
  pg.exec("CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, name TEXT NOT NULL)");
  PostgresSinkWriter writer(config({{"pk.mode", "record_value"}, {"pk.fields", "id"}}), table, 0,
                            PostgresSinkWriter::OnRecordError::Stop);
  auto b = decode({{0, std::nullopt, R"({"id":1,"name":"a"})", table},
                   {1, std::nullopt, R"({"id":2,"name":"b"})", table},
                   {2, std::nullopt, R"({"id":3,"name":null})", table},
                   {3, std::nullopt, R"({"id":4,"name":"d"})", table}});
  writer.write(b);
  BOOST_REQUIRE(b.errors().size() == 1u);
  BOOST_TEST(contains(b.errors().all()[0].message, "SQLSTATE 23502"));
  BOOST_TEST((b[2].state == RecordState::Failed));
  BOOST_TEST((b[3].state == RecordState::Live));
  BOOST_TEST(pg.rows("SELECT id FROM " + table + " ORDER BY id") == "1;2");
  BOOST_TEST(pg.scalar("SELECT next_offset FROM __weir_sink_offsets WHERE connector = '" + table + "'") == 2);
}

BOOST_AUTO_TEST_CASE(a_null_or_missing_primary_key_field_fails_the_record) {
  Postgres pg;
  for (const std::string mode : {"record_value", "record_key"}) {
    BOOST_TEST_CONTEXT("pk.mode=" << mode) {
      const std::string table = unique("nullpk");
      pg.exec("CREATE TABLE " + table + " (id BIGINT, name TEXT)"); // no PRIMARY KEY: NULL would be stored
      PostgresSinkWriter writer(config({{"pk.mode", mode}, {"pk.fields", "id"}}), table, 0);
      auto b = decode({{0, R"({"id":1})", R"({"id":1,"name":"a"})", table},
                       {1, R"({"id":null})", R"({"id":null,"name":"b"})", table},
                       {2, R"({"other":3})", R"({"name":"c"})", table}});
      writer.write(b);
      BOOST_REQUIRE(b.errors().size() == 2u);
      BOOST_TEST(contains(b.errors().all()[0].message, "Primary key field 'id'"), b.errors().all()[0].message);
      BOOST_TEST(contains(b.errors().all()[1].message, "does not contain field: id"), b.errors().all()[1].message);
      BOOST_TEST(pg.rows("SELECT id, name FROM " + table) == "1|a");
    }
  }
}

BOOST_AUTO_TEST_CASE(quote_never_and_schema_qualified_tables) {
  Postgres pg;
  const std::string schema = unique("sch");
  pg.exec("CREATE SCHEMA " + schema);
  PostgresSinkWriter writer(config({{"auto.create", "true"}, {"quote.sql.identifiers", "never"},
                                    {"table.name.format", schema + ".Events_${topic}"}}),
                            schema, 0);
  auto b = decode({{0, std::nullopt, R"({"Id":1,"Name":"a"})", "x"}});
  writer.write(b);
  BOOST_TEST(messages(b).empty());
  // Unquoted names fold to lower case, as PostgreSQL does.
  BOOST_TEST(pg.rows("SELECT id, name FROM " + schema + ".events_x") == "1|a");
  auto more = decode({{1, std::nullopt, R"({"ID":2,"NAME":"b"})", "x"}});
  writer.write(more); // the same columns, other case: no evolution needed
  BOOST_TEST(messages(more).empty());
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + schema + ".events_x") == 2);
}

BOOST_AUTO_TEST_CASE(a_lost_connection_throws_and_the_next_write_reconnects) {
  Postgres pg;
  const std::string table = unique("lost");
  PostgresSinkWriter writer(config({{"auto.create", "true"}, {"connection.backoff.ms", "100"}}), table, 0);
  auto first = decode(on_topic(people(0, {{1, "a"}}), table));
  writer.write(first);
  pg.exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user AND "
          "pid <> pg_backend_pid() AND application_name = 'weir'");
  auto second = decode(on_topic(people(1, {{2, "b"}}), table));
  BOOST_CHECK_EXCEPTION(writer.write(second), std::runtime_error, [](const std::runtime_error& e) {
    BOOST_TEST_MESSAGE("lost: " << e.what());
    return contains(e.what(), "127.0.0.1") && !contains(e.what(), "password");
  });
  BOOST_TEST((second[0].state == RecordState::Live));
  writer.write(second); // the pipeline's retry: a new connection
  BOOST_TEST(pg.rows("SELECT id, name FROM " + table + " ORDER BY id") == "1|a;2|b");
}

BOOST_AUTO_TEST_CASE(an_unreachable_server_fails_with_libpqs_reason_never_the_password) {
  auto c = JdbcSinkConfig::parse({{"connection.url", "jdbc:postgresql://127.0.0.1:1/weir"},
                                  {"connection.user", "weir"},
                                  {"connection.password", "s3cret-pw"},
                                  {"connection.attempts", "2"},
                                  {"connection.backoff.ms", "10"}});
  try {
    PostgresSinkWriter writer(c, "unreachable", 0);
    BOOST_FAIL("connected to port 1");
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    BOOST_TEST_MESSAGE(m);
    BOOST_TEST(contains(m, "after 2 attempt(s)"), m);
    BOOST_TEST(contains(m, "127.0.0.1"), m);
    BOOST_TEST(contains(m, "port 1"), m);
    BOOST_TEST(contains(m, "Connection refused"), m);
    BOOST_TEST(!contains(m, "s3cret-pw"), m);
  }
  // A wrong password: the server's reason, still without the password.
  auto keys = postgres_sink_keys();
  keys["connection.password"] = "wrong-pw";
  keys["connection.attempts"] = "1";
  try {
    PostgresSinkWriter writer(JdbcSinkConfig::parse(keys), "wrong", 0);
    BOOST_FAIL("connected with a wrong password");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(contains(e.what(), "password authentication failed"), e.what());
    BOOST_TEST(!contains(e.what(), "wrong-pw"), e.what());
  }
}

// A deadlock with another session: the writer holds its offset row and waits for a
// row the other session holds, which then waits for the offset row. The server aborts
// the writer's transaction (it waited first, so its deadlock check fires first); the
// writer retries it and the write succeeds.
BOOST_AUTO_TEST_CASE(a_deadlock_is_retried_not_failed) {
  Postgres pg, other;
  const std::string table = unique("deadlocked");
  PostgresSinkWriter writer(config({{"auto.create", "true"}, {"insert.mode", "upsert"}, {"pk.mode", "record_key"}}),
                            table, 0);
  auto seed = decode(on_topic(people(0, {{5, "seed"}}), table));
  writer.write(seed);
  other.exec("BEGIN; UPDATE " + table + " SET name = 'other' WHERE id = 5");
  std::string error;
  std::thread t([&] {
    try {
      auto b = decode(on_topic(people(1, {{5, "writer"}}), table));
      writer.write(b);
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300)); // the writer now waits for row 5
  other.exec("SELECT * FROM __weir_sink_offsets WHERE connector = '" + table + "' FOR UPDATE");
  other.exec("COMMIT");
  t.join();
  BOOST_TEST(error.empty(), error);
  BOOST_TEST(writer.stats().retried >= 1u);
  BOOST_TEST(pg.rows("SELECT name FROM " + table) == "writer");
}

// Four tasks create the same table at once and upsert the same keys in opposite
// orders: no write fails, every key ends written.
BOOST_AUTO_TEST_CASE(concurrent_writers_on_the_same_keys_never_fail) {
  Postgres pg;
  const std::string table = unique("deadlock");
  Raw raw{{"auto.create", "true"}, {"insert.mode", "upsert"}, {"pk.mode", "record_key"},
          {"table.name.format", table}};
  // No table yet: the four race to create it (CREATE TABLE IF NOT EXISTS, a catalog
  // conflict retried).
  constexpr int writers = 4, rounds = 30, keys = 50;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < writers; ++w)
    threads.emplace_back([&, w] {
      try {
        PostgresSinkWriter writer(config(raw), table + "_" + std::to_string(w), w);
        for (int r = 0; r < rounds; ++r) {
          std::vector<std::pair<int, std::string>> rows;
          for (int k = 0; k < keys; ++k) {
            int id = (w % 2 == 0) ? k : keys - 1 - k; // opposite orders
            rows.push_back({id, "w" + std::to_string(w) + "r" + std::to_string(r)});
          }
          auto b = decode(on_topic(people(r * keys, rows), "p" + std::to_string(w)));
          writer.write(b);
          if (!b.errors().empty()) ++failures;
        }
      } catch (const std::exception& e) {
        BOOST_TEST_MESSAGE("writer " << w << ": " << e.what());
        ++failures;
      }
    });
  for (auto& t : threads) t.join();
  BOOST_TEST(failures.load() == 0);
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table) == keys);
}

BOOST_AUTO_TEST_SUITE_END()
