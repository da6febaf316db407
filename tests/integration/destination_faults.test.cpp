// The destination stalls (issue 20, "What it must show" item 3), under `weir
// standalone` on the shared broker:
//  - a JDBC sink's SQLite database locked by another process (the sqlite3 CLI holding
//    BEGIN EXCLUSIVE) for 30 s while records flow: the write waits for the lock (its
//    busy timeout is 30 s) or fails with "database is locked" and the task restarts;
//  - a FileStreamSink on a small tmpfs that the test mounts and fills (a ballast file)
//    while records flow, then frees: with errors.retry.timeout=-1 the writer retries
//    "No space left on device" until there is room; with the defaults the task fails
//    with that reason and restarts on its own (task.restart.*) once there is room.
// In both, nothing is lost (the table exactly once, the file at least once with no
// torn or fused line), every task is RUNNING in the end, and weir's RSS sampled
// during the stall stays below the memory bound the credit settings give (below).
//
// The bound. While the destination stalls, what weir may hold beyond its steady
// state is, per sink task (one hop, consumer -> writer; actors/sink_task_actor.hpp):
//  - the writer's credit, 2 batches of at most 8 MiB, plus the batch the consumer is
//    filling: 3 x 8 MiB, counted twice (the raw bytes and their decoded values);
//  - librdkafka's prefetch, queued.min.messages = 20,000 records
//    (runtime/kafka/consumer.cpp), each ~1.1 KB here, plus one fetch buffer
//    (max.partition.fetch.bytes, 512 KiB) per partition;
//  - 16 MiB of allocator slack (freed memory glibc keeps).
// So the bound is the RSS just before the stall plus 3 x 8 x 2 + 22 + 0.5 x partitions
// + 16 MiB (~87 MiB for one task and two partitions). The backlog produced during
// the stall (150 MB of records) is larger than that: were consumption not paused by
// credit, RSS would pass the bound.
#include "tests/support/delivery_check.hpp"
#include "tests/support/kafka_tools.hpp"
#include "tests/support/process.hpp"
#include "tests/support/rss_sampler.hpp"

#include <boost/test/unit_test.hpp>

#include <sys/mount.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

constexpr size_t pad_bytes = 1000;
constexpr int32_t partitions = 2;

/// The memory bound of the header comment, in KiB, for one task.
long stall_bound_kib(long before_kib, size_t record_bytes) {
  const long credit = 3 * 8 * 2 * 1024;                                   // 3 batches x 8 MiB, raw + decoded
  const long prefetch = static_cast<long>(20000 * record_bytes / 1024) + partitions * 512;
  const long slack = 16 * 1024;
  return before_kib + credit + prefetch + slack;
}

/// user_json with a ~1 KB "pad" field, so that the stall's backlog outweighs the bound.
std::string padded_json(size_t id) {
  auto v = user_json(id);
  v.pop_back();
  return v + R"(,"pad":")" + std::string(pad_bytes, 'p') + "\"}";
}

void produce_padded(const std::string& topic, size_t first, size_t n) {
  produce(topic, n, [&](size_t i) {
    auto id = first + i;
    return OutRecord{static_cast<int32_t>(id % partitions), std::to_string(id), padded_json(id)};
  });
}

/// True when another connection holds `db`'s write lock: BEGIN IMMEDIATE, without
/// waiting, is refused as busy.
bool write_locked(const std::string& db) {
  sqlite3* c = nullptr;
  if (sqlite3_open_v2(db.c_str(), &c, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close(c);
    return false;
  }
  sqlite3_busy_timeout(c, 0);
  int rc = sqlite3_exec(c, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) sqlite3_exec(c, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(c);
  return rc == SQLITE_BUSY;
}

/// The distinct (state, trace) pairs a connector's tasks showed, sampled in the background.
class StatusWatch {
public:
  StatusWatch(std::string state_db, std::string connector)
    : thread_([this, state_db = std::move(state_db), connector = std::move(connector)] {
        while (!stop_) {
          for (const auto& t : task_statuses(state_db, connector)) {
            std::lock_guard lock{mutex_};
            seen_.insert(t.state + (t.trace.empty() ? "" : ": " + t.trace.substr(0, 300)));
          }
          std::this_thread::sleep_for(200ms);
        }
      }) {}
  ~StatusWatch() {
    stop_ = true;
    thread_.join();
  }
  std::set<std::string> seen() {
    std::lock_guard lock{mutex_};
    return seen_;
  }

private:
  std::mutex mutex_;
  std::set<std::string> seen_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// Fails the test unless every FAILED status seen names `reason`; logs them all.
void check_failures_name(const std::set<std::string>& seen, const std::string& reason) {
  for (const auto& s : seen) {
    BOOST_TEST_MESSAGE("  task status seen: " << s);
    if (s.starts_with("FAILED"))
      BOOST_TEST(s.find(reason) != std::string::npos, "a failure that does not say '" << reason << "': " << s);
  }
}

struct Keep {
  TempDir& d;
  ~Keep() {
    if (current_test_failing()) d.keep();
  }
};

void require_all_running(const std::string& state, const std::string& connector) {
  auto status = task_statuses(state, connector);
  BOOST_TEST_MESSAGE(connector << " tasks in the end:" << describe(status));
  BOOST_TEST(!status.empty());
  for (const auto& t : status)
    BOOST_TEST(t.state == "RUNNING", connector << " task " << t.task << " " << t.state << ": " << t.trace);
}

/// Once the destination is back: waits (180 s at most) until `arrived()`, a little
/// longer for a replay to show, then requires that every FAILED status seen named
/// `reason`, that every task is RUNNING, and that weir stops cleanly.
void recover(ChildProcess& weir, const std::string& state, const std::string& name, StatusWatch& statuses,
             const std::string& reason, const std::function<bool()>& arrived, const std::function<std::string()>& have) {
  auto t0 = Clock::now();
  bool all = wait_until(180s, 500ms, [&] { return !weir.running() || arrived(); });
  auto took = seconds_since(t0);
  BOOST_REQUIRE_MESSAGE(all && weir.running(), "after the stall: " << have() << describe(task_statuses(state, name))
                                                                   << "\n" << tail_lines(weir.output()));
  BOOST_TEST_MESSAGE("every record arrived " << took << " s after the stall ended");
  std::this_thread::sleep_for(2s); // a replay, if any, would show now
  check_failures_name(statuses.seen(), reason);
  require_all_running(state, name);
  stop_cleanly(weir, 30s);
}

/// A tmpfs of `size` mounted on a fresh directory; unmounted (lazily if busy) at scope end.
class Tmpfs {
public:
  Tmpfs(const std::string& dir, const std::string& size) : dir_(dir) {
    BOOST_REQUIRE_MESSAGE(::mkdir(dir.c_str(), 0700) == 0, "mkdir " << dir << ": " << std::strerror(errno));
    std::string options = "size=" + size + ",mode=0700";
    mounted_ = ::mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) == 0;
    BOOST_REQUIRE_MESSAGE(mounted_, "cannot mount a " << size << " tmpfs on " << dir << " (the test needs root): "
                                                      << std::strerror(errno));
  }
  ~Tmpfs() {
    if (mounted_ && ::umount2(dir_.c_str(), 0) != 0)
      ::umount2(dir_.c_str(), MNT_DETACH);
  }
  Tmpfs(const Tmpfs&) = delete;
  Tmpfs& operator=(const Tmpfs&) = delete;

private:
  std::string dir_;
  bool mounted_ = false;
};

/// Writes `path` until the filesystem is full or it holds `bytes`; returns the bytes written.
size_t fill(const std::string& path, size_t bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  BOOST_REQUIRE_MESSAGE(f, "cannot create " << path << ": " << std::strerror(errno));
  std::string block(1 << 16, 'b');
  size_t written = 0;
  while (written < bytes) {
    auto n = std::fwrite(block.data(), 1, std::min(block.size(), bytes - written), f);
    written += n;
    if (n == 0 || std::fflush(f) != 0) break;
  }
  std::fclose(f);
  return written;
}


/// How the file sink meets the full disk: retrying the write (errors.retry.timeout=-1)
/// for 20 s, or (the defaults) failing its task, which restarts on its own.
enum class OnFull { Wait, Fail };

/// A FileStreamSink on a 64 MiB tmpfs holding 56 MiB of ballast: it fills the rest,
/// stalls (`how`), the ballast goes, and every record must arrive, no line torn.
void full_disk_case(OnFull how) {
  const size_t before = 2000, during = 40000, n = before + during;
  const bool wait = how == OnFull::Wait;
  TempDir dir{"weir-itest-disk-full"};
  Keep keep{dir};
  Tmpfs disk{dir / "disk", "64m"};
  auto topic = unique_name("weir-itest-full");
  auto name = unique_name("full-file");
  auto file = dir / "disk/out.txt", ballast = dir / "disk/ballast", state = dir / "state.db";
  // 56 MiB of 64 leaves room for ~8,000 records: the sink fills the rest.
  BOOST_REQUIRE_EQUAL(fill(ballast, size_t{56} << 20), size_t{56} << 20);
  create_topic(topic, partitions);
  produce_padded(topic, 0, before);

  write_properties(dir / "worker.properties", worker_config(state));
  std::map<std::string, std::string> connector{
    {"name", name}, {"connector.class", "FileStreamSink"}, {"tasks.max", "1"}, {"topics", topic}, {"file", file}};
  if (wait) {
    connector["errors.retry.timeout"] = "-1";
    connector["errors.retry.delay.max.ms"] = "2000";
  }
  write_properties(dir / "file.properties", connector);
  auto weir = start_standalone(dir / "worker.properties", {dir / "file.properties"}, dir / "weir.log");
  bool first = wait_until(120s, 500ms, [&] { return !weir->running() || file_tally(file, n, pad_bytes).distinct() >= before; });
  BOOST_REQUIRE_MESSAGE(first && weir->running(), "the first records did not arrive:\n" << tail_lines(weir->output()));
  RssSampler rss(*weir);
  std::this_thread::sleep_for(2s);
  const long before_kib = rss.take_phase_peak();
  const long bound_kib = stall_bound_kib(before_kib, padded_json(0).size() + 40);

  StatusWatch statuses{state, name};
  produce_padded(topic, before, during);
  const std::string reason = "No space left on device";
  auto failed = [&] {
    auto seen = statuses.seen();
    return std::any_of(seen.begin(), seen.end(), [&](const std::string& s) {
      return s.starts_with("FAILED") && s.find(reason) != std::string::npos;
    });
  };
  // Waiting: the write is retried (its warnings name the reason) and the task stays
  // RUNNING. Failing: the task shows FAILED with the reason, then restarts (1 s, 2 s,
  // 4 s later: task.restart.*), so space comes back right after it is seen.
  bool full = wait_until(60s, 100ms, [&] {
    return !weir->running() || (wait ? weir->output().find(reason) != std::string::npos : failed());
  });
  BOOST_REQUIRE_MESSAGE(full && weir->running(), "the sink never " << (wait ? "retried" : "failed") << " on the full disk:\n"
                                                                   << tail_lines(weir->output()));
  auto t_full = Clock::now();
  auto lines_full = file_tally(file, n, pad_bytes).distinct();
  while (wait && Clock::now() - t_full < 20s) {
    BOOST_REQUIRE_MESSAGE(weir->running(), "weir ended on a full disk:\n" << tail_lines(weir->output()));
    std::this_thread::sleep_for(500ms);
  }
  auto lines_after = file_tally(file, n, pad_bytes).distinct();
  auto stall_peak = rss.take_phase_peak();
  BOOST_TEST_MESSAGE("disk full for " << seconds_since(t_full) << " s with " << lines_full << " then " << lines_after
                                      << " records in the file; RSS before " << before_kib / 1024
                                      << " MiB, peak during " << stall_peak / 1024 << " MiB, bound "
                                      << bound_kib / 1024 << " MiB");
  BOOST_TEST(lines_after < n, "every record fit: the disk was never full");
  BOOST_TEST(stall_peak < bound_kib, "RSS " << stall_peak / 1024 << " MiB during the stall, bound "
                                            << bound_kib / 1024 << " MiB");

  BOOST_REQUIRE_MESSAGE(::unlink(ballast.c_str()) == 0, "rm " << ballast << ": " << std::strerror(errno));
  recover(*weir, state, name, statuses, reason, [&] { return file_tally(file, n, pad_bytes).missing() == 0; },
          [&] { return "the file has " + file_tally(file, n, pad_bytes).describe(); });
  if (wait)
    BOOST_TEST(!failed(), "the task failed although errors.retry.timeout=-1");
  auto tally = file_tally(file, n, pad_bytes);
  BOOST_TEST_MESSAGE("file: " << tally.describe());
  BOOST_TEST(tally.missing() == 0u);
  BOOST_TEST(tally.foreign == 0u, "torn or fused lines in the file");
}

} // namespace

BOOST_AUTO_TEST_SUITE(destination_faults)

BOOST_AUTO_TEST_CASE(sqlite_locked_30_s_by_another_process_loses_nothing_and_memory_stays_bounded) {
  const size_t before = 10000, during = 150000, n = before + during;
  TempDir dir{"weir-itest-sqlite-locked"};
  Keep keep{dir};
  auto topic = unique_name("weir-itest-locked");
  auto name = unique_name("locked-jdbc");
  auto db = dir / "sink.db", state = dir / "state.db";
  const std::string table = "locked_rows";
  create_topic(topic, partitions);
  produce_padded(topic, 0, before);

  write_properties(dir / "worker.properties", worker_config(state));
  write_properties(dir / "jdbc.properties", sqlite_sink_config(name, topic, db, table, 1));
  auto weir = start_standalone(dir / "worker.properties", {dir / "jdbc.properties"}, dir / "weir.log");
  auto rows = [&] { return sqlite_rows(db, table); };
  bool first = wait_until(120s, 250ms, [&] { return !weir->running() || rows() >= static_cast<int64_t>(before); });
  BOOST_REQUIRE_MESSAGE(first && weir->running(), "the first records did not arrive:\n" << tail_lines(weir->output()));
  RssSampler rss(*weir);
  std::this_thread::sleep_for(2s);
  const long before_kib = rss.take_phase_peak();
  const long bound_kib = stall_bound_kib(before_kib, padded_json(0).size() + 40);

  // Another process takes SQLite's write lock and holds it for 30 s.
  const char* sqlite3 = std::getenv("WEIR_SQLITE3");
  BOOST_REQUIRE_MESSAGE(sqlite3 && *sqlite3, "WEIR_SQLITE3 is not set (meson test sets it)");
  // (.timeout: weir may hold the lock for a moment when BEGIN EXCLUSIVE comes.)
  ChildProcess locker({sqlite3, db, ".timeout 10000", "BEGIN EXCLUSIVE;", ".shell sleep 30", "COMMIT;"},
                      dir / "locker.log");
  bool locked = wait_until(15s, 50ms, [&] { return !locker.running() || write_locked(db); });
  BOOST_REQUIRE_MESSAGE(locked && locker.running(), "sqlite3 did not take the lock: " << locker.output());
  auto t_lock = Clock::now();
  StatusWatch statuses{state, name};
  const int64_t rows_locked = rows();
  produce_padded(topic, before, during);
  int64_t most_during = rows_locked;
  while (locker.running()) {
    BOOST_REQUIRE_MESSAGE(weir->running(), "weir ended while the database was locked:\n" << tail_lines(weir->output()));
    most_during = std::max(most_during, rows());
    std::this_thread::sleep_for(500ms);
  }
  auto held = seconds_since(t_lock);
  auto stall_peak = rss.take_phase_peak();
  BOOST_TEST_MESSAGE("lock held " << held << " s; RSS before " << before_kib / 1024 << " MiB, peak during "
                                  << stall_peak / 1024 << " MiB, bound " << bound_kib / 1024 << " MiB");
  BOOST_TEST(most_during == rows_locked, "rows went from " << rows_locked << " to " << most_during
                                                           << " while the database was locked");
  BOOST_TEST(stall_peak < bound_kib, "RSS " << stall_peak / 1024 << " MiB during the stall, bound "
                                            << bound_kib / 1024 << " MiB");

  recover(*weir, state, name, statuses, "locked", [&] { return rows() >= static_cast<int64_t>(n); },
          [&] { return std::to_string(rows()) + " rows of " + std::to_string(n); });
  auto tally = table_tally(db, table, n);
  BOOST_TEST_MESSAGE("table: " << tally.describe());
  BOOST_TEST(tally.missing() == 0u);
  BOOST_TEST(tally.duplicates() == 0u);
  BOOST_TEST(tally.foreign == 0u);
}

BOOST_AUTO_TEST_CASE(file_sink_on_a_full_disk_waits_until_space_is_freed_and_loses_nothing) {
  full_disk_case(OnFull::Wait);
}

BOOST_AUTO_TEST_CASE(file_sink_on_a_full_disk_fails_restarts_once_space_is_freed_and_loses_nothing) {
  full_disk_case(OnFull::Fail);
}

BOOST_AUTO_TEST_SUITE_END()
