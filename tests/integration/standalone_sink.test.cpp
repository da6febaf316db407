// `weir standalone` end to end with FileStreamSink against the real broker (issue 3,
// "What it must show"): the weir binary runs as a child process, the test produces
// into fresh topics, reads the sink's file, the dead-letter topic, the consumer
// group's committed offsets and the task status in the standalone state file.
//
//  - tasks.max=10 on a 5-partition topic: every record delivered, 5 tasks idle and
//    reported idle, the log recommends tasks.max <= partitions;
//  - errors.tolerance=all: malformed JSON goes to the dead-letter topic with the
//    __connect.errors.* headers, every good record is written;
//  - errors.tolerance=none: the task is FAILED with the reason as trace, and nothing
//    past the bad record is written or committed;
//  - kill -9 mid-stream and a restart: every record in the file at least once.
#include "tests/support/kafka_tools.hpp"
#include "tests/support/process.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

/// A schemaless JSON user record; FileStreamSink writes it as Java's Map.toString:
/// `{id=I, name=user-I, amount=A}`.
std::string user_json(size_t id) {
  return R"({"id":)" + std::to_string(id) + R"(,"name":"user-)" + std::to_string(id)
         + R"(","amount":)" + std::to_string(id % 1000) + ".5}";
}

std::string user_line(size_t id) {
  return "{id=" + std::to_string(id) + ", name=user-" + std::to_string(id)
         + ", amount=" + std::to_string(id % 1000) + ".5}";
}

/// What the sink's file holds: how often each id occurs.
struct FileScan {
  std::vector<uint32_t> count;  ///< per id
  size_t lines = 0;
  size_t torn = 0;              ///< lines holding a partial record (a crash mid-write)
  size_t foreign = 0;           ///< lines that are not a user record with id < n
  std::string first_foreign;

  size_t missing() const { return static_cast<size_t>(std::count(count.begin(), count.end(), 0u)); }
  size_t duplicates() const {
    size_t d = 0;
    for (auto c : count)
      d += c > 1 ? c - 1 : 0;
    return d;
  }
  size_t present() const { return count.size() - missing(); }
};

/// Reads the file and counts ids 0..n-1. A line is checked against the exact text
/// Kafka Connect's FileStreamSink writes. After a kill -9, a line may start with the
/// torn remains of a record written partially; the complete record at its end counts.
FileScan scan_file(const std::string& path, size_t n) {
  FileScan s;
  s.count.assign(n, 0);
  auto text = read_file(path);
  std::string_view rest = text;
  while (!rest.empty()) {
    auto nl = rest.find('\n');
    if (nl == std::string_view::npos)
      break; // a last partial line (being written): not a record yet
    auto line = rest.substr(0, nl);
    rest.remove_prefix(nl + 1);
    ++s.lines;
    auto at = line.rfind("{id=");
    if (at != 0 && at != std::string_view::npos)
      ++s.torn;
    size_t id = 0;
    bool ok = at != std::string_view::npos;
    if (ok) {
      auto rec = line.substr(at);
      auto num = rec.substr(4);
      auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), id);
      ok = ec == std::errc{} && id < n && rec == user_line(id);
    }
    if (!ok) {
      if (s.foreign++ == 0)
        s.first_foreign = std::string{line};
      continue;
    }
    ++s.count[id];
  }
  return s;
}

size_t count_lines(const std::string& path) {
  auto text = read_file(path);
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

/// A fresh directory with the worker's properties; `connector` adds a connector file.
struct Setup {
  TempDir dir{"weir-itest-standalone"};
  std::string state = dir / "state.db";
  std::string worker = dir / "worker.properties";
  std::string log = dir / "weir.log";

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
};

std::map<std::string, std::string> file_sink(const std::string& topic, const std::string& file,
                                             int tasks_max) {
  return {{"connector.class", "org.apache.kafka.connect.file.FileStreamSinkConnector"},
          {"tasks.max", std::to_string(tasks_max)},
          {"topics", topic},
          {"file", file}};
}

/// Waits until the file holds every id 0..n-1 at least once, or until `timeout`, or
/// until the file stopped growing for 20 s (records are missing and will not come).
FileScan wait_for_all(const std::string& file, size_t n, std::chrono::seconds timeout,
                      ChildProcess& weir) {
  FileScan scan;
  uintmax_t last_size = 0;
  auto last_change = Clock::now();
  bool complete = wait_until(timeout, 500ms, [&] {
    if (!weir.running())
      return true;
    std::error_code ec;
    auto size = std::filesystem::file_size(file, ec);
    if (ec)
      size = 0;
    if (size != last_size) {
      last_size = size;
      last_change = Clock::now();
    }
    if (count_lines(file) >= n) {
      scan = scan_file(file, n);
      if (scan.missing() == 0)
        return true;
    }
    return size > 0 && Clock::now() - last_change > 20s;
  });
  scan = scan_file(file, n);
  BOOST_REQUIRE_MESSAGE(weir.running(), "weir standalone ended early: "
                                          << (weir.status() ? weir.status()->describe() : "")
                                          << "\n" << tail_lines(weir.output()));
  BOOST_TEST_MESSAGE("file: " << scan.lines << " lines, " << scan.present() << " of " << n
                              << " records, " << scan.foreign << " malformed line(s)"
                              << (complete && scan.missing() > 0 ? " (stopped growing)" : ""));
  return scan;
}

} // namespace

BOOST_AUTO_TEST_SUITE(standalone_sink)

// Issue 3, item 4: the seed's partition bottleneck. tasks.max=10 on 5 partitions:
// 5 tasks get partitions, 5 are idle and say so; every record is delivered.
BOOST_AUTO_TEST_CASE(ten_tasks_on_five_partitions_five_idle_every_record_delivered) {
  const size_t n = 200000;
  Setup s;
  auto topic = unique_name("weir-itest-idle");
  auto name = unique_name("idle-sink");
  create_topic(topic, 5);
  produce(topic, n, [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 5), "user-" + std::to_string(i), user_json(i)};
  });
  auto file = s.dir / "out.txt";
  auto weir = start_standalone(s.worker, {s.connector(name, file_sink(topic, file, 10))}, s.log);
  auto t0 = Clock::now();

  auto scan = wait_for_all(file, n, 180s, *weir);
  BOOST_TEST_MESSAGE("waited " << seconds_since(t0) << " s for the file; duplicates "
                               << scan.duplicates());
  BOOST_TEST(scan.missing() == 0u, scan.missing() << " of " << n << " records missing");
  BOOST_TEST(scan.foreign == 0u, scan.foreign << " malformed line(s), the first: " << scan.first_foreign);

  // Status: 10 tasks, 5 idle (RUNNING, with the idle note), 5 with partitions, none
  // failed; in the state file and in the progress line.
  auto status = wait_for_idle_tasks(s.state, name, 10, 5, 30s);
  int idle = 0, busy = 0;
  for (const auto& t : status) {
    BOOST_TEST(t.state == "RUNNING", "task " << t.task << " is " << t.state << ": " << t.trace);
    if (t.trace.empty()) {
      ++busy;
    } else {
      ++idle;
      BOOST_TEST(t.trace.find("idle") != std::string::npos, "task " << t.task << ": " << t.trace);
      // The issue: "the task status says so (with the partition count)".
      BOOST_TEST(t.trace.find("5 partition") != std::string::npos,
                 "idle task " << t.task << "'s status does not name the partition count (5): "
                              << t.trace);
    }
  }
  BOOST_TEST(idle == 5);
  BOOST_TEST(busy == 5);

  // The progress line, once it caught up with the file: everything written, no lag.
  std::vector<Progress> lines;
  bool caught_up = wait_until(30s, 500ms, [&] {
    lines = progress_lines(weir->output(), name);
    return !lines.empty() && lines.back().written >= n && lines.back().lag == 0;
  });
  BOOST_REQUIRE_MESSAGE(!lines.empty(), "no progress line for " << name << ":\n"
                                                                << tail_lines(weir->output()));
  BOOST_TEST(caught_up, "the progress line did not catch up: " << tail_lines(weir->output(), 3));
  const auto& last = lines.back();
  BOOST_TEST(last.tasks == 10);
  BOOST_TEST(last.idle == 5);
  BOOST_TEST(last.failed == 0);
  BOOST_TEST(last.errors == 0u);
  BOOST_TEST(last.written >= n);
  BOOST_TEST(last.lag == 0);

  // The log recommends tasks.max <= partitions, up front.
  auto out = weir->output();
  // The consumers joined one after the other (pipeline::JoinGate): the first
  // assignment in the group gave one consumer every partition, so records flowed
  // before the others joined, instead of a generation broken by their joins.
  auto first = out.find("adding newly assigned partitions: ");
  BOOST_REQUIRE_MESSAGE(first != std::string::npos, "no assignment logged in:\n" << tail_lines(out));
  auto assigned = out.substr(first, out.find('\n', first) - first);
  BOOST_TEST(std::count(assigned.begin(), assigned.end(), ',') == 4, "the first assignment: " << assigned);
  BOOST_TEST(out.find("tasks.max=10 but its topics have 5 partition(s)") != std::string::npos,
             "no partition-bottleneck warning in:\n" << tail_lines(out));
  BOOST_TEST(out.find("tasks.max <= 5") != std::string::npos);

  stop_cleanly(*weir);
  // After the clean stop the file is final: still every record, duplicates reported.
  scan = scan_file(file, n);
  BOOST_TEST(scan.missing() == 0u);
  BOOST_TEST_MESSAGE("final file: " << scan.lines << " lines, duplicates " << scan.duplicates());
}

// Issue 3, item 3 (errors.tolerance=all): malformed JSON goes to the dead-letter
// topic with Kafka Connect's context headers; every good record is written.
BOOST_AUTO_TEST_CASE(tolerance_all_sends_malformed_json_to_the_dlq_with_context_headers) {
  const size_t n = 6000;
  Setup s;
  auto topic = unique_name("weir-itest-dlq-src");
  auto dlq = unique_name("weir-itest-dlq");
  auto name = unique_name("dlq-sink");
  create_topic(topic, 3);
  // Record i goes to partition i % 3, so its offset there is i / 3 (fresh topic).
  const std::vector<std::string> malformed{R"({"id":)", "not json at all", R"({"id": 12 "name": "x"})",
                                           R"({"id":1,"name":"unterminated)", "{]"};
  auto is_bad = [](size_t i) { return i % 97 == 13; };
  std::map<std::pair<int32_t, int64_t>, std::string> bad; // (partition, offset) -> value
  size_t good = 0;
  for (size_t i = 0; i < n; ++i) {
    if (is_bad(i))
      bad[{static_cast<int32_t>(i % 3), static_cast<int64_t>(i / 3)}] = malformed[i % malformed.size()];
    else
      ++good;
  }
  produce(topic, n, [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 3), "key-" + std::to_string(i),
                     is_bad(i) ? malformed[i % malformed.size()] : user_json(i)};
  });
  auto config = file_sink(topic, s.dir / "out.txt", 1);
  config["errors.tolerance"] = "all";
  config["errors.log.enable"] = "true";
  config["errors.log.include.messages"] = "true";
  config["errors.deadletterqueue.topic.name"] = dlq;
  config["errors.deadletterqueue.topic.replication.factor"] = "1";
  config["errors.deadletterqueue.context.headers.enable"] = "true";
  auto weir = start_standalone(s.worker, {s.connector(name, config)}, s.log);
  auto file = s.dir / "out.txt";

  bool all_good = wait_until(120s, 500ms, [&] { return !weir->running() || count_lines(file) >= good; });
  BOOST_REQUIRE_MESSAGE(weir->running(), "weir standalone ended: " << tail_lines(weir->output()));
  BOOST_REQUIRE_MESSAGE(all_good, "only " << count_lines(file) << " of " << good
                                          << " good records written; output:\n"
                                          << tail_lines(weir->output()));
  auto dead = read_topic(dlq, bad.size(), 60s);

  // Every good record in the file, no bad one.
  auto scan = scan_file(file, n);
  for (size_t i = 0; i < n; ++i)
    if (is_bad(i))
      BOOST_TEST(scan.count[i] == 0u, "malformed record " << i << " reached the file");
    else if (scan.count[i] == 0)
      BOOST_TEST(false, "good record " << i << " is missing from the file");
  BOOST_TEST(scan.foreign == 0u, "unexpected line: " << scan.first_foreign);
  BOOST_TEST_MESSAGE(good << " good records written (duplicates " << scan.duplicates() << "), "
                          << dead.size() << " records in the DLQ for " << bad.size() << " malformed");

  // Every malformed record in the DLQ, unchanged, with the context headers.
  std::set<std::pair<int32_t, int64_t>> seen;
  for (const auto& r : dead) {
    auto partition = r.header("__connect.errors.partition");
    auto offset = r.header("__connect.errors.offset");
    std::pair<int32_t, int64_t> at{-1, -1};
    try {
      at = {std::stoi(partition), std::stoll(offset)};
    } catch (const std::exception&) {
      BOOST_TEST(false, "DLQ record without a numeric partition/offset header: " << partition << "/" << offset);
      continue;
    }
    auto it = bad.find(at);
    BOOST_TEST_CONTEXT("DLQ record for " << topic << "[" << at.first << "]@" << at.second) {
      BOOST_REQUIRE_MESSAGE(it != bad.end(), "not a malformed record's position");
      seen.insert(at);
      BOOST_TEST(r.value.value_or("<null>") == it->second);
      auto i = static_cast<size_t>(at.second * 3 + at.first);
      BOOST_TEST(r.key.value_or("<null>") == "key-" + std::to_string(i));
      BOOST_TEST(r.header("__connect.errors.topic") == topic);
      BOOST_TEST(r.header("__connect.errors.connector.name") == name);
      BOOST_TEST(r.header("__connect.errors.task.id") == "0");
      BOOST_TEST(r.header("__connect.errors.stage") == "VALUE_CONVERTER");
      BOOST_TEST(r.header("__connect.errors.class.name") == "org.apache.kafka.connect.json.JsonConverter");
      BOOST_TEST(r.header("__connect.errors.exception.class.name")
                 == "org.apache.kafka.connect.errors.DataException");
      auto message = r.header("__connect.errors.exception.message");
      BOOST_TEST((!message.empty() && message != "<missing>"), "exception.message: " << message);
      auto trace = r.header("__connect.errors.exception.stacktrace");
      BOOST_TEST((!trace.empty() && trace != "<missing>"), "exception.stacktrace: " << trace);
    }
  }
  BOOST_TEST(seen.size() == bad.size(), seen.size() << " of " << bad.size() << " malformed records in the DLQ");
  BOOST_TEST(dead.size() == bad.size(), dead.size() - seen.size() << " duplicate(s) in the DLQ");

  // errors.log.enable: each error is logged with its position; the progress line counts them.
  auto out = weir->output();
  auto logged = [&](const std::string& needle) {
    size_t k = 0;
    for (auto at = out.find(needle); at != std::string::npos; at = out.find(needle, at + 1))
      ++k;
    return k;
  };
  BOOST_TEST(logged("Error encountered in task " + name + "-0") >= bad.size());
  auto lines = progress_lines(out, name);
  BOOST_REQUIRE(!lines.empty());
  BOOST_TEST(lines.back().errors >= bad.size());
  BOOST_TEST(lines.back().failed == 0);
  BOOST_TEST_MESSAGE("progress: errors " << lines.back().errors << ", written " << lines.back().written);
  stop_cleanly(*weir);
}

// Issue 3, item 3 (errors.tolerance=none): the task fails with the reason as its
// trace, and nothing past the bad record is written or committed.
BOOST_AUTO_TEST_CASE(tolerance_none_fails_the_task_and_commits_nothing_past_the_bad_record) {
  Setup s;
  auto topic = unique_name("weir-itest-none");
  auto name = unique_name("none-sink");
  auto group = "connect-" + name;
  create_topic(topic, 2);
  // Phase 1: ids 0..999 on partition 1, 1000..1999 on partition 0; all good.
  produce(topic, 2000, [&](size_t i) {
    return OutRecord{i < 1000 ? 1 : 0, "k", user_json(i)};
  });
  auto file = s.dir / "out.txt";
  auto weir = start_standalone(s.worker, {s.connector(name, file_sink(topic, file, 1))}, s.log);
  std::vector<int64_t> committed;
  bool phase1 = wait_until(90s, 500ms, [&] {
    committed = committed_offsets(group, topic, 2);
    return !weir->running() || (committed[0] == 1000 && committed[1] == 1000);
  });
  BOOST_REQUIRE_MESSAGE(weir->running(), "weir standalone ended: " << tail_lines(weir->output()));
  BOOST_REQUIRE_MESSAGE(phase1, "good records not committed: " << committed[0] << ", " << committed[1]
                                                               << "\n" << tail_lines(weir->output()));
  BOOST_TEST(count_lines(file) == 2000u);

  // Phase 2: partition 1 gets a malformed record at offset 1000, then ids 2000..2999;
  // partition 0 gets ids 3000..3999.
  produce(topic, 2001, [&](size_t i) {
    if (i == 0)
      return OutRecord{1, "k", std::string{R"({"id":"broken)"}};
    return i <= 1000 ? OutRecord{1, "k", user_json(1999 + i)} : OutRecord{0, "k", user_json(1999 + i)};
  });
  std::vector<TaskStatus> status;
  bool failed = wait_until(60s, 500ms, [&] {
    status = task_statuses(s.state, name);
    return !weir->running() || (status.size() == 1 && status[0].state == "FAILED");
  });
  BOOST_REQUIRE_MESSAGE(weir->running(), "weir standalone ended: " << tail_lines(weir->output()));
  BOOST_REQUIRE_MESSAGE(failed, "task not FAILED; state file: "
                                  << (status.empty() ? "no row" : status[0].state + " " + status[0].trace)
                                  << "\n" << tail_lines(weir->output()));
  const auto& trace = status[0].trace;
  BOOST_TEST_MESSAGE("FAILED trace: " << trace);
  BOOST_TEST(trace.find("Tolerance exceeded") != std::string::npos);
  BOOST_TEST(trace.find("partition=1, offset=1000") != std::string::npos, trace);
  BOOST_TEST(trace.find("VALUE_CONVERTER") != std::string::npos, trace);
  BOOST_TEST(trace.find("DataException") != std::string::npos, trace);

  // Give a wrong commit time to happen, then check nothing passed the bad record.
  std::this_thread::sleep_for(3s);
  auto lines = progress_lines(weir->output(), name);
  BOOST_REQUIRE(!lines.empty());
  // The worker restarts a failed task (with backoff), and the restarted one fails
  // again on the same record: a line printed between the two says 0 failed.
  BOOST_TEST(std::any_of(lines.begin(), lines.end(), [](const auto& l) { return l.failed == 1; }),
             "no progress line reports the failed task:\n" << tail_lines(weir->output(), 6));
  committed = committed_offsets(group, topic, 2);
  BOOST_TEST(committed[1] == 1000, "partition 1 committed up to " << committed[1]
                                                                    << ", past the bad record at 1000");
  auto scan = scan_file(file, 4000);
  for (size_t id = 2000; id < 3000; ++id)
    if (scan.count[id])
      BOOST_TEST(false, "record " << id << " (after the bad record on partition 1) was written");
  for (size_t id = 0; id < 2000; ++id)
    BOOST_TEST(scan.count[id] == 1u);
  BOOST_TEST(scan.foreign == 0u, scan.first_foreign);

  // A failed task still lets the worker stop cleanly, and the stop commits nothing more.
  stop_cleanly(*weir);
  committed = committed_offsets(group, topic, 2);
  BOOST_TEST(committed[1] == 1000, "after the stop, partition 1 committed up to " << committed[1]);
  scan = scan_file(file, 4000);
  size_t after_bad = 0;
  for (size_t id = 2000; id < 3000; ++id)
    after_bad += scan.count[id];
  BOOST_TEST(after_bad == 0u);
}

// Issue 3, item 2 (file sink): kill -9 mid-stream, restart; every record is in the
// file at least once. Duplicates are counted and reported (the restart resumes from
// the committed offsets, so it rewrites what was written but not yet committed).
BOOST_AUTO_TEST_CASE(kill_9_mid_stream_then_restart_every_record_at_least_once) {
  const size_t n = 400000;
  Setup s;
  auto topic = unique_name("weir-itest-kill");
  auto name = unique_name("kill-sink");
  create_topic(topic, 5);
  produce(topic, n, [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 5), "user-" + std::to_string(i), user_json(i)};
  });
  auto file = s.dir / "out.txt";
  auto connector = s.connector(name, file_sink(topic, file, 5));
  const auto bytes_per_line = user_line(n / 2).size() + 1;

  auto weir = start_standalone(s.worker, {connector}, s.log);
  // Kill once about a quarter of the records are in the file.
  bool mid = wait_until(120s, 10ms, [&] {
    std::error_code ec;
    auto size = std::filesystem::file_size(file, ec);
    return !weir->running() || (!ec && size >= n / 4 * bytes_per_line);
  });
  weir->signal(SIGKILL);
  auto killed = weir->wait(10s);
  auto before = scan_file(file, n);
  BOOST_REQUIRE_MESSAGE(mid, "the file did not grow to a quarter of the records: "
                               << tail_lines(weir->output()));
  BOOST_REQUIRE(killed.has_value());
  BOOST_REQUIRE_MESSAGE(killed->signaled && killed->signal == SIGKILL,
                        "weir was not killed mid-stream: " << killed->describe());
  BOOST_TEST_MESSAGE("killed -9 with " << before.lines << " lines (" << before.present()
                                       << " distinct records) in the file");
  BOOST_REQUIRE_MESSAGE(before.present() < n, "every record was already written before the kill");
  auto committed = committed_offsets("connect-" + name, topic, 5);
  int64_t committed_total = 0;
  for (auto c : committed)
    committed_total += std::max<int64_t>(c, 0);
  BOOST_TEST_MESSAGE("committed at the kill: " << committed_total << " records");

  weir = start_standalone(s.worker, {connector}, s.log);
  auto t0 = Clock::now();
  auto scan = wait_for_all(file, n, 180s, *weir);
  BOOST_TEST_MESSAGE("restart: waited " << seconds_since(t0) << " s for every record");
  stop_cleanly(*weir);
  scan = scan_file(file, n);
  BOOST_TEST_MESSAGE("after kill -9 and restart: " << scan.lines << " lines for " << n
                                                   << " records, duplicates " << scan.duplicates()
                                                   << ", torn lines " << scan.torn);
  BOOST_TEST(scan.missing() == 0u, scan.missing() << " records lost");
  BOOST_TEST(scan.foreign == 0u, scan.foreign << " malformed line(s), the first: " << scan.first_foreign);
  // Where duplicates come from: the killed process wrote records past its last
  // commit, and the restart writes them again (plus any replays from rebalances).
  BOOST_TEST_MESSAGE("written before the kill but not committed: "
                     << static_cast<int64_t>(before.lines) - committed_total << " lines");
  BOOST_TEST(committed_total > 0, "nothing was committed before the kill");
}

// Issue 20, item 4: a 4-task at-least-once sink starting while records keep coming
// writes every record exactly once. The consumers join their group one after the
// other (pipeline::JoinGate): the first one gets every partition, then hands three
// over, and librdkafka 2.0 may report the fourth lost on the way. Had it read them,
// its next owner would rewrite what it had not committed (25,000 duplicates in 600,000
// here before the fix); no member reads before the group has settled.
BOOST_AUTO_TEST_CASE(four_tasks_starting_under_live_load_write_no_duplicate) {
  const size_t backlog = 100000, n = 600000, chunk = 20000;
  Setup s;
  auto topic = unique_name("weir-itest-start");
  auto name = unique_name("start-sink");
  create_topic(topic, 4);
  auto record = [](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 4), "user-" + std::to_string(i), user_json(i)};
  };
  produce(topic, backlog, record);
  auto file = s.dir / "out.txt";
  auto weir = start_standalone(s.worker, {s.connector(name, file_sink(topic, file, 4))}, s.log);
  // The rest arrives while the tasks start and their group settles, at about
  // 100,000 records/s: the first consumer is busy reading when it hands over.
  for (size_t at = backlog; at < n; at += chunk) {
    auto t = Clock::now();
    produce(topic, chunk, [&](size_t i) { return record(at + i); });
    std::this_thread::sleep_until(t + 200ms);
  }

  auto scan = wait_for_all(file, n, 180s, *weir);
  stop_cleanly(*weir);
  scan = scan_file(file, n);
  auto out = weir->output();
  BOOST_TEST_MESSAGE(scan.lines << " lines for " << n << " records, duplicates " << scan.duplicates());
  BOOST_TEST(scan.missing() == 0u, scan.missing() << " of " << n << " records missing");
  BOOST_TEST(scan.duplicates() == 0u, scan.duplicates() << " duplicate(s); the log:\n" << tail_lines(out, 60));
  BOOST_TEST(scan.foreign == 0u, scan.foreign << " malformed line(s), the first: " << scan.first_foreign);
  // librdkafka 2.0 may report a partition "lost" during the handover (it was, in 2
  // of 3 runs before the fix): harmless now, since nothing is read before it settles.
  if (out.find("lost previously assigned partitions") != std::string::npos)
    BOOST_TEST_MESSAGE("a partition was reported lost while the group settled");
}

BOOST_AUTO_TEST_SUITE_END()
