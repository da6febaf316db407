// Helpers for end-to-end tests against the real broker: fresh topics, producing
// generated records, reading a topic back (with headers), querying a consumer
// group's committed offsets; and for driving `weir standalone` (config files,
// progress lines, the task status in its SQLite state file, SQLite queries).
#pragma once

#include "runtime/kafka/admin.hpp"
#include "runtime/kafka/client_config.hpp"
#include "runtime/kafka/consumer.hpp"
#include "runtime/kafka/producer.hpp"
#include "tests/support/kafka_env.hpp"
#include "tests/support/process.hpp"

#include <boost/test/unit_test.hpp>
#include <librdkafka/rdkafka.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace weir::testing {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// A name no other test run uses (topics, connectors, groups).
inline std::string unique_name(const std::string& prefix) {
  static int counter = 0;
  return prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + "-"
         + std::to_string(std::chrono::system_clock::now().time_since_epoch().count() % 1000000000);
}

inline runtime::kafka::Properties broker() { return {{"bootstrap.servers", kafka_bootstrap()}}; }

/// Creates topic `name` and waits (up to 10 s) until the broker's metadata lists it:
/// a KRaft broker answers CreateTopics before its own metadata cache has the topic.
inline void create_topic(const std::string& name, int32_t partitions) {
  runtime::kafka::create_topics(broker(), {{name, partitions, 1}});
  int32_t seen = -1;
  wait_until(std::chrono::seconds{10}, std::chrono::milliseconds{100}, [&] {
    seen = runtime::kafka::partition_count(broker(), name).value_or(-1);
    return seen != -1;
  });
  BOOST_REQUIRE_EQUAL(seen, partitions);
}

/// One record to produce; partition -1 lets the partitioner choose.
struct OutRecord {
  int32_t partition = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
};

/// Produces `n` records made by `make(i)`, in order, batches of `per_batch`, and
/// waits for every delivery report; fails the test if any record is not delivered.
/// `extra` adds to (or overrides) the producer's properties.
inline void produce(const std::string& topic, size_t n,
                    const std::function<OutRecord(size_t)>& make, size_t per_batch = 2000,
                    const runtime::kafka::Properties& extra = {}) {
  size_t acked_batches = 0, delivered = 0, failed = 0;
  std::string first_error;
  auto props = broker();
  props["linger.ms"] = "20";
  props["batch.size"] = "1000000";
  for (const auto& [k, v] : extra)
    props[k] = v;
  runtime::kafka::Producer producer(props, [&](uint64_t, size_t ok, size_t bad, const std::string& e) {
    ++acked_batches;
    delivered += ok;
    failed += bad;
    if (bad && first_error.empty())
      first_error = e;
  });
  auto start = Clock::now();
  weir::Batch batch;
  size_t batches = 0;
  for (size_t i = 0; i < n;) {
    batch.clear();
    for (size_t k = 0; k < per_batch && i < n; ++k, ++i) {
      auto r = make(i);
      batch.append(topic, r.partition, -1, -1, r.key, r.value);
    }
    producer.produce(batch, batches++);
    producer.poll(std::chrono::milliseconds{0});
  }
  auto deadline = Clock::now() + std::chrono::seconds{180};
  while (acked_batches < batches && Clock::now() < deadline)
    producer.poll(std::chrono::milliseconds{100});
  BOOST_TEST_MESSAGE("produced " << delivered << " records to " << topic << " in "
                                 << seconds_since(start) << " s");
  BOOST_REQUIRE_EQUAL(acked_batches, batches);
  BOOST_REQUIRE_MESSAGE(failed == 0, failed << " records not delivered: " << first_error);
  BOOST_REQUIRE_EQUAL(delivered, n);
}

/// A record read back from a topic, with its headers in order.
struct InRecord {
  int32_t partition = -1;
  int64_t offset = -1;
  std::optional<std::string> key, value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;

  /// The first header named `name` ("<missing>" when absent, "<null>" when null).
  std::string header(const std::string& name) const {
    for (const auto& [k, v] : headers)
      if (k == name)
        return v ? *v : "<null>";
    return "<missing>";
  }
};

/// Reads `topic` from the beginning in a fresh group until `expected` records came
/// (or `timeout`), then for `linger` more to catch extra ones.
inline std::vector<InRecord> read_topic(const std::string& topic, size_t expected,
                                        std::chrono::milliseconds timeout,
                                        std::chrono::milliseconds linger = std::chrono::seconds{2}) {
  auto props = broker();
  props["group.id"] = unique_name("weir-itest-reader");
  runtime::kafka::Consumer consumer(props);
  consumer.subscribe({topic});
  std::vector<InRecord> out;
  weir::Batch batch;
  auto take = [&] {
    batch.clear();
    consumer.poll(batch, 5000, 16 << 20, std::chrono::milliseconds{100});
    for (const auto& r : batch.records()) {
      InRecord in;
      in.partition = r.partition;
      in.offset = r.offset;
      if (!r.key.is_null())
        in.key = std::string{batch.bytes(r.key)};
      if (!r.value.is_null())
        in.value = std::string{batch.bytes(r.value)};
      for (const auto& h : batch.headers(r))
        in.headers.emplace_back(std::string{batch.bytes(h.key)},
                                h.value.is_null() ? std::nullopt
                                                  : std::optional{std::string{batch.bytes(h.value)}});
      out.push_back(std::move(in));
    }
  };
  auto deadline = Clock::now() + timeout;
  while (out.size() < expected && Clock::now() < deadline)
    take();
  auto until = Clock::now() + linger;
  while (Clock::now() < until)
    take();
  consumer.close();
  return out;
}

/// The offsets committed by consumer group `group` for partitions 0..partitions-1
/// of `topic` (rd_kafka_committed, without joining the group); -1 where nothing is
/// committed.
inline std::vector<int64_t> committed_offsets(const std::string& group, const std::string& topic,
                                              int32_t partitions) {
  auto props = broker();
  props["group.id"] = group;
  auto rk = runtime::kafka::make_handle(RD_KAFKA_CONSUMER, runtime::kafka::make_conf(props));
  auto* list = rd_kafka_topic_partition_list_new(partitions);
  for (int32_t p = 0; p < partitions; ++p)
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p);
  auto err = rd_kafka_committed(rk.get(), list, 10000);
  std::vector<int64_t> out(static_cast<size_t>(partitions), -1);
  for (int i = 0; i < list->cnt; ++i)
    if (list->elems[i].err == RD_KAFKA_RESP_ERR_NO_ERROR && list->elems[i].offset >= 0)
      out[static_cast<size_t>(list->elems[i].partition)] = list->elems[i].offset;
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_consumer_close(rk.get());
  BOOST_REQUIRE_MESSAGE(err == RD_KAFKA_RESP_ERR_NO_ERROR,
                        "committed offsets of group " << group << ": " << rd_kafka_err2str(err));
  return out;
}

// ---------------------------------------------------------------------------------
// weir standalone

/// Writes `key=value` lines (a .properties file).
inline void write_properties(const std::string& path, const std::map<std::string, std::string>& kv) {
  std::ofstream out(path);
  for (const auto& [k, v] : kv)
    out << k << '=' << v << '\n';
  BOOST_REQUIRE_MESSAGE(out.good(), "cannot write " << path);
}

/// A worker with string keys and schemaless JSON values, state in `state_db`. Its
/// consumers' session timeout is 10 s (librdkafka's default is 45 s), so that after a
/// kill -9 the dead process's group members expire sooner and a restart gets going.
/// Its REST API listens on a free port, so workers of concurrent tests never collide.
inline std::map<std::string, std::string> worker_config(const std::string& state_db) {
  return {{"bootstrap.servers", kafka_bootstrap()},
          {"listeners", "http://127.0.0.1:0"},
          {"consumer.session.timeout.ms", "10000"},
          {"consumer.heartbeat.interval.ms", "1000"},
          {"key.converter", "org.apache.kafka.connect.storage.StringConverter"},
          {"value.converter", "org.apache.kafka.connect.json.JsonConverter"},
          {"value.converter.schemas.enable", "false"},
          {"offset.storage.file.filename", state_db}};
}

/// One progress line: `[name] R records/s | consumer lag L | records written W |
/// errors E | tasks T (I idle, F failed)`.
struct Progress {
  double rate = 0;
  int64_t lag = 0;
  uint64_t written = 0;
  uint64_t errors = 0;
  int tasks = 0, idle = 0, failed = 0;
};

/// Every progress line of connector `name` in `output`, in order.
inline std::vector<Progress> progress_lines(const std::string& output, const std::string& name) {
  std::vector<Progress> out;
  static const std::regex re(
    R"(^\[([^\]]+)\] ([0-9.]+) records/s \| consumer lag (-?[0-9]+) \| records written ([0-9]+) \| errors ([0-9]+) \| tasks ([0-9]+) \(([0-9]+) idle, ([0-9]+) failed\)$)");
  std::istringstream in(output);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_match(line, m, re) && m[1] == name) {
      Progress p;
      p.rate = std::stod(m[2]);
      p.lag = std::stoll(m[3]);
      p.written = std::stoull(m[4]);
      p.errors = std::stoull(m[5]);
      p.tasks = std::stoi(m[6]);
      p.idle = std::stoi(m[7]);
      p.failed = std::stoi(m[8]);
      out.push_back(p);
    }
  return out;
}

/// A read-write SQLite connection for queries (creates the file only when asked).
class Sqlite {
public:
  explicit Sqlite(const std::string& path, bool create = false) {
    int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), nullptr);
    BOOST_REQUIRE_MESSAGE(rc == SQLITE_OK, "cannot open " << path << ": " << sqlite3_errstr(rc));
    sqlite3_busy_timeout(db_, 10000);
  }
  ~Sqlite() { sqlite3_close(db_); }
  Sqlite(const Sqlite&) = delete;
  Sqlite& operator=(const Sqlite&) = delete;

  /// Runs `sql`; every row as text columns (NULL as "<null>"). Fails the test on error.
  std::vector<std::vector<std::string>> query(const std::string& sql) {
    std::vector<std::vector<std::string>> rows;
    auto err = try_query(sql, rows);
    BOOST_REQUIRE_MESSAGE(err.empty(), "SQL " << sql << ": " << err);
    return rows;
  }

  /// Like query(), but returns the error message instead of failing ("" on success).
  std::string try_query(const std::string& sql, std::vector<std::vector<std::string>>& rows) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
      return sqlite3_errmsg(db_);
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        auto* t = sqlite3_column_text(stmt, c);
        row.emplace_back(t ? reinterpret_cast<const char*>(t) : "<null>");
      }
      rows.push_back(std::move(row));
    }
    std::string err = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
    sqlite3_finalize(stmt);
    return err;
  }

  /// A single integer result; `fallback` when the query fails (e.g. no table yet).
  int64_t scalar(const std::string& sql, int64_t fallback = -1) {
    std::vector<std::vector<std::string>> rows;
    if (!try_query(sql, rows).empty() || rows.empty() || rows[0].empty() || rows[0][0] == "<null>")
      return fallback;
    return std::stoll(rows[0][0]);
  }

  void exec(const std::string& sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    std::string why = err ? err : "";
    sqlite3_free(err);
    BOOST_REQUIRE_MESSAGE(rc == SQLITE_OK, "SQL " << sql << ": " << why);
  }

private:
  sqlite3* db_ = nullptr;
};

/// A task's row in the standalone state file's task_status table.
struct TaskStatus {
  int task = -1;
  std::string state, trace;
};

inline std::vector<TaskStatus> task_statuses(const std::string& state_db, const std::string& connector) {
  std::vector<TaskStatus> out;
  if (::access(state_db.c_str(), F_OK) != 0)
    return out; // weir has not created it yet
  Sqlite db(state_db);
  std::vector<std::vector<std::string>> rows;
  if (!db.try_query("SELECT task, state, trace FROM task_status WHERE connector = '" + connector
                      + "' ORDER BY task",
                    rows)
         .empty())
    return out;
  for (const auto& r : rows)
    out.push_back({std::stoi(r[0]), r[1], r[2]});
  return out;
}

/// The tasks as lines "task N STATE: trace", for messages.
inline std::string describe(const std::vector<TaskStatus>& status) {
  std::string out;
  for (const auto& t : status)
    out += "\n  task " + std::to_string(t.task) + " " + t.state + (t.trace.empty() ? "" : ": " + t.trace);
  return out.empty() ? " (none)" : out;
}

/// Waits up to `timeout` until `total` tasks of `connector` are reported, `idle` of
/// them with the idle note; returns what the state file says (and logs it).
inline std::vector<TaskStatus> wait_for_idle_tasks(const std::string& state_db, const std::string& connector,
                                                   size_t total, long idle, std::chrono::seconds timeout) {
  std::vector<TaskStatus> status;
  bool settled = wait_until(timeout, std::chrono::milliseconds{500}, [&] {
    status = task_statuses(state_db, connector);
    auto n = std::count_if(status.begin(), status.end(),
                           [](const auto& t) { return t.trace.find("idle") != std::string::npos; });
    return status.size() == total && n == idle;
  });
  std::string listing;
  for (const auto& t : status)
    listing += "\n  task " + std::to_string(t.task) + " " + t.state + " " + t.trace;
  BOOST_TEST_MESSAGE("task status:" << listing);
  BOOST_REQUIRE_MESSAGE(settled, "expected " << total << " tasks, " << idle << " of them idle; state file has:"
                                             << listing);
  return status;
}

/// The files of one `weir standalone`: a temporary directory (kept when the test
/// fails), the worker's properties (worker_config plus `extra`), its state file and
/// log, and one properties file per connector.
struct StandaloneFiles {
  TempDir dir;
  std::string state = dir / "state.db";
  std::string worker = dir / "worker.properties";
  std::string log = dir / "weir.log";

  explicit StandaloneFiles(const std::string& prefix, const std::map<std::string, std::string>& extra = {})
    : dir(prefix) {
    auto w = worker_config(state);
    for (const auto& [k, v] : extra)
      w[k] = v;
    write_properties(worker, w);
  }
  ~StandaloneFiles() {
    if (current_test_failing())
      dir.keep();
  }
  /// Writes connector `name`'s properties; their path.
  std::string connector(const std::string& name, std::map<std::string, std::string> config) const {
    config["name"] = name;
    auto path = dir / (name + ".properties");
    write_properties(path, config);
    return path;
  }
};

/// `weir standalone WORKER CONNECTOR... --progress-interval 1`, output in `log`.
inline std::unique_ptr<ChildProcess> start_standalone(const std::string& worker,
                                                      const std::vector<std::string>& connectors,
                                                      const std::string& log) {
  std::vector<std::string> argv{weir_binary(), "standalone", worker};
  argv.insert(argv.end(), connectors.begin(), connectors.end());
  argv.push_back("--progress-interval");
  argv.push_back("1");
  return std::make_unique<ChildProcess>(argv, log);
}

/// SIGTERM, then requires a clean exit (0) within `timeout`. A SIGTERM that comes
/// before weir has installed its handler (while the loader maps its libraries) ends it
/// by the signal's default action, as it would any program; so this waits first until
/// weir has written something, which it does only once the handler is in place.
inline void stop_cleanly(ChildProcess& weir, std::chrono::milliseconds timeout = std::chrono::seconds{45}) {
  wait_until(std::chrono::seconds{30}, std::chrono::milliseconds{50},
             [&] { return !weir.running() || !weir.output().empty(); });
  auto t0 = Clock::now();
  weir.signal(SIGTERM);
  auto status = weir.wait(timeout);
  BOOST_REQUIRE_MESSAGE(status.has_value(), "weir standalone did not exit within "
                                              << timeout.count() << " ms of SIGTERM; output:\n"
                                              << weir.output());
  BOOST_TEST_MESSAGE("weir stopped " << seconds_since(t0) << " s after SIGTERM: " << status->describe());
  BOOST_REQUIRE_MESSAGE(status->clean(), "weir standalone after SIGTERM: " << status->describe()
                                                                           << "; output:\n"
                                                                           << weir.output());
}

/// The last `n` lines of `text`, for failure messages.
inline std::string tail_lines(const std::string& text, size_t n = 40);

/// Waits up to `timeout` until `reached()` (polled every 50 ms), then kill -9s weir;
/// requires that it got there and died of the signal (mid-stream, not finished).
inline void kill_9_when(ChildProcess& weir, std::chrono::seconds timeout, const std::function<bool()>& reached,
                        const std::string& what) {
  bool mid = wait_until(timeout, std::chrono::milliseconds{50}, [&] { return !weir.running() || reached(); });
  weir.signal(SIGKILL);
  auto killed = weir.wait(std::chrono::seconds{10});
  BOOST_REQUIRE_MESSAGE(mid, what << " was not reached: " << tail_lines(weir.output()));
  BOOST_REQUIRE(killed.has_value());
  BOOST_REQUIRE_MESSAGE(killed->signaled && killed->signal == SIGKILL,
                        "weir was not killed mid-stream: " << killed->describe());
}

inline std::string tail_lines(const std::string& text, size_t n) {
  size_t pos = text.size();
  size_t lines = 0;
  while (pos > 0) {
    auto at = text.rfind('\n', pos - 1);
    if (at == std::string::npos) {
      pos = 0;
      break;
    }
    if (at + 1 < text.size() && ++lines > n) {
      pos = at + 1;
      break;
    }
    pos = at;
  }
  return text.substr(pos);
}

} // namespace weir::testing
