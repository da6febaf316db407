// The JdbcSourceConnector on PostgreSQL (issue 24, part 1) end to end: `weir
// standalone` as a child process, the real broker (WEIR_KAFKA_BOOTSTRAP) and the real
// PostgreSQL server (WEIR_POSTGRES_URL). Each test uses its own tables and topics.
//
//  1. timestamp+incrementing over a table receiving inserts and updates while weir
//     runs, weir kill -9ed mid-stream and restarted, exactly.once.source.support
//     enabled: every row version in the topic, none twice;
//  2. bulk: the whole table on every poll;
//  3. incrementing over two tables on tasks.max=3, then rows added later: the
//     third task idle, and reported idle;
//  4. query mode: the custom query with the mode's WHERE appended, one topic;
//  5. every listed type as Confluent maps it, with schemas (JsonConverter);
//  6. numeric.mapping best_fit and precision_only;
//  7. bad input: an unknown table, a missing, mistyped or nullable incrementing
//     column, each a FAILED task naming it.
#include "tests/support/kafka_tools.hpp"
#include "tests/support/postgres.hpp"
#include "tests/support/process.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

struct Setup {
  TempDir dir{"weir-itest-pgsrc"};
  std::string state = dir / "state.db";
  std::string worker = dir / "worker.properties";
  std::string log = dir / "weir.log";
  std::string name = unique_name("pgsrc");
  std::string table = "pgsrc_" + name.substr(name.size() - 8);
  Postgres pg;
  std::vector<std::string> drops;

  explicit Setup(std::map<std::string, std::string> worker_extra = {}) {
    for (auto& c : table)
      if (!std::isalnum(static_cast<unsigned char>(c)))
        c = '_';
    auto w = worker_config(state);
    w["offset.flush.interval.ms"] = "500";
    w["task.restart.max.attempts"] = "0";
    for (auto& [k, v] : worker_extra)
      w[k] = v;
    write_properties(worker, w);
  }
  ~Setup() {
    if (current_test_failing())
      dir.keep();
    for (const auto& t : drops)
      pg.rows("DROP TABLE IF EXISTS " + t);
  }

  /// Creates table `t` (dropped at the end) with `columns`.
  void create(const std::string& t, const std::string& columns) {
    pg.exec("DROP TABLE IF EXISTS " + t + "; CREATE TABLE " + t + " (" + columns + ")");
    drops.push_back(t);
  }

  std::string prefix() const { return name + "-"; }

  std::string connector(std::map<std::string, std::string> extra) {
    auto c = postgres_sink_keys();
    c["name"] = name;
    c["connector.class"] = "io.confluent.connect.jdbc.JdbcSourceConnector";
    c["topic.prefix"] = prefix();
    c["poll.interval.ms"] = "100";
    for (auto& [k, v] : extra)
      c[k] = v;
    auto path = dir / (name + ".properties");
    write_properties(path, c);
    return path;
  }

  /// Waits for the tasks' status and requires one FAILED whose trace has `text`.
  void expect_failure(const std::string& text) {
    std::vector<TaskStatus> status;
    bool failed = wait_until(60s, 200ms, [&] {
      status = task_statuses(state, name);
      return std::any_of(status.begin(), status.end(), [](const auto& t) { return t.state == "FAILED"; });
    });
    BOOST_REQUIRE_MESSAGE(failed, "no task failed:" << describe(status));
    bool named = std::any_of(status.begin(), status.end(),
                             [&](const auto& t) { return t.trace.find(text) != std::string::npos; });
    BOOST_TEST(named, "no trace says '" << text << "':" << describe(status));
  }
};

std::string group(const std::string& text, const std::regex& re) {
  std::smatch m;
  return std::regex_search(text, m, re) ? m[1].str() : "";
}

/// The values read from `topic`, once `expected` came.
std::vector<std::string> values(const std::string& topic, size_t expected, std::chrono::seconds timeout = 60s) {
  std::vector<std::string> out;
  for (const auto& r : read_topic(topic, expected, timeout, 1s))
    out.push_back(r.value.value_or("null"));
  return out;
}

/// Follows a topic from its start in a thread, collecting (id, version) pairs.
class Follower {
public:
  explicit Follower(const std::string& topic) : thread_([this, topic] { run(topic); }) {}
  ~Follower() {
    stop_ = true;
    thread_.join();
  }
  std::multiset<std::pair<int64_t, int64_t>> seen() {
    std::lock_guard lock{mutex_};
    return seen_;
  }
  size_t count() {
    std::lock_guard lock{mutex_};
    return seen_.size();
  }
  bool has(int64_t id, int64_t version) {
    std::lock_guard lock{mutex_};
    return seen_.count({id, version}) > 0;
  }

private:
  void run(const std::string& topic) {
    static const std::regex id(R"("id":(-?[0-9]+))"), version(R"("version":(-?[0-9]+))");
    auto props = broker();
    props["group.id"] = unique_name("weir-itest-follower");
    weir::runtime::kafka::Consumer consumer(props);
    consumer.subscribe({topic});
    weir::Batch batch;
    while (!stop_) {
      batch.clear();
      consumer.poll(batch, 5000, 16 << 20, 100ms);
      std::lock_guard lock{mutex_};
      for (const auto& r : batch.records()) {
        std::string v{batch.bytes(r.value)};
        seen_.insert({std::stoll(group(v, id)), std::stoll(group(v, version))});
      }
    }
    consumer.close();
  }

  std::mutex mutex_;
  std::multiset<std::pair<int64_t, int64_t>> seen_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace

BOOST_AUTO_TEST_SUITE(postgres_source)

BOOST_AUTO_TEST_CASE(timestamp_incrementing_kill_9_every_version_once, *boost::unit_test::timeout(400)) {
  Setup s{{{"exactly.once.source.support", "enabled"}, {"offset.storage.topic", unique_name("pgsrc-offsets")}}};
  auto& t = s.table;
  s.create(t, "id bigserial PRIMARY KEY, version integer NOT NULL, note text, "
              "updated timestamp(6) NOT NULL DEFAULT clock_timestamp()");
  auto config = s.connector({{"mode", "timestamp+incrementing"},
                             {"incrementing.column.name", "id"},
                             {"timestamp.column.name", "updated"},
                             {"table.whitelist", t},
                             {"timestamp.delay.interval.ms", "300"},
                             {"batch.max.rows", "40"}});
  auto weir = start_standalone(s.worker, {config}, s.log);
  Follower topic{s.prefix() + t};

  // Rounds of 100 single-row inserts; after each, the rows of two rounds before are
  // updated (a new version, a new timestamp) once their first version is in Kafka:
  // a polling source sees a row version only if it lives across a poll.
  constexpr int rounds = 12, per_round = 100;
  std::atomic<bool> writer_failed{false};
  std::thread writer([&] {
    Postgres pg;
    for (int r = 0; r < rounds; ++r) {
      for (int i = 0; i < per_round; ++i)
        pg.exec("INSERT INTO " + t + " (version, note) VALUES (1, 'round " + std::to_string(r) + "')");
      if (r < 2)
        continue;
      int64_t first = (r - 2) * per_round + 1, last = (r - 1) * per_round;
      if (!wait_until(180s, 50ms, [&] { return topic.has(last, 1) && topic.has(first, 1); })) {
        writer_failed = true;
        return;
      }
      for (int64_t id = first; id <= last; ++id)
        pg.exec("UPDATE " + t + " SET version = 2, updated = clock_timestamp() WHERE id = " + std::to_string(id));
    }
  });
  // Mid-stream: some rows in Kafka, the writer not done.
  kill_9_when(*weir, 120s, [&] { return topic.count() >= 300; }, "300 records in Kafka");
  BOOST_TEST_MESSAGE("killed with " << topic.count() << " records in Kafka");
  weir = start_standalone(s.worker, {config}, s.log + ".2");
  writer.join();
  BOOST_REQUIRE_MESSAGE(!writer_failed, "rows never reached Kafka: " << tail_lines(weir->output()));

  // Every row's first version, and the second version of rounds 0..rounds-3.
  const size_t expected = rounds * per_round + (rounds - 2) * per_round;
  BOOST_REQUIRE_MESSAGE(wait_until(120s, 500ms, [&] { return topic.count() >= expected; }),
                        "records in Kafka: " << topic.count() << " of " << expected << "\n"
                                             << tail_lines(weir->output()));
  std::this_thread::sleep_for(3s); // anything written twice would show by now
  auto seen = topic.seen();
  for (int64_t id = 1; id <= rounds * per_round; ++id) {
    BOOST_TEST(seen.count({id, 1}) == 1u, "row " << id << " version 1: " << seen.count({id, 1}) << " times");
    if (id <= (rounds - 2) * per_round)
      BOOST_TEST(seen.count({id, 2}) == 1u, "row " << id << " version 2: " << seen.count({id, 2}) << " times");
  }
  BOOST_TEST(seen.size() == expected);
  stop_cleanly(*weir);
}

BOOST_AUTO_TEST_CASE(bulk_copies_the_whole_table_every_poll, *boost::unit_test::timeout(120)) {
  Setup s;
  s.create(s.table, "id integer PRIMARY KEY, name text");
  s.pg.exec("INSERT INTO " + s.table + " VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  auto weir = start_standalone(s.worker, {s.connector({{"mode", "bulk"}, {"table.whitelist", s.table},
                                                       {"poll.interval.ms", "300"}})}, s.log);
  auto got = values(s.prefix() + s.table, 9);
  stop_cleanly(*weir);
  BOOST_REQUIRE_GE(got.size(), 9u);
  for (size_t i = 0; i < 9; ++i) {
    static const char* rows[] = {R"({"id":1,"name":"a"})", R"({"id":2,"name":"b"})", R"({"id":3,"name":"c"})"};
    BOOST_TEST(got[i] == rows[i % 3]);
  }
}

BOOST_AUTO_TEST_CASE(incrementing_over_tables_spread_on_tasks, *boost::unit_test::timeout(180)) {
  Setup s;
  auto a = s.table + "_a", b = s.table + "_b";
  s.create(a, "id serial PRIMARY KEY, n integer");
  s.create(b, "id serial PRIMARY KEY, n integer");
  s.pg.exec("INSERT INTO " + a + " (n) SELECT g FROM generate_series(1, 500) g;"
            "INSERT INTO " + b + " (n) SELECT g FROM generate_series(1, 300) g");
  auto weir = start_standalone(s.worker, {s.connector({{"mode", "incrementing"},
                                                       {"incrementing.column.name", "id"},
                                                       {"table.whitelist", a + ",public." + b},
                                                       {"tasks.max", "3"},
                                                       {"batch.max.rows", "64"}})}, s.log);
  BOOST_TEST(values(s.prefix() + a, 500).size() == 500u);
  s.pg.exec("INSERT INTO " + a + " (n) VALUES (501), (502)");
  auto got_a = values(s.prefix() + a, 502);
  auto got_b = values(s.prefix() + b, 300);
  BOOST_TEST(got_a.size() == 502u);
  BOOST_TEST(got_b.size() == 300u);
  BOOST_TEST(got_a.back() == R"({"id":502,"n":502})");
  BOOST_TEST(got_b.front() == R"({"id":1,"n":1})");
  // One task per table, the third idle and saying why.
  auto status = wait_for_idle_tasks(s.state, s.name, 3, 1, 60s);
  BOOST_TEST(status[2].trace == "idle: no table to copy (tasks.max=3 but the connector copies 2 table(s))");
  stop_cleanly(*weir);
}

BOOST_AUTO_TEST_CASE(query_mode_appends_the_where_clause, *boost::unit_test::timeout(120)) {
  Setup s;
  auto orders = s.table + "_orders", users = s.table + "_users";
  s.create(users, "uid integer PRIMARY KEY, name text NOT NULL");
  s.create(orders, "id integer PRIMARY KEY, uid integer NOT NULL, total numeric(8,2)");
  s.pg.exec("INSERT INTO " + users + " VALUES (1, 'ann'), (2, 'bob');"
            "INSERT INTO " + orders + " VALUES (1, 1, 10.50), (2, 2, 3.25), (3, 1, 7)");
  // The WHERE clause is appended, so the query is wrapped, as Confluent's docs say.
  auto query = "SELECT * FROM (SELECT o.id, u.name, o.total FROM " + orders + " o JOIN " + users
               + " u USING (uid)) q";
  auto weir = start_standalone(s.worker, {s.connector({{"mode", "incrementing"},
                                                       {"incrementing.column.name", "id"},
                                                       {"query", query},
                                                       {"numeric.mapping", "best_fit"}})}, s.log);
  s.pg.exec("INSERT INTO " + orders + " VALUES (4, 2, 1.5)");
  auto got = values(s.prefix(), 4); // query mode: the topic is topic.prefix
  stop_cleanly(*weir);
  BOOST_REQUIRE_EQUAL(got.size(), 4u);
  BOOST_TEST(got[0] == R"({"id":1,"name":"ann","total":10.5})");
  BOOST_TEST(got[1] == R"({"id":2,"name":"bob","total":3.25})");
  BOOST_TEST(got[2] == R"({"id":3,"name":"ann","total":7.0})");
  BOOST_TEST(got[3] == R"({"id":4,"name":"bob","total":1.5})");
}

BOOST_AUTO_TEST_CASE(every_type_maps_as_confluent_maps_it, *boost::unit_test::timeout(120)) {
  Setup s{{{"value.converter.schemas.enable", "true"}, {"value.converter.decimal.format", "NUMERIC"}}};
  s.create(s.table,
           "id integer PRIMARY KEY, b boolean, i2 smallint, i8 bigint, f4 real, f8 double precision, "
           "price numeric(10,2), t text, v varchar(8), c char(3), by bytea, d date, tm time, "
           "ts timestamp, tz timestamptz, j json, jb jsonb, u uuid, arr integer[], tags text[], p point");
  s.pg.exec("INSERT INTO " + s.table + " VALUES (1, true, -2, 9000000000, 1.5, 2.25, 12345.67, "
            "'text', 'vc', 'ab', '\\x00ff', '2024-02-29', '12:34:56.789', '2024-02-29 12:34:56.789', "
            "'2024-02-29 12:34:56.789+02', '{\"a\": 1}', '{\"b\": [1, 2]}', "
            "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{1,NULL,3}', '{x,y}', '(1,2)')");
  s.pg.exec("INSERT INTO " + s.table + " (id) VALUES (2)");
  auto weir = start_standalone(s.worker, {s.connector({{"mode", "incrementing"},
                                                       {"incrementing.column.name", "id"},
                                                       {"table.whitelist", s.table}})}, s.log);
  auto got = values(s.prefix() + s.table, 2);
  stop_cleanly(*weir);
  BOOST_REQUIRE_EQUAL(got.size(), 2u);
  const auto& full = got[0];
  auto payload = full.substr(full.find("\"payload\":") + 10);
  BOOST_TEST(payload ==
             R"({"id":1,"b":true,"i2":-2,"i8":9000000000,"f4":1.5,"f8":2.25,"price":12345.67,"t":"text","v":"vc","c":"ab ","by":"AP8=","d":19782,)"
             R"("tm":45296789,"ts":1709210096789,"tz":1709202896789,"j":"{\"a\": 1}","jb":"{\"b\": [1, 2]}",)"
             R"("u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","arr":[1,null,3],"tags":["x","y"]}})");
  // The schema: Connect's logical types, NOT NULL as required, the point left out.
  auto schema = full.substr(0, full.find("\"payload\":"));
  for (const char* field :
       {R"({"type":"int32","optional":false,"field":"id"})",
        R"({"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"price"})",
        R"({"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"d"})",
        R"({"type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Time","version":1,"field":"tm"})",
        R"({"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"tz"})",
        R"({"type":"array","items":{"type":"int32","optional":true},"optional":true,"field":"arr"})"})
    BOOST_TEST(schema.find(field) != std::string::npos, "schema lacks " << field << ": " << schema);
  BOOST_TEST(schema.find("\"p\"") == std::string::npos);
  BOOST_TEST(got[1].find(R"("i8":null)") != std::string::npos);
  BOOST_TEST(weir->output().find("column p of table public." + s.table + " has type point") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(numeric_mapping_narrows_numerics, *boost::unit_test::timeout(120)) {
  Setup s;
  s.create(s.table, "id integer PRIMARY KEY, small numeric(2,0), mid numeric(9,0), big numeric(18,0), "
                    "money numeric(10,2), wide numeric(30,2), free numeric");
  s.pg.exec("INSERT INTO " + s.table + " VALUES (1, 12, 123456789, 123456789012345678, 12.5, 1.25, 0.5)");
  auto run = [&](const std::string& mapping) {
    auto weir = start_standalone(s.worker, {s.connector({{"mode", "bulk"}, {"table.whitelist", s.table},
                                                         {"numeric.mapping", mapping},
                                                         {"topic.prefix", s.prefix() + mapping + "-"},
                                                         {"poll.interval.ms", "60000"}})},
                                 s.log + "." + mapping);
    auto got = values(s.prefix() + mapping + "-" + s.table, 1);
    stop_cleanly(*weir);
    BOOST_REQUIRE_EQUAL(got.size(), 1u);
    return got[0];
  };
  // Decimals without schemas are the JsonConverter's base64 of the unscaled bytes; a
  // numeric without precision stays a Decimal of scale 127 (0.5 * 10^127: 53 bytes).
  static const std::regex base64_free(R"("free":"[A-Za-z0-9+/=]{72}")");
  auto best = run("best_fit");
  BOOST_TEST(best.substr(0, best.find(",\"free\""))
             == R"({"id":1,"small":12,"mid":123456789,"big":123456789012345678,"money":12.5,"wide":"fQ==")");
  BOOST_TEST(std::regex_search(best, base64_free), best);
  auto precision = run("precision_only");
  BOOST_TEST(precision.substr(0, precision.find(",\"free\""))
             == R"({"id":1,"small":12,"mid":123456789,"big":123456789012345678,"money":"BOI=","wide":"fQ==")");
}

BOOST_AUTO_TEST_CASE(bad_input_fails_the_task_naming_it, *boost::unit_test::timeout(240)) {
  struct Case {
    std::map<std::string, std::string> config;
    std::string says;
  };
  Setup probe;
  const auto t = probe.table;
  probe.create(t, "id integer, name text, n integer NOT NULL");
  std::vector<Case> cases{
    {{{"mode", "bulk"}, {"table.whitelist", t + "_missing"}}, "table " + t + "_missing (table.whitelist) does not exist"},
    {{{"mode", "incrementing"}, {"incrementing.column.name", "nope"}, {"table.whitelist", t}},
     "column nope (incrementing.column.name) does not exist in table public." + t},
    {{{"mode", "incrementing"}, {"incrementing.column.name", "name"}, {"table.whitelist", t}},
     "is text: an incrementing column must be smallint, integer or bigint"},
    {{{"mode", "incrementing"}, {"incrementing.column.name", "id"}, {"table.whitelist", t}},
     "column id of table public." + t + " because this column is nullable"},
    {{{"mode", "timestamp"}, {"timestamp.column.name", "n"}, {"table.whitelist", t}},
     "is integer: a timestamp column must be timestamp or timestamptz"},
  };
  for (const auto& c : cases) {
    Setup s;
    auto weir = start_standalone(s.worker, {s.connector(c.config)}, s.log);
    s.expect_failure(c.says);
    stop_cleanly(*weir);
  }
}

BOOST_AUTO_TEST_SUITE_END()
