// `weir standalone` end to end with the JDBC sink on PostgreSQL (issue 18, "What it
// must show"), against the real broker (WEIR_KAFKA_BOOTSTRAP) and the real server
// (WEIR_POSTGRES_URL; scripts/test.sh starts both). weir runs as a child process; the
// test produces into fresh topics and reads the tables through libpq.
//
//  1. the seed's config (tasks.max=10) on 5 partitions, insert mode without keys,
//     1,000,000 records, kill -9 mid-stream and a restart: exactly 1,000,000 rows, and
//     the 5 idle tasks reported idle;
//  2. upsert by key, the same keys produced twice: one row per key, second values;
//  3. auto.create + auto.evolve on a schema'd topic: PostgreSQL types, a field that
//     appears mid-stream becomes a column;
//  4. delete.enabled: tombstones delete the rows;
//  5. PostgreSQL crashed (pg_ctl -m immediate stop) and started again mid-stream: weir
//     carries on by itself, exactly N rows;
//  6. rejected rows: with errors.tolerance=all in the DLQ with the context headers and
//     the SQLSTATE, every other row written; with none the task FAILED naming the row.
#include "tests/support/kafka_tools.hpp"
#include "tests/support/postgres.hpp"
#include "tests/support/process.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

/// A schemaless JSON user event; amount is (id % 1000) + 0.5.
std::string user_json(size_t id) {
  return R"({"user_id":)" + std::to_string(id) + R"(,"name":"user-)" + std::to_string(id) + R"(","amount":)" +
         std::to_string(id % 1000) + ".5}";
}

/// SQL: rows of `table` whose name or amount is not what user_json(id) says.
std::string wrong_rows(const std::string& table) {
  return "SELECT count(*) FROM " + table + " WHERE name IS DISTINCT FROM 'user-' || user_id "
         "OR amount IS DISTINCT FROM (user_id % 1000) + 0.5";
}

struct Setup {
  TempDir dir{"weir-itest-pg"};
  std::string state = dir / "state.db";
  std::string worker = dir / "worker.properties";
  std::string log = dir / "weir.log";

  /// `restarts`: automatic restarts of a FAILED task (0: it stays FAILED).
  explicit Setup(int restarts = 20) {
    auto w = worker_config(state);
    // A task that fails (the server gone) is restarted soon, and again.
    w["task.restart.max.attempts"] = std::to_string(restarts);
    w["task.restart.backoff.ms"] = "500";
    w["task.restart.backoff.max.ms"] = "2000";
    write_properties(worker, w);
  }
  ~Setup() {
    if (current_test_failing()) dir.keep();
  }

  std::string connector(const std::string& name, std::map<std::string, std::string> config) {
    config["name"] = name;
    auto path = dir / (name + ".properties");
    write_properties(path, config);
    return path;
  }

  /// The seed's configuration, on the test server.
  static std::map<std::string, std::string> pg_sink(const std::string& topic, const std::string& table,
                                                    int tasks_max) {
    auto c = postgres_sink_keys();
    c.insert({{"connector.class", "io.confluent.connect.jdbc.JdbcSinkConnector"},
              {"tasks.max", std::to_string(tasks_max)},
              {"topics", topic},
              {"table.name.format", table},
              {"insert.mode", "upsert"},
              {"pk.mode", "record_value"},
              {"pk.fields", "user_id"},
              {"auto.create", "true"}});
    return c;
  }
};

/// A table name PostgreSQL takes unquoted: lower case, no dashes.
std::string table_name(const std::string& prefix) {
  std::string t = unique_name(prefix);
  for (auto& c : t)
    if (c == '-' || c == '.') c = '_';
  return t;
}

/// Rows in `table` (-1 while it does not exist).
int64_t row_count(const std::string& table) {
  Postgres pg;
  return pg.scalar("SELECT count(*) FROM " + table);
}

/// Waits until `table` has at least `n` rows; fails the test if weir ends first.
bool wait_for_rows(const std::string& table, int64_t n, std::chrono::seconds timeout, ChildProcess& weir) {
  bool done = wait_until(timeout, 500ms, [&] { return !weir.running() || row_count(table) >= n; });
  BOOST_REQUIRE_MESSAGE(weir.running(), "weir standalone ended early: "
                                            << (weir.status() ? weir.status()->describe() : "") << "\n"
                                            << tail_lines(weir.output()));
  return done;
}

/// Sum over partitions of the next offsets stored for `connector` with the rows.
int64_t stored_offsets_total(const std::string& connector) {
  Postgres pg;
  return pg.scalar("SELECT sum(next_offset) FROM __weir_sink_offsets WHERE connector = '" + connector + "'");
}

/// Runs scripts/postgres.sh COMMAND (crash, resume) on the test server.
void postgres_script(const std::string& command) {
  const char* script = std::getenv("WEIR_POSTGRES_SCRIPT");
  BOOST_REQUIRE_MESSAGE(script && *script, "WEIR_POSTGRES_SCRIPT is not set (meson test sets it)");
  std::string cmd = std::string(script) + " " + command + " >&2";
  BOOST_REQUIRE_MESSAGE(std::system(cmd.c_str()) == 0, cmd << " failed");
}

/// Crashes the server; resumes it when the scope ends, whatever happens in between.
struct ServerDown {
  ServerDown() { postgres_script("crash"); }
  ~ServerDown() { resume(); }
  void resume() {
    if (down) postgres_script("resume");
    down = false;
  }
  bool down = true;
};

} // namespace

BOOST_AUTO_TEST_SUITE(standalone_postgres)

// Item 1: tasks.max=10 on 5 partitions, plain inserts without keys, kill -9 mid-stream
// and a restart: exactly n rows (only the offsets stored with the rows prevent
// duplicates), and 5 tasks idle and saying so.
BOOST_AUTO_TEST_CASE(ten_tasks_kill_9_and_restart_exactly_one_million_rows_five_idle) {
  const int64_t n = 1000000;
  Setup s;
  auto topic = unique_name("weir-itest-pg-1m");
  auto name = unique_name("pg-1m");
  auto table = table_name("pg_events");
  create_topic(topic, 5);
  produce(topic, static_cast<size_t>(n), [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 5), std::to_string(i), user_json(i)};
  }, 5000);
  auto config = Setup::pg_sink(topic, table, 10);
  config["insert.mode"] = "insert";
  config["pk.mode"] = "none";
  config.erase("pk.fields");
  auto connector = s.connector(name, config);

  auto weir = start_standalone(s.worker, {connector}, s.log);
  auto t0 = Clock::now();
  kill_9_when(*weir, 180s, [&] { return row_count(table) >= n / 4; }, "a quarter of the rows");
  auto before = row_count(table);
  BOOST_TEST_MESSAGE("killed -9 with " << before << " of " << n << " rows, " << seconds_since(t0) << " s in");
  BOOST_REQUIRE_MESSAGE(before < n, "everything was written before the kill");

  weir = start_standalone(s.worker, {connector}, s.log);
  t0 = Clock::now();
  bool done = wait_for_rows(table, n, 300s, *weir);
  BOOST_REQUIRE_MESSAGE(done, "after the restart: " << row_count(table) << " rows of " << n);
  BOOST_TEST_MESSAGE("the restart wrote the remaining " << n - before << " rows in " << seconds_since(t0) << " s");

  // Status: 10 tasks, 5 idle (RUNNING, with the idle note), 5 with partitions.
  for (const auto& t : wait_for_idle_tasks(s.state, name, 10, 5, 30s)) BOOST_TEST(t.state == "RUNNING", "task " << t.task << ": " << t.trace);
  std::this_thread::sleep_for(2s); // a replay, if any, would add rows now
  stop_cleanly(*weir);

  Postgres pg;
  auto rows = pg.scalar("SELECT count(*) FROM " + table);
  auto ids = pg.scalar("SELECT count(DISTINCT user_id) FROM " + table);
  BOOST_TEST_MESSAGE(rows << " rows, " << ids << " distinct ids, duplicates " << rows - ids);
  BOOST_TEST(rows == n);
  BOOST_TEST(ids == n);
  BOOST_TEST(pg.scalar("SELECT min(user_id) FROM " + table) == 0);
  BOOST_TEST(pg.scalar("SELECT max(user_id) FROM " + table) == n - 1);
  BOOST_TEST(pg.scalar(wrong_rows(table)) == 0);
  BOOST_TEST(stored_offsets_total(name) == n);
}

// Item 2: the same keys twice with new values: one row per key, the second values.
BOOST_AUTO_TEST_CASE(upsert_by_key_keeps_one_row_per_key_with_the_second_values) {
  const size_t keys = 20000;
  Setup s;
  auto topic = unique_name("weir-itest-pg-upsert");
  auto name = unique_name("pg-upsert");
  auto table = table_name("pg_upsert");
  create_topic(topic, 4);
  auto value = [](size_t id, const std::string& round) {
    return R"({"user_id":)" + std::to_string(id) + R"(,"name":")" + round + "-" + std::to_string(id) + R"("})";
  };
  produce(topic, 2 * keys, [&](size_t i) {
    size_t id = i % keys;
    return OutRecord{static_cast<int32_t>(id % 4), std::to_string(id), value(id, i < keys ? "first" : "second")};
  });
  auto weir = start_standalone(s.worker, {s.connector(name, Setup::pg_sink(topic, table, 4))}, s.log);
  bool done = wait_until(120s, 500ms, [&] { return !weir->running() || stored_offsets_total(name) >= static_cast<int64_t>(2 * keys); });
  BOOST_REQUIRE_MESSAGE(done, "offsets stored: " << stored_offsets_total(name) << "\n" << tail_lines(weir->output()));
  stop_cleanly(*weir);
  Postgres pg;
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table) == static_cast<int64_t>(keys));
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table + " WHERE name <> 'second-' || user_id") == 0);
}

// Item 3: auto.create types from a schema'd topic, and auto.evolve: a field that
// appears mid-stream becomes a column.
BOOST_AUTO_TEST_CASE(auto_create_types_and_auto_evolve_on_a_schemad_topic) {
  Setup s;
  auto topic = unique_name("weir-itest-pg-schema");
  auto name = unique_name("pg-schema");
  auto table = table_name("pg_typed");
  create_topic(topic, 1);
  const std::string fields =
      R"({"field":"user_id","type":"int64","optional":false},)"
      R"({"field":"amount","type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},)"
      R"({"field":"at","type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1},)"
      R"({"field":"blob","type":"bytes","optional":true})";
  auto record = [&](size_t i) {
    bool late = i >= 50; // the `email` field appears with record 50
    std::string schema = R"({"type":"struct","name":"event","optional":false,"fields":[)" + fields +
                         (late ? R"(,{"field":"email","type":"string","optional":true})" : "") + "]}";
    // amount 123.45 (unscaled 12345 = 0x3039, "MDk="), at 2024-01-01 00:00:00.123 UTC
    std::string payload = R"({"user_id":)" + std::to_string(i) +
                          R"(,"amount":"MDk=","at":1704067200123,"blob":"AAEC/w==")" +
                          (late ? R"(,"email":"u)" + std::to_string(i) + R"(@x")" : "") + "}";
    return R"({"schema":)" + schema + R"(,"payload":)" + payload + "}";
  };
  produce(topic, 100, [&](size_t i) { return OutRecord{0, std::to_string(i), record(i)}; });
  auto config = Setup::pg_sink(topic, table, 1);
  config["auto.evolve"] = "true";
  config["value.converter"] = "org.apache.kafka.connect.json.JsonConverter";
  config["value.converter.schemas.enable"] = "true";
  auto weir = start_standalone(s.worker, {s.connector(name, config)}, s.log);
  bool done = wait_until(90s, 500ms, [&] { return !weir->running() || stored_offsets_total(name) >= 100; });
  BOOST_REQUIRE_MESSAGE(done, tail_lines(weir->output()));
  stop_cleanly(*weir);
  Postgres pg;
  BOOST_TEST(pg.rows("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = '" + table +
                     "' ORDER BY ordinal_position") ==
             "user_id|bigint;amount|numeric;at|timestamp without time zone;blob|bytea;email|text");
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table) == 100);
  BOOST_TEST(pg.rows("SELECT amount, at, encode(blob, 'hex'), email FROM " + table + " WHERE user_id IN (49, 50) "
                     "ORDER BY user_id") ==
             "123.45|2024-01-01 00:00:00.123|000102ff|NULL;123.45|2024-01-01 00:00:00.123|000102ff|u50@x");
}

// Item 4: delete.enabled with tombstones deletes the rows.
BOOST_AUTO_TEST_CASE(tombstones_delete_the_rows) {
  const size_t keys = 1000;
  Setup s;
  auto topic = unique_name("weir-itest-pg-delete");
  auto name = unique_name("pg-delete");
  auto table = table_name("pg_deleted");
  create_topic(topic, 2);
  // Keys 0..999, then a tombstone for every even key.
  produce(topic, keys + keys / 2, [&](size_t i) {
    if (i < keys) return OutRecord{static_cast<int32_t>(i % 2), R"({"user_id":)" + std::to_string(i) + "}", user_json(i)};
    size_t id = (i - keys) * 2;
    return OutRecord{static_cast<int32_t>(id % 2), R"({"user_id":)" + std::to_string(id) + "}", std::nullopt};
  });
  auto config = Setup::pg_sink(topic, table, 2);
  config["pk.mode"] = "record_key";
  config["delete.enabled"] = "true";
  config["key.converter"] = "org.apache.kafka.connect.json.JsonConverter";
  config["key.converter.schemas.enable"] = "false";
  auto weir = start_standalone(s.worker, {s.connector(name, config)}, s.log);
  bool done = wait_until(90s, 500ms, [&] {
    return !weir->running() || stored_offsets_total(name) >= static_cast<int64_t>(keys + keys / 2);
  });
  BOOST_REQUIRE_MESSAGE(done, tail_lines(weir->output()));
  stop_cleanly(*weir);
  Postgres pg;
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table) == static_cast<int64_t>(keys / 2));
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table + " WHERE user_id % 2 = 0") == 0);
  BOOST_TEST(pg.scalar(wrong_rows(table)) == 0);
}

// Item 5: the server crashes (immediate stop) and comes back mid-stream; weir carries
// on by itself (the batch is retried, the task restarted if it failed meanwhile) and
// the table ends with exactly n rows.
BOOST_AUTO_TEST_CASE(postgres_crash_and_restart_mid_stream_exactly_n_rows) {
  const int64_t n = 300000;
  Setup s;
  auto topic = unique_name("weir-itest-pg-crash");
  auto name = unique_name("pg-crash");
  auto table = table_name("pg_crash");
  create_topic(topic, 5);
  produce(topic, static_cast<size_t>(n), [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 5), std::to_string(i), user_json(i)};
  }, 5000);
  auto config = Setup::pg_sink(topic, table, 5);
  config["insert.mode"] = "insert";
  config["pk.mode"] = "none";
  config.erase("pk.fields");
  config["errors.retry.timeout"] = "60000";
  config["errors.retry.delay.max.ms"] = "1000";
  config["connection.attempts"] = "5";
  config["connection.backoff.ms"] = "500";
  auto weir = start_standalone(s.worker, {s.connector(name, config)}, s.log);
  bool mid = wait_until(180s, 50ms, [&] { return !weir->running() || row_count(table) >= n / 4; });
  BOOST_REQUIRE_MESSAGE(mid, "the table did not reach a quarter of the records: " << tail_lines(weir->output()));
  postgres_script("crash");
  std::this_thread::sleep_for(3s); // weir's writes fail meanwhile
  postgres_script("resume");
  auto at_resume = row_count(table);
  BOOST_TEST_MESSAGE(at_resume << " of " << n << " rows when the server came back");
  bool done = wait_for_rows(table, n, 240s, *weir);
  BOOST_REQUIRE_MESSAGE(done, "after the server came back: " << row_count(table) << " rows of " << n << "\n"
                                                             << tail_lines(weir->output()));
  std::this_thread::sleep_for(2s);
  auto lines = progress_lines(weir->output(), name);
  stop_cleanly(*weir);
  Postgres pg;
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table) == n);
  BOOST_TEST(pg.scalar("SELECT count(DISTINCT user_id) FROM " + table) == n);
  BOOST_TEST(pg.scalar(wrong_rows(table)) == 0);
  BOOST_TEST(stored_offsets_total(name) == n);
  BOOST_REQUIRE(!lines.empty());
  BOOST_TEST(lines.back().failed == 0, "a task stayed FAILED");
}

// The server is down when weir starts: the task is FAILED with libpq's reason (host,
// port, never the password), restarted by the worker, and writes once it is back.
BOOST_AUTO_TEST_CASE(unreachable_at_start_fails_with_libpqs_reason_then_runs_when_the_server_is_back) {
  const size_t n = 2000;
  Setup s;
  auto topic = unique_name("weir-itest-pg-down");
  auto name = unique_name("pg-down");
  auto table = table_name("pg_down");
  create_topic(topic, 1);
  produce(topic, n, [&](size_t i) { return OutRecord{0, std::to_string(i), user_json(i)}; });
  auto config = Setup::pg_sink(topic, table, 1);
  config["connection.attempts"] = "1";
  const std::string password = config.at("connection.password");
  std::unique_ptr<ChildProcess> weir;
  {
    ServerDown down;
    weir = start_standalone(s.worker, {s.connector(name, config)}, s.log);
    std::vector<TaskStatus> status;
    bool failed = wait_until(60s, 200ms, [&] {
      status = task_statuses(s.state, name);
      return !weir->running() || (status.size() == 1 && status[0].state == "FAILED");
    });
    BOOST_REQUIRE_MESSAGE(failed, "task not FAILED while the server is down\n" << tail_lines(weir->output()));
    BOOST_TEST_MESSAGE("FAILED trace: " << status[0].trace);
    BOOST_TEST(status[0].trace.find("127.0.0.1") != std::string::npos, status[0].trace);
    BOOST_TEST(status[0].trace.find("Connection refused") != std::string::npos, status[0].trace);
    BOOST_TEST(status[0].trace.find(password) == std::string::npos, "the trace shows the password");
    BOOST_TEST(weir->output().find(password) == std::string::npos, "the log shows the password");
  }
  bool done = wait_for_rows(table, static_cast<int64_t>(n), 90s, *weir);
  BOOST_REQUIRE_MESSAGE(done, "after the server came back: " << row_count(table) << " rows of " << n << "\n"
                                                             << tail_lines(weir->output()));
  stop_cleanly(*weir);
  BOOST_TEST(row_count(table) == static_cast<int64_t>(n));
}

// Item 6, tolerance all: rows the table rejects (NOT NULL, a CHECK, a value too big
// for its column) reach the DLQ with the context headers and the SQLSTATE; every
// other row is written.
BOOST_AUTO_TEST_CASE(tolerance_all_sends_rejected_rows_to_the_dlq_with_their_sqlstate) {
  const size_t n = 5000;
  Setup s;
  auto topic = unique_name("weir-itest-pg-dlq-src");
  auto dlq = unique_name("weir-itest-pg-dlq");
  auto name = unique_name("pg-dlq");
  auto table = table_name("pg_dlq");
  create_topic(topic, 2);
  Postgres pg;
  pg.exec("CREATE TABLE " + table + " (user_id BIGINT PRIMARY KEY, name TEXT NOT NULL, "
          "amount DOUBLE PRECISION CHECK (amount >= 0))");
  enum Kind { Good, NullName, Negative, Malformed };
  auto kind = [](size_t i) {
    switch (i % 101) {
      case 17: return Malformed;
      case 53: return Negative;
      case 88: return NullName;
      default: return Good;
    }
  };
  auto value = [&](size_t i) -> std::string {
    auto id = std::to_string(i);
    switch (kind(i)) {
      case Malformed: return R"({"user_id":)" + id + R"(,"name":)";
      case Negative: return R"({"user_id":)" + id + R"(,"name":"user-)" + id + R"(","amount":-1.5})";
      case NullName: return R"({"user_id":)" + id + R"(,"name":null,"amount":)" + std::to_string(i % 1000) + ".5}";
      default: return user_json(i);
    }
  };
  std::map<std::pair<int32_t, int64_t>, size_t> bad;
  for (size_t i = 0; i < n; ++i)
    if (kind(i) != Good) bad[{static_cast<int32_t>(i % 2), static_cast<int64_t>(i / 2)}] = i;
  const int64_t good = static_cast<int64_t>(n - bad.size());
  produce(topic, n, [&](size_t i) { return OutRecord{static_cast<int32_t>(i % 2), std::to_string(i), value(i)}; });
  auto config = Setup::pg_sink(topic, table, 1);
  config["auto.create"] = "false";
  config["errors.tolerance"] = "all";
  config["errors.deadletterqueue.topic.name"] = dlq;
  config["errors.deadletterqueue.topic.replication.factor"] = "1";
  config["errors.deadletterqueue.context.headers.enable"] = "true";
  auto weir = start_standalone(s.worker, {s.connector(name, config)}, s.log);
  bool all_good = wait_for_rows(table, good, 120s, *weir);
  BOOST_REQUIRE_MESSAGE(all_good, "only " << row_count(table) << " of " << good << " rows\n"
                                          << tail_lines(weir->output()));
  auto dead = read_topic(dlq, bad.size(), 60s);
  wait_until(10s, 200ms, [&] { return stored_offsets_total(name) >= static_cast<int64_t>(n); });
  stop_cleanly(*weir);

  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table) == good);
  BOOST_TEST(pg.scalar(wrong_rows(table)) == 0);
  BOOST_TEST(stored_offsets_total(name) == static_cast<int64_t>(n));
  std::set<std::pair<int32_t, int64_t>> seen;
  for (const auto& r : dead) {
    std::pair<int32_t, int64_t> at{std::stoi(r.header("__connect.errors.partition")),
                                   std::stoll(r.header("__connect.errors.offset"))};
    auto it = bad.find(at);
    BOOST_TEST_CONTEXT("DLQ record for partition " << at.first << " offset " << at.second) {
      BOOST_REQUIRE_MESSAGE(it != bad.end(), "not a bad record's position");
      seen.insert(at);
      auto i = it->second;
      BOOST_TEST(r.value.value_or("<null>") == value(i));
      BOOST_TEST(r.header("__connect.errors.topic") == topic);
      BOOST_TEST(r.header("__connect.errors.connector.name") == name);
      auto message = r.header("__connect.errors.exception.message");
      if (kind(i) == Malformed) {
        BOOST_TEST(r.header("__connect.errors.stage") == "VALUE_CONVERTER");
      } else {
        BOOST_TEST(r.header("__connect.errors.stage") == "TASK_PUT");
        BOOST_TEST(r.header("__connect.errors.class.name") == "io.confluent.connect.jdbc.sink.JdbcSinkTask");
        BOOST_TEST(r.header("__connect.errors.exception.class.name") == "org.postgresql.util.PSQLException");
        auto state = kind(i) == Negative ? "SQLSTATE 23514" : "SQLSTATE 23502";
        BOOST_TEST(message.find(state) != std::string::npos, "exception.message: " << message);
        BOOST_TEST(message.find(table) != std::string::npos, "exception.message: " << message);
      }
    }
  }
  BOOST_TEST(seen.size() == bad.size());
  BOOST_TEST(dead.size() == bad.size());
}

// Item 6, tolerance none: the task is FAILED naming the row's problem; nothing past the
// rejected record is written or stored.
BOOST_AUTO_TEST_CASE(tolerance_none_fails_the_task_naming_the_row_and_writes_nothing_past_it) {
  const size_t n = 3000, bad_at = 1700; // one partition: offset == index
  // No automatic restart: a task stopped while it is being restarted and failing again
  // may not drain in time (the worker's matter, not this test's).
  Setup s(0);
  auto topic = unique_name("weir-itest-pg-none");
  auto name = unique_name("pg-none");
  auto table = table_name("pg_none");
  create_topic(topic, 1);
  Postgres pg;
  pg.exec("CREATE TABLE " + table + " (user_id BIGINT PRIMARY KEY, name TEXT NOT NULL, "
          "amount DOUBLE PRECISION CHECK (amount >= 0))");
  produce(topic, n, [&](size_t i) {
    auto v = i == bad_at ? R"({"user_id":)" + std::to_string(i) + R"(,"name":"x","amount":-7.5})" : user_json(i);
    return OutRecord{0, std::to_string(i), v};
  });
  auto config = Setup::pg_sink(topic, table, 1);
  config["auto.create"] = "false";
  auto weir = start_standalone(s.worker, {s.connector(name, config)}, s.log);
  std::vector<TaskStatus> status;
  bool failed = wait_until(90s, 500ms, [&] {
    status = task_statuses(s.state, name);
    return !weir->running() || (status.size() == 1 && status[0].state == "FAILED");
  });
  BOOST_REQUIRE_MESSAGE(failed, "task not FAILED: " << (status.empty() ? "no row" : status[0].state) << "\n"
                                                    << tail_lines(weir->output()));
  BOOST_TEST_MESSAGE("FAILED trace: " << status[0].trace);
  BOOST_TEST(status[0].trace.find("SQLSTATE 23514") != std::string::npos, status[0].trace);
  BOOST_TEST(status[0].trace.find("offset=" + std::to_string(bad_at)) != std::string::npos, status[0].trace);
  std::this_thread::sleep_for(3s);
  BOOST_TEST(pg.scalar("SELECT count(*) FROM " + table + " WHERE user_id >= " + std::to_string(bad_at)) == 0);
  BOOST_TEST(pg.scalar("SELECT max(next_offset) FROM __weir_sink_offsets WHERE connector = '" + name + "'") <=
             static_cast<int64_t>(bad_at));
  stop_cleanly(*weir);
}

BOOST_AUTO_TEST_SUITE_END()
