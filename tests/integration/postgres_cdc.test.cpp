// The PostgresConnector (Debezium's change data capture over logical replication,
// issue 24) end to end: `weir standalone` as a child process, the real broker
// (WEIR_KAFKA_BOOTSTRAP) and the real PostgreSQL server (WEIR_POSTGRES_URL, started
// with wal_level=logical by scripts/postgres.sh). Each test uses its own tables, slot
// and publication, and drops them.
//
//  1. a snapshot of 10,000 rows while 10,000 inserts, 1,000 updates and 1,000 deletes
//     commit concurrently: every row is in the topic exactly once as a snapshot row or
//     a create, every update and delete exactly once, in commit order per key, with
//     before/after/op/source as Debezium writes them; a table without a primary key
//     gets null keys and a column of a type weir does not map arrives as text;
//  2. kill -9 mid-stream: the slot's confirmed position never passes what Kafka
//     holds, and after a restart no row is missing;
//     with exactly.once.source.support=enabled nothing is written twice;
//  3. the connector deleted (REST): its slot dropped or kept, per slot.drop.on.stop;
//  4. a slot held by another client fails the task with a message saying so;
//  5. heartbeats move the slot past WAL of tables nobody captures;
//  6. the default replica identity and a primary key change, as Debezium emits them.
#include "tests/support/kafka_tools.hpp"
#include "tests/support/postgres.hpp"
#include "tests/support/process.hpp"
#include "tests/support/rest_worker.hpp"

#include <boost/test/unit_test.hpp>

#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

struct Setup {
  TempDir dir{"weir-itest-cdc"};
  std::string state = dir / "state.db";
  std::string worker = dir / "worker.properties";
  std::string log = dir / "weir.log";
  std::string name = unique_name("cdc");
  std::string prefix = name;
  std::string table = "cdc_" + name.substr(name.size() - 8);
  Postgres pg;

  explicit Setup(std::map<std::string, std::string> worker_extra = {}) {
    for (auto& c : table)
      if (!std::isalnum(static_cast<unsigned char>(c)))
        c = '_';
    auto w = worker_config(state);
    w["offset.flush.interval.ms"] = "500";
    for (auto& [k, v] : worker_extra)
      w[k] = v;
    write_properties(worker, w);
  }
  ~Setup() {
    if (current_test_failing())
      dir.keep();
    // Whatever the test left: the slot (inactive by now), the publication, the tables.
    pg.rows("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"
            + slot() + "' AND active_pid IS NULL");
    pg.rows("DROP PUBLICATION IF EXISTS " + publication());
  }

  std::string slot() const { return "weir_" + table; }
  std::string publication() const { return "weir_pub_" + table; }

  /// The connector's config: the issue's, on the test server, JSON keys and values
  /// without schemas (the payloads are compared as text).
  std::string connector(std::map<std::string, std::string> extra = {}) {
    static const std::regex url(R"(postgresql://([^:@/]+):([^@/]*)@([^:/]+):([0-9]+)/(.+))");
    std::smatch m;
    std::string text = postgres_url();
    BOOST_REQUIRE(std::regex_match(text, m, url));
    std::map<std::string, std::string> c{
      {"name", name},
      {"connector.class", "io.debezium.connector.postgresql.PostgresConnector"},
      {"database.hostname", m[3].str()},
      {"database.port", m[4].str()},
      {"database.user", m[1].str()},
      {"database.password", m[2].str()},
      {"database.dbname", m[5].str()},
      {"topic.prefix", prefix},
      {"plugin.name", "pgoutput"},
      {"slot.name", slot()},
      {"publication.name", publication()},
      {"publication.autocreate.mode", "filtered"},
      {"table.include.list", "public\\." + table + ".*"},
      {"snapshot.mode", "initial"},
      {"key.converter", "org.apache.kafka.connect.json.JsonConverter"},
      {"key.converter.schemas.enable", "false"},
      {"value.converter", "org.apache.kafka.connect.json.JsonConverter"},
      {"value.converter.schemas.enable", "false"},
    };
    for (auto& [k, v] : extra)
      c[k] = v;
    auto path = dir / (name + ".properties");
    write_properties(path, c);
    return path;
  }

  std::string topic(const std::string& t) const { return prefix + ".public." + t; }

  /// The slot's confirmed_flush_lsn as a number; -1 when there is no slot.
  int64_t confirmed_flush() {
    return pg.scalar("SELECT confirmed_flush_lsn - '0/0' FROM pg_replication_slots WHERE slot_name = '"
                     + slot() + "'");
  }
};

/// One change event read back: the key's id, op, before/after (JSON text or "null").
struct Event {
  int64_t id = -1;
  std::string op, before, after, value;
  int64_t lsn = -1, tx = -1;
  bool tombstone = false;
};

std::string group(const std::string& text, const std::regex& re) {
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : "";
}

std::vector<Event> events_of(const std::vector<InRecord>& records) {
  static const std::regex id(R"("id":(-?[0-9]+))"), op(R"j("op":"([a-z])")j"),
    before(R"("before":(null|\{[^}]*\}))"), after(R"("after":(null|\{[^}]*\}))"), lsn(R"("lsn":([0-9]+))"),
    tx(R"("txId":([0-9]+))");
  std::vector<Event> out;
  for (const auto& r : records) {
    Event e;
    if (r.key)
      e.id = std::stoll(group(*r.key, id));
    if (!r.value) {
      e.tombstone = true;
      out.push_back(e);
      continue;
    }
    e.value = *r.value;
    e.op = group(e.value, op);
    e.before = group(e.value, before);
    e.after = group(e.value, after);
    auto l = group(e.value, lsn), t = group(e.value, tx);
    e.lsn = l.empty() ? -1 : std::stoll(l);
    e.tx = t.empty() ? -1 : std::stoll(t);
    out.push_back(e);
  }
  return out;
}

std::string row_json(int64_t id, int64_t qty) {
  return R"({"id":)" + std::to_string(id) + R"(,"name":"name-)" + std::to_string(id) + R"(","qty":)"
         + std::to_string(qty) + "}";
}

/// Runs `sql` in transactions of `per_tx` statements on its own connection.
void in_transactions(const std::vector<std::string>& statements, size_t per_tx) {
  Postgres pg;
  for (size_t i = 0; i < statements.size(); i += per_tx) {
    std::string sql = "BEGIN;";
    for (size_t j = i; j < std::min(statements.size(), i + per_tx); ++j)
      sql += statements[j] + ";";
    pg.exec(sql + "COMMIT;");
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(postgres_cdc)

BOOST_AUTO_TEST_CASE(snapshot_then_concurrent_changes_exactly_once_in_commit_order, *boost::unit_test::timeout(300)) {
  Setup s;
  auto& t = s.table;
  s.pg.exec("CREATE TABLE " + t + " (id integer PRIMARY KEY, name text NOT NULL, qty integer);"
            "ALTER TABLE " + t + " REPLICA IDENTITY FULL;"
            "INSERT INTO " + t + " SELECT g, 'name-' || g, g FROM generate_series(1, 10000) g;"
            "CREATE TABLE " + t + "_nokey (note text, spot point);"
            "INSERT INTO " + t + "_nokey VALUES ('first', '(1,2)');");
  auto weir = start_standalone(s.worker, {s.connector()}, s.log);
  // The changes start once the slot (and so its snapshot) exists: all of them come
  // after the snapshot, while it is read or after.
  BOOST_REQUIRE_MESSAGE(wait_until(60s, 20ms, [&] { return s.confirmed_flush() >= 0; }),
                        "no slot: " << tail_lines(weir->output()));

  // Concurrent transactions: inserts, updates of rows 1..1000, deletes of rows 1001..2000.
  std::vector<std::string> inserts, updates, deletes;
  for (int i = 10001; i <= 20000; ++i)
    inserts.push_back("INSERT INTO " + t + " VALUES (" + std::to_string(i) + ", 'name-" + std::to_string(i)
                      + "', " + std::to_string(i) + ")");
  for (int i = 1; i <= 1000; ++i)
    updates.push_back("UPDATE " + t + " SET qty = qty + 1 WHERE id = " + std::to_string(i));
  for (int i = 1001; i <= 2000; ++i)
    deletes.push_back("DELETE FROM " + t + " WHERE id = " + std::to_string(i));
  std::thread a([&] { in_transactions(inserts, 100); });
  std::thread b([&] { in_transactions(updates, 50); });
  std::thread c([&] { in_transactions(deletes, 50); });
  a.join();
  b.join();
  c.join();

  // 10,000 snapshot rows, 10,000 creates, 1,000 updates, 1,000 deletes and tombstones.
  auto records = read_topic(s.topic(t), 23000, 120s, 5s);
  BOOST_TEST(records.size() == 23000u);
  auto events = events_of(records);
  std::map<int64_t, std::vector<Event>> by_key;
  size_t lasts = 0;
  for (const auto& e : events) {
    by_key[e.id].push_back(e);
    if (e.value.find(R"("snapshot":"last")") != std::string::npos)
      ++lasts;
  }
  BOOST_TEST(lasts == 0u); // the snapshot's last row is the _nokey table's (read after this one)
  BOOST_REQUIRE_MESSAGE(by_key.size() == 20000u, "keys in the topic: " << by_key.size() << "; weir log:\n"
                                                                       << tail_lines(weir->output()));
  size_t problems = 0;
  auto check = [&](bool ok, int64_t id, const std::string& what) {
    if (!ok && ++problems <= 10)
      BOOST_ERROR("id " << id << ": " << what);
  };
  for (auto& [id, list] : by_key) {
    std::string ops;
    for (const auto& e : list)
      ops += e.tombstone ? "T" : e.op;
    if (id <= 1000)
      check(ops == "ru" && list[0].after == row_json(id, id) && list[1].before == row_json(id, id)
              && list[1].after == row_json(id, id + 1),
            id, "update: " + ops + " " + (list.size() > 1 ? list[1].value : ""));
    else if (id <= 2000)
      check(ops == "rdT" && list[1].before == row_json(id, id) && list[1].after == "null", id, "delete: " + ops);
    else if (id <= 10000)
      check(ops == "r" && list[0].after == row_json(id, id) && list[0].before == "null", id, "snapshot row: " + ops);
    else
      check(ops == "c" && list[0].after == row_json(id, id) && list[0].before == "null", id, "insert: " + ops);
  }
  BOOST_TEST(problems == 0u);
  // Changes stream in commit order: LSNs of streamed events never go down within a key.
  for (auto& [id, list] : by_key)
    for (size_t i = 1; i < list.size(); ++i)
      if (!list[i].tombstone && !list[i - 1].tombstone && list[i - 1].op != "r")
        BOOST_TEST(list[i].lsn >= list[i - 1].lsn);

  // One event, field by field, against Debezium's documented shape.
  const Event* update = nullptr;
  for (const auto& e : events)
    if (e.op == "u" && !update)
      update = &e;
  BOOST_REQUIRE(update);
  auto id = update->id;
  std::string expected_start = R"({"before":)" + row_json(id, id) + R"(,"after":)" + row_json(id, id + 1)
                               + R"(,"source":{"version":")";
  BOOST_TEST(update->value.starts_with(expected_start), update->value);
  BOOST_TEST(update->value.find(R"(","connector":"postgresql","name":")" + s.prefix + R"(","ts_ms":)")
             != std::string::npos);
  BOOST_TEST(update->value.find(R"(,"snapshot":"false","db":"weir","sequence":"[\")") != std::string::npos);
  BOOST_TEST(update->value.find(R"(,"schema":"public","table":")" + t + R"(","txId":)") != std::string::npos);
  BOOST_TEST(update->value.find(R"(,"xmin":null},"transaction":null,"op":"u","ts_ms":)") != std::string::npos);

  // No primary key: a null key; a point column: its text, and a warning naming it.
  auto nokey = read_topic(s.topic(t + "_nokey"), 1, 30s, 1s);
  BOOST_REQUIRE(nokey.size() == 1u);
  BOOST_TEST(!nokey[0].key.has_value());
  BOOST_TEST(nokey[0].value->find(R"("op":"r")") != std::string::npos);
  BOOST_TEST(nokey[0].value->find(R"("snapshot":"last")") != std::string::npos);
  BOOST_TEST(nokey[0].value->find(R"j("after":{"note":"first","spot":"(1,2)"})j") != std::string::npos);
  BOOST_TEST(weir->output().find("column spot of table public." + t + "_nokey has type point")
             != std::string::npos);

  stop_cleanly(*weir);
  s.pg.exec("DROP TABLE " + t + "; DROP TABLE " + t + "_nokey;");
}

namespace {

/// Streams 30,000 inserts (transactions of 100), kill -9s weir once the slot confirmed
/// a first position, checks that every transaction the slot confirmed is whole in
/// Kafka, restarts weir and waits for every row; returns the records read.
std::vector<InRecord> kill_and_restart(Setup& s) {
  auto& t = s.table;
  s.pg.exec("CREATE TABLE " + t + " (id integer PRIMARY KEY, name text NOT NULL, qty integer)");
  auto config = s.connector({{"snapshot.mode", "no_data"}});
  auto weir = start_standalone(s.worker, {config}, s.log);
  BOOST_REQUIRE(wait_until(60s, 100ms, [&] { return s.confirmed_flush() >= 0; }));
  const auto created_at = s.confirmed_flush();

  // One writer, transactions of 100 rows; after each commit the WAL position, which is
  // at or past that transaction's commit record.
  constexpr int rows = 30000, per_tx = 100;
  std::vector<int64_t> after_commit;
  std::mutex sync;
  std::thread writer([&] {
    Postgres pg;
    for (int first = 1; first <= rows; first += per_tx) {
      pg.exec("INSERT INTO " + t + " SELECT g, 'name-' || g, g FROM generate_series(" + std::to_string(first)
              + ", " + std::to_string(first + per_tx - 1) + ") g");
      auto lsn = pg.scalar("SELECT pg_current_wal_lsn() - '0/0'");
      {
        std::lock_guard lock{sync};
        after_commit.push_back(lsn);
      }
      std::this_thread::sleep_for(10ms);
    }
  });
  auto committed = [&] {
    std::lock_guard lock{sync};
    return after_commit;
  };
  // Mid-stream: the slot has confirmed some of it (Kafka holds that much), the writer
  // is not done.
  kill_9_when(*weir, 120s, [&] { return s.confirmed_flush() > created_at; }, "a first confirmed position");
  BOOST_REQUIRE(committed().size() < static_cast<size_t>(rows / per_tx));
  auto confirmed = s.confirmed_flush();
  auto ends = committed();
  auto held = events_of(read_topic(s.topic(t), rows, 20s, 3s));
  std::set<int64_t> ids;
  for (const auto& e : held)
    ids.insert(e.id);
  // Every transaction that ended at or before the confirmed position is in Kafka whole.
  size_t checked = 0;
  for (size_t tx = 0; tx < ends.size() && ends[tx] <= confirmed; ++tx, ++checked)
    for (int id = static_cast<int>(tx) * per_tx + 1; id <= static_cast<int>(tx + 1) * per_tx; ++id)
      BOOST_REQUIRE_MESSAGE(ids.count(id), "row " << id << " (transaction " << tx << ") is not in Kafka, but "
                                                  << "the slot confirmed " << confirmed);
  BOOST_TEST(checked > 0u);
  BOOST_TEST_MESSAGE("killed with " << ids.size() << " rows in Kafka; the slot had confirmed " << checked
                                    << " transactions");

  weir = start_standalone(s.worker, {config}, s.log + ".2");
  writer.join();
  std::vector<InRecord> all;
  BOOST_REQUIRE_MESSAGE(wait_until(120s, 1s, [&] {
                          all = read_topic(s.topic(t), rows, 10s, 1s);
                          ids.clear();
                          for (const auto& e : events_of(all))
                            ids.insert(e.id);
                          return ids.size() == static_cast<size_t>(rows);
                        }),
                        "rows in Kafka after the restart: " << ids.size() << " of " << rows << "\n"
                                                            << tail_lines(weir->output()));
  stop_cleanly(*weir);
  s.pg.exec("DROP TABLE " + t);
  return all;
}

} // namespace

BOOST_AUTO_TEST_CASE(kill_9_loses_nothing_and_the_slot_never_passes_kafka, *boost::unit_test::timeout(300)) {
  Setup s;
  auto all = kill_and_restart(s);
  BOOST_TEST_MESSAGE("after the restart: " << all.size() << " records for 30000 rows ("
                                           << all.size() - 30000 << " written twice, at-least-once)");
}

BOOST_AUTO_TEST_CASE(kill_9_with_exactly_once_writes_nothing_twice, *boost::unit_test::timeout(300)) {
  Setup s{{{"exactly.once.source.support", "enabled"}, {"offset.storage.topic", unique_name("cdc-offsets")}}};
  auto all = kill_and_restart(s);
  // read_committed: what aborted transactions held is not seen. What was written
  // twice is named with both copies' Kafka offsets, lsn and txId.
  std::map<int64_t, std::vector<std::string>> copies;
  auto events = events_of(all);
  for (size_t i = 0; i < events.size(); ++i)
    copies[events[i].id].push_back("offset " + std::to_string(all[i].offset) + " lsn " +
                                   std::to_string(events[i].lsn) + " txId " + std::to_string(events[i].tx));
  std::string twice;
  for (const auto& [id, where] : copies)
    if (where.size() > 1) {
      twice += "\n  row " + std::to_string(id) + ":";
      for (const auto& w : where)
        twice += " [" + w + "]";
    }
  BOOST_TEST(all.size() == 30000u, "records written twice:" << twice);
}

BOOST_AUTO_TEST_CASE(heartbeats_free_wal_while_captured_tables_are_idle, *boost::unit_test::timeout(120)) {
  Setup s;
  s.pg.exec("CREATE TABLE " + s.table + " (id integer PRIMARY KEY);"
            "CREATE TABLE " + s.table + "_other (id integer)");
  auto weir = start_standalone(s.worker, {s.connector({{"snapshot.mode", "no_data"},
                                                        {"table.include.list", "public\\." + s.table},
                                                        {"heartbeat.interval.ms", "300"}})},
                               s.log);
  BOOST_REQUIRE(wait_until(60s, 100ms, [&] { return s.confirmed_flush() >= 0; }));
  auto created_at = s.confirmed_flush();
  // WAL from a table nobody captures: only heartbeats can move the slot past it.
  Postgres other;
  for (int i = 0; i < 20; ++i)
    other.exec("INSERT INTO " + s.table + "_other SELECT generate_series(1, 100)");
  auto written = other.scalar("SELECT pg_current_wal_lsn() - '0/0'");
  BOOST_REQUIRE_MESSAGE(wait_until(60s, 200ms, [&] { return s.confirmed_flush() >= written; }),
                        "the slot stayed at " << s.confirmed_flush() << " (created at " << created_at
                                              << ", WAL written to " << written << ")\n"
                                              << tail_lines(weir->output()));
  auto beats = read_topic("__debezium-heartbeat." + s.prefix, 1, 30s, 0s);
  BOOST_REQUIRE(!beats.empty());
  BOOST_TEST(beats[0].key.value_or("") == R"({"serverName":")" + s.prefix + R"("})");
  BOOST_TEST(beats[0].value.value_or("").starts_with(R"({"ts_ms":)"));
  stop_cleanly(*weir);
  s.pg.exec("DROP TABLE " + s.table + "; DROP TABLE " + s.table + "_other");
}


BOOST_AUTO_TEST_CASE(default_replica_identity_and_key_changes_as_debezium_emits_them, *boost::unit_test::timeout(120)) {
  Setup s;
  auto& t = s.table;
  s.pg.exec("CREATE TABLE " + t + " (id integer PRIMARY KEY, name text NOT NULL, qty integer)");
  auto weir = start_standalone(s.worker, {s.connector({{"snapshot.mode", "no_data"}})}, s.log);
  BOOST_REQUIRE(wait_until(60s, 100ms, [&] { return s.confirmed_flush() >= 0; }));
  s.pg.exec("INSERT INTO " + t + " VALUES (1, 'name-1', 1)");
  s.pg.exec("UPDATE " + t + " SET qty = 2 WHERE id = 1");
  s.pg.exec("UPDATE " + t + " SET id = 2 WHERE id = 1");
  s.pg.exec("DELETE FROM " + t + " WHERE id = 2");
  // c 1; u 1 (no before: the default identity logs none); the key change as d 1,
  // tombstone 1, c 2; d 2 with the key only (NOT NULL name as "", qty null), tombstone 2.
  auto events = events_of(read_topic(s.topic(t), 7, 60s, 2s));
  std::string seen;
  for (const auto& e : events)
    seen += std::to_string(e.id) + (e.tombstone ? "T" : e.op) + " ";
  BOOST_REQUIRE_MESSAGE(seen == "1c 1u 1d 1T 2c 2d 2T ", seen);
  BOOST_TEST(events[1].before == "null");
  BOOST_TEST(events[1].after == row_json(1, 2));
  BOOST_TEST(events[2].before == R"({"id":1,"name":"","qty":null})");
  BOOST_TEST(events[4].after == R"({"id":2,"name":"name-1","qty":2})");
  BOOST_TEST(events[5].before == R"({"id":2,"name":"","qty":null})");
  stop_cleanly(*weir);
  s.pg.exec("DROP TABLE " + t);
}

BOOST_AUTO_TEST_CASE(the_deleted_connectors_slot_is_dropped_or_kept, *boost::unit_test::timeout(180)) {
  for (bool drop : {true, false}) {
    Setup s;
    s.pg.exec("CREATE TABLE " + s.table + " (id integer PRIMARY KEY)");
    auto weir = start_standalone(s.worker, {s.connector({{"slot.drop.on.stop", drop ? "true" : "false"}})}, s.log);
    auto port = rest_port_of(*weir);
    BOOST_REQUIRE_MESSAGE(port != 0, tail_lines(weir->output()));
    auto active = [&] {
      return s.pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + s.slot() + "' AND active");
    };
    BOOST_REQUIRE_MESSAGE(wait_until(60s, 100ms, [&] { return active() == 1; }),
                          "the slot is not streaming: " << tail_lines(weir->output()));
    RestWorker rest;
    rest.port = port;
    // The slot's lag is in /metrics once the stream has said where the WAL ends.
    static const std::regex lag_line(R"re(weir_source_lag_bytes\{connector="([^"]+)"[^}]*\} ([0-9.e+]+))re");
    BOOST_TEST(wait_until(30s, 200ms, [&] {
      auto text = rest.call("GET", "/metrics").body;
      std::smatch m;
      return std::regex_search(text, m, lag_line) && m[1] == s.name;
    }));
    auto deleted = rest.call("DELETE", "/connectors/" + s.name);
    BOOST_TEST(deleted.status == 204);
    auto slots = [&] {
      return s.pg.scalar("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + s.slot() + "'");
    };
    // Dropped, or kept and no longer streamed from (so nothing of weir's holds it).
    BOOST_TEST(wait_until(30s, 100ms, [&] { return drop ? slots() == 0 : active() == 0; }),
               "slot.drop.on.stop=" << drop << ": " << slots() << " slot(s), " << active() << " active");
    BOOST_TEST(slots() == (drop ? 0 : 1));
    stop_cleanly(*weir);
    s.pg.exec("DROP TABLE " + s.table);
  }
}

BOOST_AUTO_TEST_CASE(a_slot_held_by_another_client_fails_the_task_saying_so, *boost::unit_test::timeout(120)) {
  Setup s;
  s.pg.exec("CREATE TABLE " + s.table + " (id integer PRIMARY KEY)");
  s.pg.exec("SELECT pg_create_logical_replication_slot('" + s.slot() + "', 'pgoutput')");
  // Another client streams from the slot.
  PGconn* other = PQconnectdb((postgres_url() + "?replication=database").c_str());
  BOOST_REQUIRE(PQstatus(other) == CONNECTION_OK);
  s.pg.exec("CREATE PUBLICATION " + s.publication() + " FOR TABLE " + s.table);
  PGresult* r = PQexec(other, ("START_REPLICATION SLOT " + s.slot() + " LOGICAL 0/0 (proto_version '1', "
                               "publication_names '" + s.publication() + "')").c_str());
  BOOST_REQUIRE(PQresultStatus(r) == PGRES_COPY_BOTH);
  PQclear(r);
  auto weir = start_standalone(s.worker, {s.connector({{"publication.autocreate.mode", "disabled"}})}, s.log);
  std::vector<TaskStatus> status;
  BOOST_REQUIRE_MESSAGE(wait_until(60s, 200ms, [&] {
                          status = task_statuses(s.state, s.name);
                          return !status.empty() && status[0].state == "FAILED";
                        }),
                        "task status:" << describe(status));
  BOOST_TEST(status[0].trace.find("replication slot " + s.slot() + " is held by another client")
             != std::string::npos, status[0].trace);
  stop_cleanly(*weir);
  PQfinish(other);
  s.pg.exec("DROP TABLE " + s.table);
}

BOOST_AUTO_TEST_SUITE_END()
