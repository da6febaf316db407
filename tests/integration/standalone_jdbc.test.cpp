// `weir standalone` end to end with the JDBC sink on SQLite against the real broker
// (issue 3, "What it must show"): the weir binary runs as a child process; the test
// produces into fresh topics and reads the SQLite table, the dead-letter topic and
// the consumer group's committed offsets.
//
//  - 1,000,000 JSON records on 5 partitions, upsert with pk.mode=record_value:
//    exactly 1,000,000 rows with the right values (the time it takes is printed);
//  - kill -9 mid-stream and a restart: every record exactly once in the table, with
//    upsert (pk.mode=record_value), and with plain inserts (pk.mode=none), where only
//    the offsets stored with the rows can prevent duplicates;
//  - errors.tolerance=all: malformed JSON and rows the table rejects (CHECK, NOT NULL)
//    go to the dead-letter topic with the context headers, every other row is written;
//  - errors.tolerance=none: a row the table rejects fails the task with the reason,
//    and nothing past it is written to the table or committed;
//  - a stalled sink (the database locked by another connection) while records keep
//    coming: the lag in /metrics and the progress line follows the broker, and
//    "records written" is what the table holds.
#include "tests/support/kafka_tools.hpp"
#include "tests/support/process.hpp"
#include "tests/support/rest_worker.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

/// A schemaless JSON user record; amount is (id % 1000) + 0.5.
std::string user_json(size_t id) {
  return R"({"id":)" + std::to_string(id) + R"(,"name":"user-)" + std::to_string(id)
         + R"(","amount":)" + std::to_string(id % 1000) + ".5}";
}

/// SQL: rows of `table` whose name or amount is not what user_json(id) says.
std::string wrong_rows(const std::string& table) {
  return "SELECT count(*) FROM \"" + table + "\" WHERE name IS NOT 'user-' || id "
         "OR amount IS NOT (id % 1000) + 0.5";
}

struct Setup {
  TempDir dir{"weir-itest-jdbc"};
  std::string state = dir / "state.db";
  std::string worker = dir / "worker.properties";
  std::string log = dir / "weir.log";
  std::string db = dir / "sink.db";

  Setup() { write_properties(worker, worker_config(state)); }
  ~Setup() {
    if (current_test_failing())
      dir.keep();
  }

  std::string connector(const std::string& name, std::map<std::string, std::string> config) {
    config["name"] = name;
    auto path = dir / (name + ".properties");
    write_properties(path, config);
    return path;
  }

  std::map<std::string, std::string> jdbc_sink(const std::string& topic, const std::string& table,
                                               int tasks_max) const {
    return {{"connector.class", "io.confluent.connect.jdbc.JdbcSinkConnector"},
            {"tasks.max", std::to_string(tasks_max)},
            {"topics", topic},
            {"connection.url", "jdbc:sqlite:" + db},
            {"table.name.format", table},
            {"insert.mode", "upsert"},
            {"pk.mode", "record_value"},
            {"pk.fields", "id"},
            {"auto.create", "true"}};
  }
};

/// Rows in `table` (-1 while the table does not exist).
int64_t row_count(const std::string& db, const std::string& table) {
  if (!std::filesystem::exists(db))
    return -1;
  Sqlite sql(db);
  return sql.scalar("SELECT count(*) FROM \"" + table + "\"", -1);
}

/// Waits until `table` has at least `n` rows; fails the test if weir ends first.
bool wait_for_rows(const std::string& db, const std::string& table, int64_t n,
                   std::chrono::seconds timeout, ChildProcess& weir) {
  bool done = wait_until(timeout, 500ms, [&] { return !weir.running() || row_count(db, table) >= n; });
  BOOST_REQUIRE_MESSAGE(weir.running(), "weir standalone ended early: "
                                          << (weir.status() ? weir.status()->describe() : "")
                                          << "\n" << tail_lines(weir.output()));
  return done;
}

/// Sum over partitions of the next offsets stored for `connector` in the sink database.
int64_t stored_offsets_total(const std::string& db, const std::string& connector) {
  Sqlite sql(db);
  return sql.scalar("SELECT sum(next_offset) FROM __weir_sink_offsets WHERE connector = '"
                      + connector + "'",
                    -1);
}

/// The consumer lag /metrics reports for `connector`, summed over its tasks (-1: none).
int64_t metrics_lag(uint16_t port, const std::string& connector) {
  weir::runtime::rest::test::TestClient client{port};
  auto response = client.request("GET", "/metrics", {});
  static const std::regex line(R"re(^weir_consumer_lag_records\{connector="([^"]+)"[^}]*\} (-?[0-9.e+]+)$)re");
  std::istringstream in(response.body);
  std::string text;
  std::smatch m;
  int64_t total = -1;
  while (std::getline(in, text))
    if (std::regex_match(text, m, line) && m[1] == connector)
      total = std::max<int64_t>(total, 0) + static_cast<int64_t>(std::stod(m[2]));
  return total;
}

} // namespace

BOOST_AUTO_TEST_SUITE(standalone_jdbc)

// Issue 3, item 1: 1,000,000 records on 5 partitions -> exactly 1,000,000 rows with
// the right values.
BOOST_AUTO_TEST_CASE(one_million_records_upserted_exactly_once_with_the_right_values) {
  const int64_t n = 1000000;
  Setup s;
  auto topic = unique_name("weir-itest-jdbc-1m");
  auto name = unique_name("jdbc-1m");
  create_topic(topic, 5);
  produce(topic, static_cast<size_t>(n), [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 5), std::to_string(i), user_json(i)};
  }, 5000);

  auto weir = start_standalone(s.worker, {s.connector(name, s.jdbc_sink(topic, "users", 5))}, s.log);
  auto t0 = Clock::now();
  bool all = wait_for_rows(s.db, "users", n, 300s, *weir);
  double secs = seconds_since(t0);
  BOOST_REQUIRE_MESSAGE(all, "only " << row_count(s.db, "users") << " of " << n << " rows after "
                                     << secs << " s\n" << tail_lines(weir->output()));
  BOOST_TEST_MESSAGE("JDBC sink: " << n << " rows in " << secs << " s from the start of weir ("
                                   << static_cast<int64_t>(n / secs) << " rows/s), 5 tasks");
  auto lines = progress_lines(weir->output(), name);
  if (!lines.empty())
    BOOST_TEST_MESSAGE("last progress line: written " << lines.back().written << ", lag "
                                                      << lines.back().lag << ", errors "
                                                      << lines.back().errors);
  stop_cleanly(*weir);

  Sqlite sql(s.db);
  BOOST_TEST(sql.scalar("SELECT count(*) FROM users") == n);
  BOOST_TEST(sql.scalar("SELECT count(DISTINCT id) FROM users") == n);
  BOOST_TEST(sql.scalar("SELECT min(id) FROM users") == 0);
  BOOST_TEST(sql.scalar("SELECT max(id) FROM users") == n - 1);
  BOOST_TEST(sql.scalar(wrong_rows("users")) == 0);
  // Spot checks, value by value.
  for (int64_t id : {int64_t{0}, int64_t{1}, int64_t{4}, int64_t{999}, int64_t{123457}, int64_t{500000}, n - 1}) {
    auto rows = sql.query("SELECT id, name, amount FROM users WHERE id = " + std::to_string(id));
    BOOST_REQUIRE_EQUAL(rows.size(), 1u);
    BOOST_TEST(rows[0][1] == "user-" + std::to_string(id));
    BOOST_TEST(std::stod(rows[0][2]) == static_cast<double>(id % 1000) + 0.5);
  }
  // Column types inferred from schemaless JSON, as documented.
  auto types = sql.query("SELECT name, type, pk FROM pragma_table_info('users') ORDER BY cid");
  std::map<std::string, std::pair<std::string, std::string>> cols;
  for (const auto& r : types)
    cols[r[0]] = {r[1], r[2]};
  BOOST_TEST(cols["id"].first == "INTEGER");
  BOOST_TEST(cols["id"].second == "1");
  BOOST_TEST(cols["name"].first == "TEXT");
  BOOST_TEST(cols["amount"].first == "REAL");
  BOOST_TEST(stored_offsets_total(s.db, name) == n);
}

// Issue 3, item 2 (JDBC): kill -9 mid-stream, restart; the table has every record
// exactly once. Twice, each in its own process and database: upsert keyed by id,
// and plain inserts without a key, where a replayed record would be a duplicate row
// unless the offsets stored with the rows stop it.
BOOST_AUTO_TEST_CASE(kill_9_mid_stream_then_restart_every_row_exactly_once) {
  const int64_t n = 300000;
  Setup s;
  auto topic = unique_name("weir-itest-jdbc-kill");
  create_topic(topic, 5);
  produce(topic, static_cast<size_t>(n), [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 5), std::to_string(i), user_json(i)};
  }, 5000);

  for (const std::string mode : {"upsert", "insert"}) {
    BOOST_TEST_CONTEXT("insert.mode=" << mode) {
      auto name = unique_name("jdbc-kill-" + mode);
      auto db = s.dir / (mode + ".db");
      auto table = "users_" + mode;
      auto config = s.jdbc_sink(topic, table, 5);
      config["connection.url"] = "jdbc:sqlite:" + db;
      if (mode == "insert") {
        config["insert.mode"] = "insert";
        config["pk.mode"] = "none";
        config.erase("pk.fields");
      }
      auto connector = s.connector(name, config);
      auto log = s.dir / (mode + ".log");

      auto weir = start_standalone(s.worker, {connector}, log);
      kill_9_when(*weir, 180s, [&] { return row_count(db, table) >= n / 4; }, "a quarter of the rows");
      auto before = row_count(db, table);
      BOOST_TEST_MESSAGE(mode << ": killed -9 with " << before << " of " << n << " rows");
      BOOST_REQUIRE_MESSAGE(before < n, "everything was written before the kill");

      weir = start_standalone(s.worker, {connector}, log);
      auto t0 = Clock::now();
      bool done = wait_for_rows(db, table, n, 180s, *weir);
      BOOST_REQUIRE_MESSAGE(done, "after the restart: " << row_count(db, table) << " rows of " << n);
      BOOST_TEST_MESSAGE(mode << ": restart wrote the rest in " << seconds_since(t0) << " s");
      std::this_thread::sleep_for(2s); // a replay, if any, would add rows now
      stop_cleanly(*weir);

      Sqlite sql(db);
      auto rows = sql.scalar("SELECT count(*) FROM " + table);
      auto ids = sql.scalar("SELECT count(DISTINCT id) FROM " + table);
      BOOST_TEST_MESSAGE(mode << ": " << rows << " rows, " << ids << " distinct ids, duplicates "
                              << rows - ids);
      BOOST_TEST(rows == n);
      BOOST_TEST(ids == n);
      BOOST_TEST(sql.scalar("SELECT min(id) FROM " + table) == 0);
      BOOST_TEST(sql.scalar("SELECT max(id) FROM " + table) == n - 1);
      BOOST_TEST(sql.scalar(wrong_rows(table)) == 0);
      BOOST_TEST(stored_offsets_total(db, name) == n);
    }
  }
}

// Issue 3, item 3 (errors.tolerance=all, JDBC): malformed JSON (VALUE_CONVERTER) and
// rows the table rejects (TASK_PUT: a CHECK and a NOT NULL constraint) land in the
// dead-letter topic with the context headers; every other row is written.
BOOST_AUTO_TEST_CASE(tolerance_all_sends_malformed_and_rejected_records_to_the_dlq) {
  const size_t n = 5000;
  Setup s;
  auto topic = unique_name("weir-itest-jdbc-dlq-src");
  auto dlq = unique_name("weir-itest-jdbc-dlq");
  auto name = unique_name("jdbc-dlq");
  create_topic(topic, 2);
  {
    // The table exists with constraints the data can violate.
    ::sqlite3* raw = nullptr;
    BOOST_REQUIRE(sqlite3_open(s.db.c_str(), &raw) == SQLITE_OK);
    sqlite3_close(raw);
    Sqlite sql(s.db);
    sql.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
             "amount REAL CHECK (amount >= 0))");
  }
  enum Kind { Good, Malformed, Negative, NullName };
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
    case Malformed: return R"({"id":)" + id + R"(,"name":"user-)" + id + "\",";
    case Negative: return R"({"id":)" + id + R"(,"name":"user-)" + id + R"(","amount":-1.5})";
    case NullName: return R"({"id":)" + id + R"(,"name":null,"amount":)" + std::to_string(i % 1000) + ".5}";
    default: return user_json(i);
    }
  };
  // Record i goes to partition i % 2, at offset i / 2 there.
  std::map<std::pair<int32_t, int64_t>, size_t> bad;
  for (size_t i = 0; i < n; ++i)
    if (kind(i) != Good)
      bad[{static_cast<int32_t>(i % 2), static_cast<int64_t>(i / 2)}] = i;
  const int64_t good = static_cast<int64_t>(n - bad.size());
  produce(topic, n, [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 2), std::to_string(i), value(i)};
  });
  auto config = s.jdbc_sink(topic, "users", 1);
  config["auto.create"] = "false";
  config["errors.tolerance"] = "all";
  config["errors.log.enable"] = "true";
  config["errors.deadletterqueue.topic.name"] = dlq;
  config["errors.deadletterqueue.topic.replication.factor"] = "1";
  config["errors.deadletterqueue.context.headers.enable"] = "true";
  auto weir = start_standalone(s.worker, {s.connector(name, config)}, s.log);
  bool all_good = wait_for_rows(s.db, "users", good, 120s, *weir);
  BOOST_REQUIRE_MESSAGE(all_good, "only " << row_count(s.db, "users") << " of " << good << " rows\n"
                                          << tail_lines(weir->output()));
  auto dead = read_topic(dlq, bad.size(), 60s);
  // The table reached `good` rows; the offsets stored with the last batch cover it all.
  wait_until(10s, 200ms, [&] { return stored_offsets_total(s.db, name) >= static_cast<int64_t>(n); });
  stop_cleanly(*weir);

  Sqlite sql(s.db);
  BOOST_TEST(sql.scalar("SELECT count(*) FROM users") == good);
  BOOST_TEST(sql.scalar(wrong_rows("users")) == 0);
  for (const auto& [at, i] : bad)
    BOOST_TEST(sql.scalar("SELECT count(*) FROM users WHERE id = " + std::to_string(i)) == 0,
               "rejected record " << i << " is in the table");
  BOOST_TEST(stored_offsets_total(s.db, name) == static_cast<int64_t>(n));

  std::map<Kind, size_t> by_kind;
  std::set<std::pair<int32_t, int64_t>> seen;
  for (const auto& r : dead) {
    std::pair<int32_t, int64_t> at{-1, -1};
    try {
      at = {std::stoi(r.header("__connect.errors.partition")), std::stoll(r.header("__connect.errors.offset"))};
    } catch (const std::exception&) {
      BOOST_TEST(false, "DLQ record without numeric partition/offset headers");
      continue;
    }
    auto it = bad.find(at);
    BOOST_TEST_CONTEXT("DLQ record for partition " << at.first << " offset " << at.second) {
      BOOST_REQUIRE_MESSAGE(it != bad.end(), "not a bad record's position");
      auto i = it->second;
      seen.insert(at);
      ++by_kind[kind(i)];
      BOOST_TEST(r.value.value_or("<null>") == value(i));
      BOOST_TEST(r.key.value_or("<null>") == std::to_string(i));
      BOOST_TEST(r.header("__connect.errors.topic") == topic);
      BOOST_TEST(r.header("__connect.errors.connector.name") == name);
      BOOST_TEST(r.header("__connect.errors.task.id") == "0");
      auto message = r.header("__connect.errors.exception.message");
      if (kind(i) == Malformed) {
        BOOST_TEST(r.header("__connect.errors.stage") == "VALUE_CONVERTER");
        BOOST_TEST(r.header("__connect.errors.class.name") == "org.apache.kafka.connect.json.JsonConverter");
        BOOST_TEST(r.header("__connect.errors.exception.class.name")
                   == "org.apache.kafka.connect.errors.DataException");
      } else {
        BOOST_TEST(r.header("__connect.errors.stage") == "TASK_PUT");
        BOOST_TEST(r.header("__connect.errors.class.name") == "io.confluent.connect.jdbc.sink.JdbcSinkTask");
        BOOST_TEST(r.header("__connect.errors.exception.class.name") == "java.sql.SQLException");
        auto reason = kind(i) == Negative ? "CHECK constraint failed" : "NOT NULL constraint failed";
        BOOST_TEST(message.find(reason) != std::string::npos, "exception.message: " << message);
      }
      BOOST_TEST((!message.empty() && message != "<missing>"));
      BOOST_TEST(r.header("__connect.errors.exception.stacktrace") != "<missing>");
    }
  }
  BOOST_TEST_MESSAGE("DLQ: " << dead.size() << " records for " << bad.size() << " bad ones ("
                             << by_kind[Malformed] << " malformed, " << by_kind[Negative]
                             << " CHECK, " << by_kind[NullName] << " NOT NULL)");
  BOOST_TEST(seen.size() == bad.size());
  BOOST_TEST(dead.size() == bad.size(), dead.size() - seen.size() << " duplicate(s) in the DLQ");
}

// Issue 3, item 3 (errors.tolerance=none, JDBC): a row the table rejects fails the
// task with the reason; nothing past it is written to the table, stored with the
// rows, or committed to the consumer group.
BOOST_AUTO_TEST_CASE(tolerance_none_table_rejection_fails_the_task_and_commits_nothing_past_it) {
  const size_t n = 3000, bad_at = 1700; // one partition: offset == index
  Setup s;
  auto topic = unique_name("weir-itest-jdbc-none");
  auto name = unique_name("jdbc-none");
  create_topic(topic, 1);
  {
    ::sqlite3* raw = nullptr;
    BOOST_REQUIRE(sqlite3_open(s.db.c_str(), &raw) == SQLITE_OK);
    sqlite3_close(raw);
    Sqlite sql(s.db);
    sql.exec("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT NOT NULL, "
             "amount REAL CHECK (amount >= 0))");
  }
  produce(topic, n, [&](size_t i) {
    auto v = i == bad_at ? R"({"id":)" + std::to_string(i) + R"(,"name":"user-)" + std::to_string(i)
                             + R"(","amount":-7.5})"
                         : user_json(i);
    return OutRecord{0, std::to_string(i), v};
  });
  auto config = s.jdbc_sink(topic, "users", 1);
  config["auto.create"] = "false";
  auto weir = start_standalone(s.worker, {s.connector(name, config)}, s.log);
  std::vector<TaskStatus> status;
  bool failed = wait_until(90s, 500ms, [&] {
    status = task_statuses(s.state, name);
    return !weir->running() || (status.size() == 1 && status[0].state == "FAILED");
  });
  BOOST_REQUIRE_MESSAGE(weir->running(), "weir standalone ended: " << tail_lines(weir->output()));
  BOOST_REQUIRE_MESSAGE(failed, "task not FAILED; state file: "
                                  << (status.empty() ? "no row" : status[0].state + " " + status[0].trace)
                                  << "\n" << tail_lines(weir->output()));
  BOOST_TEST_MESSAGE("FAILED trace: " << status[0].trace);
  BOOST_TEST(status[0].trace.find("CHECK constraint failed") != std::string::npos, status[0].trace);
  BOOST_TEST(status[0].trace.find("offset=" + std::to_string(bad_at)) != std::string::npos, status[0].trace);
  // Give a wrong write or commit time to happen, then look while weir still runs.
  std::this_thread::sleep_for(3s);
  auto committed = committed_offsets("connect-" + name, topic, 1);
  auto check_table = [&](const std::string& when) {
    Sqlite sql(s.db);
    auto past = sql.scalar("SELECT count(*) FROM users WHERE id > " + std::to_string(bad_at));
    auto before = sql.scalar("SELECT count(*) FROM users WHERE id < " + std::to_string(bad_at));
    auto stored = sql.scalar("SELECT max(next_offset) FROM __weir_sink_offsets WHERE connector = '"
                               + name + "'", -1);
    BOOST_TEST_MESSAGE(when << ": " << before << " rows before the bad record, " << past
                            << " past it; offset stored with the rows " << stored);
    BOOST_TEST(past == 0, when << ": " << past << " rows past the rejected record were written");
    BOOST_TEST(stored <= static_cast<int64_t>(bad_at),
               when << ": the offset stored with the rows (" << stored << ") is past the rejected "
                       "record at " << bad_at << ": a restart would skip it");
    BOOST_TEST(sql.scalar(wrong_rows("users")) == 0);
  };
  check_table("failed task");
  BOOST_TEST_MESSAGE("group committed " << committed[0]);
  BOOST_TEST(committed[0] <= static_cast<int64_t>(bad_at), "group committed " << committed[0]);

  stop_cleanly(*weir);
  auto committed_after = committed_offsets("connect-" + name, topic, 1);
  BOOST_TEST(committed_after[0] <= static_cast<int64_t>(bad_at),
             "after the stop, group committed " << committed_after[0]);
  check_table("after the stop");
}

// Issue 20, item 8: while the sink is stalled (another connection holds the database's
// write lock) records keep coming; the lag must follow the broker's end offsets (it
// stayed at what it was when the consumer paused) and "records written" must be what
// the table holds, not what went through the sink stage (replays it skipped included).
BOOST_AUTO_TEST_CASE(a_stalled_sink_reports_the_true_lag_and_written_matches_the_table) {
  const int64_t before = 20000, during = 100000;
  Setup s;
  auto topic = unique_name("weir-itest-jdbc-stall");
  auto name = unique_name("jdbc-stall");
  auto table = std::string{"stalled"};
  create_topic(topic, 2);
  auto record = [](size_t i) { return OutRecord{static_cast<int32_t>(i % 2), std::to_string(i), user_json(i)}; };
  produce(topic, static_cast<size_t>(before), record);
  auto config = s.jdbc_sink(topic, table, 2);
  config["insert.mode"] = "insert";
  config["pk.mode"] = "none";
  config.erase("pk.fields");
  auto weir = start_standalone(s.worker, {s.connector(name, config)}, s.log);
  auto port = rest_port_of(*weir);
  BOOST_REQUIRE_MESSAGE(port != 0, "no REST port in:\n" << tail_lines(weir->output()));
  BOOST_REQUIRE_MESSAGE(wait_for_rows(s.db, table, before, 120s, *weir),
                        row_count(s.db, table) << " of " << before << " rows");

  {
    Sqlite lock(s.db);
    lock.exec("BEGIN EXCLUSIVE"); // the sink's next write waits for it (busy timeout 30 s)
    produce(topic, static_cast<size_t>(during), [&](size_t i) { return record(before + i); });
    // Lag is end offset minus consumed position; what the task had consumed before
    // the writes stopped is in flight, at most a few batches (2,000 records each).
    const int64_t in_flight = 20000;
    int64_t lag = -1;
    std::vector<Progress> lines;
    bool followed = wait_until(15s, 250ms, [&] {
      lag = metrics_lag(port, name);
      lines = progress_lines(weir->output(), name);
      return lag >= during - in_flight && !lines.empty() && lines.back().lag >= during - in_flight;
    });
    BOOST_TEST_MESSAGE("while stalled: /metrics lag " << lag << ", progress line lag "
                                                      << (lines.empty() ? -1 : lines.back().lag) << ", with "
                                                      << during << " records sent during the stall");
    BOOST_TEST(followed, "/metrics lag " << lag << ", progress line lag " << (lines.empty() ? -1 : lines.back().lag)
                                         << "; expected at least " << during - in_flight);
    BOOST_REQUIRE(!lines.empty());
    BOOST_TEST(lines.back().written <= static_cast<uint64_t>(before),
               "written " << lines.back().written << " while the table held " << before);
    lock.exec("COMMIT");
  }

  const int64_t n = before + during;
  BOOST_REQUIRE_MESSAGE(wait_for_rows(s.db, table, n, 120s, *weir), row_count(s.db, table) << " of " << n << " rows");
  std::vector<Progress> lines;
  bool settled = wait_until(20s, 500ms, [&] {
    lines = progress_lines(weir->output(), name);
    return !lines.empty() && lines.back().lag == 0 && static_cast<int64_t>(lines.back().written) >= n;
  });
  auto rows = row_count(s.db, table);
  BOOST_TEST_MESSAGE("after the stall: " << rows << " rows, progress line: written "
                                         << (lines.empty() ? 0 : lines.back().written) << ", lag "
                                         << (lines.empty() ? -1 : lines.back().lag));
  BOOST_TEST(settled);
  BOOST_TEST(rows == n);
  BOOST_REQUIRE(!lines.empty());
  BOOST_TEST(static_cast<int64_t>(lines.back().written) == rows);
  stop_cleanly(*weir);
}

BOOST_AUTO_TEST_SUITE_END()
