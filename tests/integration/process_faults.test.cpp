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
#include <string>
#include <thread>
#include <vector>

#include "tests/support/delivery_check.hpp"

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

constexpr size_t per_phase = 20000;
constexpr int32_t partitions = 6;

struct Counts {
  Tally table, file;
};

// What the table and the file hold of ids 0..n-1 (the table may not exist yet).
Counts count(const std::string& db, const std::string& file, size_t n) {
  return {sqlite_rows(db, "events") > 0 ? table_tally(db, "events", n) : Tally{n}, file_tally(file, n)};
}

// Waits until both sinks hold ids 0..n-1; fails the test if weir ends first.
Counts wait_for(const std::string& db, const std::string& file, size_t n, ChildProcess& weir) {
  Counts c{Tally{n}, Tally{n}};
  bool done = wait_until(90s, 500ms, [&] {
    c = count(db, file, n);
    return !weir.running() || (c.table.missing() == 0 && c.file.missing() == 0);
  });
  BOOST_REQUIRE_MESSAGE(weir.running(), "weir standalone ended: " << tail_lines(weir.output()));
  BOOST_TEST_MESSAGE("table: " << c.table.describe() << "; file: " << c.file.describe());
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
  write_properties(dir / "jdbc.properties", sqlite_sink_config(jdbc_name, topic, db, "events", 3));
  const std::vector<std::string> connectors{dir / "file.properties", dir / "jdbc.properties"};
  auto weir = start_standalone(dir / "worker.properties", connectors, dir / "weir.log");

  // Frozen for 15 s, past the 10 s session timeout, while records keep coming: the
  // group moves on without it, and it must rejoin and read every partition again.
  produce_users(topic, 0, per_phase, partitions);
  wait_until(60s, 200ms, [&] { return !weir->running() || sqlite_rows(db, "events") >= 5000; });
  weir->signal(SIGSTOP);
  std::thread during([&] { produce_users(topic, per_phase, per_phase, partitions); });
  std::this_thread::sleep_for(15s);
  during.join();
  weir->signal(SIGCONT);
  auto c = wait_for(db, file, 2 * per_phase, *weir);
  BOOST_TEST((c.table.duplicates() == 0 && c.table.foreign == 0), "after the freeze: " << c.table.describe());

  // SIGTERM, and SIGKILL while it drains with records in flight; then weir again.
  std::thread more([&] { produce_users(topic, 2 * per_phase, per_phase, partitions); });
  std::this_thread::sleep_for(300ms);
  weir->signal(SIGTERM);
  std::this_thread::sleep_for(100ms);
  weir->signal(SIGKILL);
  weir->wait(10s);
  more.join();
  auto again = start_standalone(dir / "worker.properties", connectors, dir / "weir-again.log");
  c = wait_for(db, file, 3 * per_phase, *again);
  BOOST_TEST((c.table.duplicates() == 0 && c.table.foreign == 0), "after the kill: " << c.table.describe());
  stop_cleanly(*again);
  if (current_test_failing())
    dir.keep();
}

BOOST_AUTO_TEST_SUITE_END()
