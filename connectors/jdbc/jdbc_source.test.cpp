#include "connectors/jdbc/jdbc_source.hpp"

#include <boost/test/unit_test.hpp>

#include <sqlite3.h>

#include <filesystem>
#include <thread>

#include "engine/connector_registry.hpp"
#include "runtime/convert/json_converter.hpp"

using namespace weir;
using namespace weir::engine::pipeline;
using namespace weir::runtime::connector_api;

namespace {

struct Db {
  std::string path = (std::filesystem::temp_directory_path()
                      / ("weir-jdbc-source-" + std::to_string(::getpid()) + ".db"))
                       .string();
  sqlite3* db = nullptr;
  Db() {
    std::filesystem::remove(path);
    sqlite3_open(path.c_str(), &db);
    exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL, "
         "active BOOLEAN, updated TEXT)");
  }
  ~Db() {
    sqlite3_close(db);
    std::filesystem::remove(path);
  }
  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string why = err ? err : "?";
      sqlite3_free(err);
      BOOST_FAIL("sql: " << why);
    }
  }
  std::map<std::string, std::string> config(std::map<std::string, std::string> extra) const {
    std::map<std::string, std::string> c{{"name", "jdbc"},
                                         {"connector.class", "JdbcSourceConnector"},
                                         {"connection.url", "jdbc:sqlite:" + path},
                                         {"topic.prefix", "db-"},
                                         {"poll.interval.ms", "1"}};
    for (auto& [k, v] : extra)
      c[k] = v;
    return c;
  }
};

const engine::SourcePlugin& plugin() {
  const auto* p = engine::find_source("io.confluent.connect.jdbc.JdbcSourceConnector");
  BOOST_REQUIRE(p);
  return *p;
}

/// Polls until it stays idle past poll.interval.ms, decodes every record and renders
/// it with the schemaless JsonConverter.
std::vector<std::string> rows(SourceTask& t, OffsetMap* offsets = nullptr) {
  runtime::convert::JsonConverter json{runtime::convert::JsonConverter::Options{false}};
  std::vector<std::string> out;
  int idle = 0;
  for (int i = 0; i < 100 && idle < 3; ++i) {
    Batch raw;
    SourceRecords recs{raw, 1 << 20, 1000};
    auto status = t.poll(recs);
    if (offsets)
      for (auto& [p, o] : recs.offsets())
        (*offsets)[p] = o;
    runtime::data::DecodedBatch batch{std::move(raw)};
    for (uint32_t r = 0; r < batch.size(); ++r) {
      t.decode(batch, r);
      std::string text;
      json.from_connect(batch[r].value, batch[r].value_schema, text);
      out.push_back(std::string{batch.raw().topic(batch.raw()[r])} + " " + text);
    }
    if (status == SourceTask::Status::idle && batch.size() == 0) {
      ++idle;
      std::this_thread::sleep_for(std::chrono::milliseconds{5}); // > poll.interval.ms
    } else {
      idle = 0;
    }
  }
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(jdbc_source)

BOOST_AUTO_TEST_CASE(incrementing_mode_sends_new_rows_once_and_resumes) {
  Db db;
  db.exec("INSERT INTO users VALUES (1, 'ada', 1.5, 1, '2026-01-01 00:00:00'), "
          "(2, 'grace', NULL, 0, NULL)");
  auto config = db.config({{"mode", "incrementing"}, {"incrementing.column.name", "id"}});
  auto tasks = plugin().task_configs(config, 4);
  BOOST_REQUIRE(tasks.size() == 4u); // one table: task 0 copies it, 1..3 are idle
  for (size_t i = 1; i < 4; ++i) {
    auto idle = plugin().make_task(tasks[i], "jdbc", static_cast<int>(i));
    idle->start({});
    BOOST_TEST(rows(*idle).empty());
    BOOST_TEST(idle->idle_reason() == "no table to copy (tasks.max=4 but the connector copies 1 table(s))");
  }
  auto t = plugin().make_task(tasks[0], "jdbc", 0);
  t->start({});
  OffsetMap offsets;
  auto first = rows(*t, &offsets);
  BOOST_REQUIRE(first.size() == 2u);
  BOOST_TEST(first[0] == R"(db-users {"id":1,"name":"ada","score":1.5,"active":true,"updated":"2026-01-01 00:00:00"})");
  BOOST_TEST(first[1] == R"(db-users {"id":2,"name":"grace","score":null,"active":false,"updated":null})");
  BOOST_TEST(offsets.at(R"({"protocol":"1","table":"users"})") == R"({"incrementing":2})");
  BOOST_TEST(rows(*t).empty());
  db.exec("INSERT INTO users VALUES (3, 'alan', 2, 1, NULL)");
  auto more = rows(*t);
  BOOST_REQUIRE(more.size() == 1u);
  BOOST_TEST(more[0].find("\"alan\"") != std::string::npos);
  // A column added while it runs is not in the schema read at start: ignored.
  db.exec("ALTER TABLE users ADD COLUMN extra TEXT");
  db.exec("INSERT INTO users VALUES (4, 'edsger', 3, 0, NULL, 'x')");
  auto added = rows(*t);
  BOOST_REQUIRE(added.size() == 1u);
  BOOST_TEST(added[0] == R"(db-users {"id":4,"name":"edsger","score":3.0,"active":false,"updated":null})");

  auto resumed = plugin().make_task(tasks[0], "jdbc", 0);
  resumed->start(offsets);
  auto after = rows(*resumed);
  BOOST_REQUIRE(after.size() == 2u);
  BOOST_TEST(after[0].find("\"id\":3") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(timestamp_modes_and_bulk) {
  Db db;
  db.exec("INSERT INTO users VALUES (1, 'a', 0, 1, '2026-01-01 00:00:00'), "
          "(2, 'b', 0, 1, '2026-01-01 00:00:00'), (3, 'c', 0, 1, '2026-01-02 00:00:00')");
  auto ts = plugin().make_task(db.config({{"mode", "timestamp+incrementing"},
                                          {"incrementing.column.name", "id"},
                                          {"timestamp.column.name", "updated"}}),
                               "jdbc", 0);
  ts->start({});
  OffsetMap offsets;
  BOOST_TEST(rows(*ts, &offsets).size() == 3u);
  BOOST_TEST(offsets.begin()->second == R"({"timestamp":1767312000000,"timestamp_nanos":0,"incrementing":3})");
  db.exec("UPDATE users SET updated = '2026-01-03 00:00:00' WHERE id = 1");
  auto changed = rows(*ts);
  BOOST_REQUIRE(changed.size() == 1u); // the modified row comes again
  BOOST_TEST(changed[0].find("\"id\":1") != std::string::npos);

  auto bulk = plugin().make_task(db.config({{"mode", "bulk"}, {"poll.interval.ms", "60000"}}),
                                 "jdbc", 0);
  bulk->start({});
  BOOST_TEST(rows(*bulk).size() == 3u);
}

BOOST_AUTO_TEST_CASE(schemas_follow_the_declared_column_types) {
  Db db;
  db.exec("INSERT INTO users VALUES (1, 'a', 0.5, 1, NULL)");
  auto t = plugin().make_task(db.config({{"mode", "bulk"}}), "jdbc", 0);
  t->start({});
  Batch raw;
  SourceRecords recs{raw, 1 << 20, 10};
  t->poll(recs);
  runtime::data::DecodedBatch batch{std::move(raw)};
  t->decode(batch, 0);
  runtime::convert::JsonConverter json{runtime::convert::JsonConverter::Options{true}};
  std::string text;
  json.from_connect(batch[0].value, batch[0].value_schema, text);
  BOOST_TEST(text.find(R"({"type":"int64","optional":true,"field":"id"})") != std::string::npos);
  BOOST_TEST(text.find(R"({"type":"string","optional":false,"field":"name"})") != std::string::npos);
  BOOST_TEST(text.find(R"({"type":"boolean","optional":true,"field":"active"})") != std::string::npos);
  BOOST_TEST(text.find(R"("name":"users")") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(missing_tables_and_columns_are_named) {
  Db db;
  auto fails_with = [&](std::map<std::string, std::string> extra, const std::string& text) {
    auto configs = plugin().task_configs(db.config(extra), 1);
    try {
      auto t = plugin().make_task(configs[0], "jdbc", 0);
      t->start({});
      BOOST_ERROR("no error for " << text);
    } catch (const std::exception& e) {
      BOOST_TEST_CONTEXT(e.what()) { BOOST_TEST(std::string{e.what()}.find(text) != std::string::npos); }
    }
  };
  fails_with({{"mode", "bulk"}, {"table.whitelist", "orders"}}, "table orders");
  fails_with({{"mode", "incrementing"}, {"incrementing.column.name", "nope"}}, "column nope");
  fails_with({{"mode", "incrementing"}}, "incrementing.column.name");
  auto issues = plugin().validate(db.config({{"mode", "sometimes"}}));
  BOOST_REQUIRE(issues.size() == 1u);
  BOOST_TEST(issues[0].name == "mode");
  issues = plugin().validate(db.config({{"mode", "bulk"}, {"connection.url", "jdbc:mysql://x"}}));
  BOOST_REQUIRE(issues.size() == 1u);
  BOOST_TEST(issues[0].name == "connection.url");
}

BOOST_AUTO_TEST_CASE(tables_are_split_over_tasks_in_contiguous_groups) {
  Db db;
  for (const char* t : {"b", "c", "d", "e"})
    db.exec(std::string{"CREATE TABLE "} + t + " (id INTEGER)");
  // users, b, c, d, e sorted: b, c, d, e, users; 2 tasks: 3 then 2 (groupPartitions).
  auto tasks = plugin().task_configs(db.config({{"mode", "bulk"}}), 2);
  BOOST_REQUIRE(tasks.size() == 2u);
  BOOST_TEST(tasks[0].at("tables") == "b,c,d");
  BOOST_TEST(tasks[1].at("tables") == "e,users");
  BOOST_TEST(!tasks[0].count("task.idle.reason"));
}

BOOST_AUTO_TEST_CASE(offsets_are_confluents_timestamp_and_nanos) {
  using weir::connectors::jdbc::SourceMode;
  // 2024-02-29 12:34:56.789012 UTC: getTime() 1709210096789, getNanos() 789012000.
  weir::connectors::jdbc::SourceOffset o{42, 1709210096789012};
  auto text = weir::connectors::jdbc::offset_json(SourceMode::TimestampIncrementing, o);
  BOOST_TEST(text == R"({"timestamp":1709210096789,"timestamp_nanos":789012000,"incrementing":42})");
  auto back = weir::connectors::jdbc::read_offset(SourceMode::TimestampIncrementing, text, "p");
  BOOST_TEST(back.incrementing == 42);
  BOOST_TEST(back.timestamp_micros == 1709210096789012);
  // Before 1970 the nanos are still the positive fraction of the second.
  weir::connectors::jdbc::SourceOffset early{-1, -1500};
  BOOST_TEST(weir::connectors::jdbc::offset_json(SourceMode::Timestamp, early)
             == R"({"timestamp":-2,"timestamp_nanos":998500000})");
  BOOST_TEST(weir::connectors::jdbc::read_offset(SourceMode::Timestamp, R"({"timestamp":-2,"timestamp_nanos":998500000})", "p")
               .timestamp_micros == -1500);
  // An offset without nanos (an older writer) counts in milliseconds.
  BOOST_TEST(weir::connectors::jdbc::read_offset(SourceMode::Timestamp, R"({"timestamp": 5})", "p").timestamp_micros
             == 5000);
  BOOST_CHECK_THROW(weir::connectors::jdbc::read_offset(SourceMode::Incrementing, R"({"timestamp": 5})", "p"),
                    std::runtime_error);
  BOOST_TEST(weir::connectors::jdbc::offset_json(SourceMode::Bulk, o).empty());
  BOOST_TEST(weir::connectors::jdbc::query_partition() == R"({"query":"query"})");
}

BOOST_AUTO_TEST_SUITE_END()
