// `weir standalone` with source connectors against the real broker (issue 5, "What
// it must show"): the weir binary runs as a child process; the test writes the
// source (a file, an SQLite table), reads the topic back and the state file.
//
//  - DatagenConnector: `iterations` records land in the topic; the same seed gives
//    the same records; max.interval paces them;
//  - FileStreamSource over a 1,000,000-line file: every line in the topic, in file
//    order; appends are followed; kill -9 and a restart lose nothing, and the
//    duplicates are counted (at-least-once) -- or there are none (exactly-once,
//    read with isolation.level=read_committed);
//  - JdbcSourceConnector, incrementing mode: rows inserted while it runs arrive, and
//    a restart does not send old rows again;
//  - a slow producer (a throttled broker connection) does not grow memory: credit
//    stops the poller;
//  - bad input (an unreadable file, a missing table or column) fails the task with
//    the reason in its status, the process runs on and stops cleanly;
//  - bad config names the key and exits 1 before anything runs;
//  - topic.creation.* (KIP-158) creates the topics with their group's settings.
#include "tests/support/kafka_tools.hpp"
#include "tests/support/process.hpp"

#include <boost/test/unit_test.hpp>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <thread>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

struct SourceProgress {
  double rate = 0;
  uint64_t produced = 0, errors = 0;
  int tasks = 0, finished = 0, failed = 0;
};

/// Every source progress line of `name`: `[name] R records/s | records produced P |
/// errors E | tasks T (F finished, X failed)`.
std::vector<SourceProgress> source_progress(const std::string& output, const std::string& name) {
  static const std::regex re(
    R"(^\[([^\]]+)\] ([0-9.]+) records/s \| records produced ([0-9]+) \| errors ([0-9]+) \| tasks ([0-9]+) \(([0-9]+) finished, ([0-9]+) failed\)$)");
  std::vector<SourceProgress> out;
  std::istringstream in(output);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, re) && m[1] == name)
      out.push_back({std::stod(m[2]), std::stoull(m[3]), std::stoull(m[4]), std::stoi(m[5]),
                     std::stoi(m[6]), std::stoi(m[7])});
  return out;
}

/// Offsets flushed every 500 ms (a kill -9 loses little), and `extra`.
struct Setup : StandaloneFiles {
  explicit Setup(std::map<std::string, std::string> extra = {})
    : StandaloneFiles("weir-itest-source", with_flush(std::move(extra))) {}
  static std::map<std::string, std::string> with_flush(std::map<std::string, std::string> extra) {
    extra.try_emplace("offset.flush.interval.ms", "500");
    return extra;
  }
};

std::string line_of(size_t i) {
  return "line " + std::to_string(i) + " of a file that FileStreamSource reads, padded to look "
         "like a log line";
}

void append_lines(const std::string& path, size_t from, size_t to) {
  std::ofstream out(path, std::ios::app);
  std::string block;
  for (size_t i = from; i < to; ++i) {
    block += line_of(i);
    block += '\n';
    if (block.size() > (1 << 20)) {
      out << block;
      block.clear();
    }
  }
  out << block;
}

/// What the topic holds of lines 0..n-1: counts, order, strangers.
struct LineScan {
  std::vector<uint32_t> count;
  size_t foreign = 0;
  bool in_order = true; // first occurrences come in file order
  size_t missing() const { return static_cast<size_t>(std::count(count.begin(), count.end(), 0u)); }
  size_t duplicates() const {
    size_t d = 0;
    for (auto c : count)
      d += c > 1 ? c - 1 : 0;
    return d;
  }
};

LineScan scan_lines(const std::vector<InRecord>& records, size_t n) {
  LineScan s;
  s.count.assign(n, 0);
  int64_t last_new = -1;
  for (const auto& r : records) {
    size_t id = 0;
    const std::string& v = r.value ? *r.value : std::string{};
    // StringConverter values: the line itself.
    bool ok = v.starts_with("line ")
              && std::from_chars(v.data() + 5, v.data() + v.size(), id).ec == std::errc{} && id < n
              && v == line_of(id);
    if (!ok) {
      ++s.foreign;
      continue;
    }
    if (s.count[id]++ == 0) {
      if (static_cast<int64_t>(id) < last_new)
        s.in_order = false;
      last_new = static_cast<int64_t>(id);
    }
  }
  return s;
}

std::map<std::string, std::string> file_source(const std::string& file, const std::string& topic) {
  return {{"connector.class", "FileStreamSource"},
          {"file", file},
          {"topic", topic},
          {"value.converter", "org.apache.kafka.connect.storage.StringConverter"}};
}

/// Runs the FileStreamSource kill -9 scenario; returns the scan of the topic.
LineScan file_source_with_kill(Setup& s, const std::string& name, const std::string& topic,
                               size_t n) {
  auto file = s.dir / "input.log";
  append_lines(file, 0, n);
  create_topic(topic, 1);
  auto config = s.connector(name, file_source(file, topic));
  auto t0 = Clock::now();
  {
    // The topic's end offset, watched closely, says when a third of the file is in.
    auto rk = weir::runtime::kafka::make_handle(RD_KAFKA_CONSUMER,
                                                weir::runtime::kafka::make_conf(broker()));
    int64_t low = 0, high = 0;
    auto weir = start_standalone(s.worker, {config}, s.log);
    bool midway = wait_until(120s, 10ms, [&] {
      rd_kafka_query_watermark_offsets(rk.get(), topic.c_str(), 0, &low, &high, 5000);
      return high >= static_cast<int64_t>(n / 3);
    });
    BOOST_REQUIRE_MESSAGE(midway, "no progress to " << n / 3 << ":\n" << tail_lines(weir->output()));
    weir->signal(SIGKILL);
    weir->wait(10s);
    BOOST_TEST_MESSAGE("killed -9 at end offset " << high << " of " << n << " lines ("
                                                  << seconds_since(t0) << " s)");
    BOOST_TEST(high < static_cast<int64_t>(n), "the kill came after the whole file was sent");
  }
  auto weir = start_standalone(s.worker, {config}, s.log);
  // Appends while it runs are followed, like tail -F.
  append_lines(file, n, n + 1000);
  auto records = read_topic(topic, n + 1000, 180s, 3s);
  stop_cleanly(*weir);
  BOOST_TEST_MESSAGE("read " << records.size() << " records " << seconds_since(t0)
                             << " s after the first start");
  return scan_lines(records, n + 1000);
}

} // namespace

BOOST_AUTO_TEST_SUITE(standalone_source)

BOOST_AUTO_TEST_CASE(datagen_honours_iterations_and_the_seed) {
  Setup s;
  auto topic_a = unique_name("weir-itest-datagen-a");
  auto topic_b = unique_name("weir-itest-datagen-b");
  create_topic(topic_a, 1);
  create_topic(topic_b, 1);
  auto datagen = [&](const std::string& topic, const std::string& seed) {
    return std::map<std::string, std::string>{{"connector.class", "DatagenConnector"},
                                              {"kafka.topic", topic},
                                              {"quickstart", "orders"},
                                              {"iterations", "5000"},
                                              {"max.interval", "0"},
                                              {"random.seed", seed}};
  };
  auto a = unique_name("datagen-a"), b = unique_name("datagen-b");
  auto weir = start_standalone(s.worker, {s.connector(a, datagen(topic_a, "7")),
                                          s.connector(b, datagen(topic_b, "7"))},
                               s.log);
  auto ra = read_topic(topic_a, 5000, 60s, 3s);
  auto rb = read_topic(topic_b, 5000, 60s, 0s);
  BOOST_TEST(ra.size() == 5000u);
  BOOST_TEST(rb.size() == 5000u);
  bool same = ra.size() == rb.size();
  for (size_t i = 0; same && i < ra.size(); ++i)
    same = ra[i].value == rb[i].value && ra[i].key == rb[i].key;
  BOOST_TEST(same, "the same seed gave different records");
  BOOST_REQUIRE(!ra.empty() && ra[0].value);
  BOOST_TEST(ra[0].value->find("\"orderid\":") != std::string::npos);
  BOOST_TEST(ra[0].value->size() >= 150u);
  // Both tasks end after their iterations and say so.
  bool finished = wait_until(20s, 250ms, [&] {
    auto p = source_progress(weir->output(), a);
    return !p.empty() && p.back().finished == 1 && p.back().produced == 5000;
  });
  BOOST_TEST(finished, tail_lines(weir->output()));
  stop_cleanly(*weir);

  // max.interval paces the records: 20 records of at most 100 ms each.
  auto topic_c = unique_name("weir-itest-datagen-c");
  create_topic(topic_c, 1);
  auto cfg = datagen(topic_c, "1");
  cfg["iterations"] = "20";
  cfg["max.interval"] = "100";
  auto t0 = Clock::now();
  auto paced = start_standalone(s.worker, {s.connector(unique_name("datagen-c"), cfg)}, s.log);
  auto rc = read_topic(topic_c, 20, 30s, 0s);
  auto took = seconds_since(t0);
  BOOST_TEST_MESSAGE("20 records with max.interval=100 arrived in " << took << " s");
  BOOST_TEST(rc.size() == 20u);
  BOOST_TEST(took > 0.3);
  stop_cleanly(*paced);
}

BOOST_AUTO_TEST_CASE(topic_creation_groups_create_topics_before_the_first_record) {
  // KIP-158: the topics do not exist; each is created with its group's settings, and a
  // DatagenConnector with schemas.enable=true writes its Connect schema.
  Setup s;
  auto plain = unique_name("weir-itest-created");
  auto compacted = unique_name("weir-itest-created-compacted");
  auto datagen = [&](const std::string& topic) {
    return std::map<std::string, std::string>{{"connector.class", "DatagenConnector"},
                                              {"kafka.topic", topic},
                                              {"quickstart", "users"},
                                              {"iterations", "100"},
                                              {"max.interval", "0"},
                                              {"random.seed", "5"},
                                              {"value.converter", "org.apache.kafka.connect.json.JsonConverter"},
                                              {"value.converter.schemas.enable", "true"},
                                              {"topic.creation.groups", "compacted"},
                                              {"topic.creation.default.partitions", "3"},
                                              {"topic.creation.default.replication.factor", "1"},
                                              {"topic.creation.default.retention.ms", "123456789"},
                                              {"topic.creation.compacted.include", ".*-compacted.*"},
                                              {"topic.creation.compacted.partitions", "2"},
                                              {"topic.creation.compacted.cleanup.policy", "compact"}};
  };
  auto weir = start_standalone(s.worker, {s.connector(unique_name("created-a"), datagen(plain)),
                                          s.connector(unique_name("created-b"), datagen(compacted))},
                               s.log);
  auto records = read_topic(plain, 100, 60s, 0s);
  BOOST_TEST(records.size() == 100u, tail_lines(weir->output()));
  BOOST_TEST(read_topic(compacted, 100, 60s, 0s).size() == 100u);
  using weir::runtime::kafka::partition_count;
  using weir::runtime::kafka::topic_configs;
  BOOST_TEST(partition_count(broker(), plain).value_or(-1) == 3);
  BOOST_TEST(topic_configs(broker(), plain).at("retention.ms") == "123456789");
  BOOST_TEST(partition_count(broker(), compacted).value_or(-1) == 2);
  BOOST_TEST(topic_configs(broker(), compacted).at("cleanup.policy") == "compact");
  BOOST_REQUIRE(!records.empty() && records[0].value);
  BOOST_TEST(records[0].value->starts_with(R"({"schema":{"type":"struct","fields":[{"type":"int64")"),
             *records[0].value);
  BOOST_TEST(records[0].value->find(R"("name":"ksql.users")") != std::string::npos);
  stop_cleanly(*weir);

  // A group with a bad pattern is a config error naming the key, before anything runs.
  auto bad = datagen(unique_name("weir-itest-never"));
  bad["topic.creation.compacted.include"] = "(";
  auto refused = start_standalone(s.worker, {s.connector(unique_name("created-bad"), bad)}, s.log);
  auto status = refused->wait(30s);
  BOOST_REQUIRE(status.has_value());
  BOOST_TEST((status->exited && status->code == 1), status->describe());
  BOOST_TEST(refused->output().find("topic.creation.compacted.include") != std::string::npos,
             tail_lines(refused->output()));
}

BOOST_AUTO_TEST_CASE(file_source_kill9_at_least_once_counts_duplicates) {
  const size_t n = 1'000'000;
  Setup s;
  auto scan = file_source_with_kill(s, unique_name("file-src"), unique_name("weir-itest-file"), n);
  BOOST_TEST_MESSAGE("at-least-once after kill -9: " << scan.missing() << " missing, "
                                                     << scan.duplicates() << " duplicates");
  BOOST_TEST(scan.missing() == 0u);
  BOOST_TEST(scan.foreign == 0u);
  BOOST_TEST(scan.in_order);
}

BOOST_AUTO_TEST_CASE(file_source_kill9_exactly_once) {
  const size_t n = 1'000'000;
  Setup s{{{"exactly.once.source.support", "enabled"},
           {"offset.storage.topic", unique_name("weir-itest-offsets")}}};
  auto scan = file_source_with_kill(s, unique_name("file-eos"), unique_name("weir-itest-eos"), n);
  BOOST_TEST_MESSAGE("exactly-once after kill -9: " << scan.missing() << " missing, "
                                                    << scan.duplicates() << " duplicates");
  BOOST_TEST(scan.missing() == 0u);
  BOOST_TEST(scan.duplicates() == 0u);
  BOOST_TEST(scan.foreign == 0u);
  BOOST_TEST(scan.in_order);
}

BOOST_AUTO_TEST_CASE(jdbc_incrementing_picks_up_new_rows_and_restarts_without_resending) {
  Setup s;
  auto db_path = s.dir / "source.db";
  {
    std::ofstream touch(db_path);
  }
  Sqlite db(db_path);
  db.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL, qty INTEGER)");
  auto insert = [&](int from, int to) {
    db.exec("BEGIN");
    for (int i = from; i < to; ++i)
      db.exec("INSERT INTO orders VALUES (" + std::to_string(i) + ", 'item-" + std::to_string(i)
              + "', " + std::to_string(i % 7) + ")");
    db.exec("COMMIT");
  };
  insert(1, 101);
  auto prefix = unique_name("weir-itest-jdbc-") + "-";
  create_topic(prefix + "orders", 1);
  auto name = unique_name("jdbc-src");
  auto config = s.connector(name, {{"connector.class", "io.confluent.connect.jdbc.JdbcSourceConnector"},
                                   {"connection.url", "jdbc:sqlite:" + db_path},
                                   {"mode", "incrementing"},
                                   {"incrementing.column.name", "id"},
                                   {"topic.prefix", prefix},
                                   {"poll.interval.ms", "200"}});
  auto weir = start_standalone(s.worker, {config}, s.log);
  auto first = read_topic(prefix + "orders", 100, 60s, 0s);
  BOOST_TEST(first.size() == 100u);
  insert(101, 151); // while it runs
  auto more = read_topic(prefix + "orders", 150, 60s, 1s);
  BOOST_TEST(more.size() == 150u);
  BOOST_REQUIRE(!more.empty() && more.back().value);
  BOOST_TEST(*more.back().value == R"({"id":150,"item":"item-150","qty":3})");
  stop_cleanly(*weir);

  auto again = start_standalone(s.worker, {config}, s.log);
  insert(151, 161);
  auto all = read_topic(prefix + "orders", 160, 60s, 3s);
  std::set<std::string> distinct;
  for (const auto& r : all)
    distinct.insert(r.value.value_or(""));
  BOOST_TEST_MESSAGE("after a restart: " << all.size() << " records, " << distinct.size()
                                         << " distinct");
  BOOST_TEST(all.size() == 160u);
  BOOST_TEST(distinct.size() == 160u);
  stop_cleanly(*again);
}

BOOST_AUTO_TEST_CASE(a_slow_producer_does_not_grow_memory) {
  Setup s;
  auto topic = unique_name("weir-itest-slow");
  create_topic(topic, 1);
  auto name = unique_name("slow-datagen");
  // The producer may send one record per request and one request at a time: a few
  // thousand records/s, while datagen generates well over 100,000 records/s.
  auto weir = start_standalone(s.worker, {s.connector(name, {{"connector.class", "DatagenConnector"},
                                                             {"kafka.topic", topic},
                                                             {"quickstart", "users"},
                                                             {"max.interval", "0"},
                                                             {"producer.override.linger.ms", "0"},
                                                             {"producer.override.batch.size", "1"},
                                                             {"producer.override.max.in.flight.requests.per.connection", "1"}})},
                               s.log);
  // Bounded memory reaches its plateau early and stays there; unbounded buffering
  // (a poller running ahead of the producer) would climb the whole time.
  long peak = 0, early = 0, late = 0;
  auto t0 = Clock::now();
  while (seconds_since(t0) < 25) {
    auto kib = weir->rss_kib();
    BOOST_REQUIRE_MESSAGE(kib > 0, "weir ended: " << tail_lines(weir->output()));
    peak = std::max(peak, kib);
    if (seconds_since(t0) < 10)
      early = std::max(early, kib);
    else if (seconds_since(t0) > 15)
      late = std::max(late, kib);
    std::this_thread::sleep_for(100ms);
  }
  auto p = source_progress(weir->output(), name);
  BOOST_REQUIRE(!p.empty());
  BOOST_TEST_MESSAGE("slow producer: " << p.back().produced << " records in 25 s; RSS peak in "
                                       << "0-10 s " << early / 1024 << " MiB, in 15-25 s "
                                       << late / 1024 << " MiB, overall " << peak / 1024 << " MiB");
  BOOST_TEST(p.back().produced < 500'000u); // it really was slow
  BOOST_TEST(peak < 200 * 1024, "RSS peak " << peak / 1024 << " MiB");
  BOOST_TEST(late < early + 32 * 1024, "RSS grew from " << early / 1024 << " to " << late / 1024 << " MiB");
  stop_cleanly(*weir, 60s);
}

BOOST_AUTO_TEST_CASE(bad_input_fails_the_task_with_the_reason) {
  Setup s;
  auto db_path = s.dir / "empty.db";
  {
    std::ofstream touch(db_path);
  }
  Sqlite(db_path).exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
  std::string dir_file = s.dir.path(); // a directory is not a readable file
  auto file = unique_name("bad-file"), table = unique_name("bad-table"),
       column = unique_name("bad-column");
  auto weir = start_standalone(
    s.worker,
    {s.connector(file, file_source(dir_file, unique_name("weir-itest-bad"))),
     s.connector(table, {{"connector.class", "JdbcSourceConnector"},
                         {"connection.url", "jdbc:sqlite:" + db_path},
                         {"mode", "bulk"},
                         {"table.whitelist", "no_such_table"},
                         {"topic.prefix", "x-"}}),
     s.connector(column, {{"connector.class", "JdbcSourceConnector"},
                          {"connection.url", "jdbc:sqlite:" + db_path},
                          {"mode", "incrementing"},
                          {"incrementing.column.name", "no_such_column"},
                          {"table.whitelist", "t"},
                          {"topic.prefix", "x-"}})},
    s.log);
  auto failed_with = [&](const std::string& name, const std::string& text) {
    std::vector<TaskStatus> st;
    bool ok = wait_until(30s, 250ms, [&] {
      st = task_statuses(s.state, name);
      return !st.empty() && st[0].state == "FAILED";
    });
    BOOST_TEST(ok, name << " did not fail");
    if (ok)
      BOOST_TEST(st[0].trace.find(text) != std::string::npos, st[0].trace);
    BOOST_TEST(weir->output().find(text) != std::string::npos, "the log does not name " << text);
  };
  failed_with(file, "cannot read file '" + dir_file + "'");
  failed_with(table, "no_such_table");
  failed_with(column, "no_such_column");
  BOOST_TEST(weir->running());
  stop_cleanly(*weir);
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_key_before_anything_runs) {
  Setup s;
  auto expect = [&](std::map<std::string, std::string> config, const std::string& key) {
    auto weir = start_standalone(s.worker, {s.connector(unique_name("bad-config"), config)}, s.log);
    auto status = weir->wait(30s);
    BOOST_REQUIRE(status.has_value());
    BOOST_TEST(status->exited);
    BOOST_TEST(status->code == 1);
    BOOST_TEST(weir->output().find(key) != std::string::npos,
               "no mention of " << key << " in: " << tail_lines(weir->output(), 5));
  };
  expect({{"connector.class", "FileStreamSource"}, {"file", "/tmp/x"}, {"topic", "t"},
          {"batch.sise", "5"}},
         "did you mean \"batch.size\"");
  expect({{"connector.class", "DatagenConnector"}, {"kafka.topic", "t"}, {"quickstart", "stocks"}},
         "quickstart");
  // The JDBC source does not declare exactly-once support, and this worker has none.
  expect({{"connector.class", "JdbcSourceConnector"}, {"connection.url", "jdbc:sqlite:/tmp/x.db"},
          {"mode", "bulk"}, {"topic.prefix", "x-"}, {"exactly.once.support", "required"}},
         "exactly.once.support");
  expect({{"connector.class", "FileStreamSource"}, {"file", "/tmp/x"}, {"topic", "t"},
          {"transaction.boundary", "connector"}},
         "transaction.boundary");
}

BOOST_AUTO_TEST_SUITE_END()
