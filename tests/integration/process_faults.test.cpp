// weir itself under faults (issue 20): frozen (SIGSTOP) for longer than its consumers'
// session timeout, then resumed; and SIGKILLed while it drains after a SIGTERM, then
// started again on its state. Records flow all along. One `weir standalone` runs an
// at-least-once FileStreamSink (3 tasks) and an exactly-once JDBC sink into SQLite
// (insert mode, no keys: only the offsets stored with the rows keep it exact) on the
// same 6 partitions. At the end the table holds every record once, and the file every
// record at least once (duplicates are counted and reported); no partition is left
// unconsumed.
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/kafka_tools.hpp"

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

constexpr size_t per_phase = 20000;
constexpr int32_t partitions = 6;

std::string value(size_t id) { return R"({"id":)" + std::to_string(id) + R"(,"name":"user-)" + std::to_string(id) + R"("})"; }

void produce_range(const std::string& topic, size_t from, size_t count) {
  produce(topic, count, [&](size_t i) {
    size_t id = from + i;
    return OutRecord{static_cast<int32_t>(id % partitions), std::to_string(id), value(id)};
  }, 500);
}

struct Counts {
  int64_t rows = -1, distinct = -1;
  size_t file_missing = 0, file_duplicates = 0;
};

// The table's rows and distinct ids, and the file's missing and repeated ids among 0..n-1.
Counts count(const std::string& db, const std::string& file, size_t n) {
  Counts c;
  if (std::filesystem::exists(db)) {
    Sqlite sql(db);
    std::vector<std::vector<std::string>> rows;
    if (sql.try_query("SELECT count(*), count(DISTINCT id) FROM events", rows).empty() && !rows.empty()) {
      c.rows = std::stoll(rows[0][0]);
      c.distinct = std::stoll(rows[0][1]);
    }
  }
  std::vector<uint32_t> seen(n, 0);
  std::string text = read_file(file);
  size_t from = 0;
  for (size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1) {
    // `{id=N, name=user-N}`
    size_t id = std::strtoull(text.c_str() + from + 4, nullptr, 10);
    if (text.compare(from, 4, "{id=") == 0 && id < n)
      ++seen[id];
  }
  for (auto s : seen) {
    c.file_missing += s == 0;
    c.file_duplicates += s > 1 ? s - 1 : 0;
  }
  return c;
}

// Waits until both sinks hold ids 0..n-1; fails the test if weir ends first.
Counts wait_for(const std::string& db, const std::string& file, size_t n, ChildProcess& weir) {
  Counts c;
  bool done = wait_until(90s, 500ms, [&] {
    c = count(db, file, n);
    return !weir.running() || (c.distinct == static_cast<int64_t>(n) && c.file_missing == 0);
  });
  BOOST_REQUIRE_MESSAGE(weir.running(), "weir standalone ended: " << tail_lines(weir.output()));
  BOOST_TEST_MESSAGE("table: " << c.rows << " rows, " << c.distinct << " ids; file: " << c.file_missing
                               << " missing, " << c.file_duplicates << " duplicates (of " << n << ")");
  BOOST_TEST(done, "not every record arrived within 90 s:\n" << tail_lines(weir.output()));
  return c;
}

} // namespace

BOOST_AUTO_TEST_SUITE(process_faults)

BOOST_AUTO_TEST_CASE(frozen_past_the_session_timeout_and_killed_mid_drain_lose_nothing) {
  TempDir dir{"weir-itest-process"};
  auto topic = unique_name("weir-itest-process");
  create_topic(topic, partitions);
  const std::string db = dir / "sink.db", file = dir / "out.txt";
  auto worker = worker_config(dir / "state.db"); // consumer.session.timeout.ms=10000
  write_properties(dir / "worker.properties", worker);
  auto file_name = unique_name("process-file"), jdbc_name = unique_name("process-jdbc");
  write_properties(dir / "file.properties", {{"name", file_name},
                                             {"connector.class", "FileStreamSink"},
                                             {"tasks.max", "3"},
                                             {"topics", topic},
                                             {"file", file}});
  write_properties(dir / "jdbc.properties", {{"name", jdbc_name},
                                             {"connector.class", "io.confluent.connect.jdbc.JdbcSinkConnector"},
                                             {"tasks.max", "3"},
                                             {"topics", topic},
                                             {"connection.url", "jdbc:sqlite:" + db},
                                             {"table.name.format", "events"},
                                             {"insert.mode", "insert"},
                                             {"pk.mode", "none"},
                                             {"auto.create", "true"}});
  const std::vector<std::string> connectors{dir / "file.properties", dir / "jdbc.properties"};
  auto weir = start_standalone(dir / "worker.properties", connectors, dir / "weir.log");

  // Frozen for 15 s, past the 10 s session timeout, while records keep coming: the
  // group moves on without it, and it must rejoin and read every partition again.
  produce_range(topic, 0, per_phase);
  wait_until(60s, 200ms, [&] { return !weir->running() || count(db, file, per_phase).rows >= 5000; });
  weir->signal(SIGSTOP);
  std::thread during([&] { produce_range(topic, per_phase, per_phase); });
  std::this_thread::sleep_for(15s);
  during.join();
  weir->signal(SIGCONT);
  auto c = wait_for(db, file, 2 * per_phase, *weir);
  BOOST_TEST(c.rows == static_cast<int64_t>(2 * per_phase), "the table holds a record twice after the freeze");

  // SIGTERM, and SIGKILL while it drains with records in flight; then weir again.
  std::thread more([&] { produce_range(topic, 2 * per_phase, per_phase); });
  std::this_thread::sleep_for(300ms);
  weir->signal(SIGTERM);
  std::this_thread::sleep_for(100ms);
  weir->signal(SIGKILL);
  weir->wait(10s);
  more.join();
  auto again = start_standalone(dir / "worker.properties", connectors, dir / "weir-again.log");
  c = wait_for(db, file, 3 * per_phase, *again);
  BOOST_TEST(c.rows == static_cast<int64_t>(3 * per_phase), "the table holds a record twice after the kill");
  stop_cleanly(*again);
  if (current_test_failing())
    dir.keep();
}

BOOST_AUTO_TEST_SUITE_END()
