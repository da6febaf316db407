// What the `weir node` suites share: a cluster of node processes on loopback (fresh
// topics, configs and logs in a temporary directory), their REST statuses, their
// task events from the logs, a load generator and the JDBC sink connector they run.
#pragma once

#include "tests/support/http_client.hpp"
#include "tests/support/kafka_tools.hpp"
#include "tests/support/ports.hpp"
#include "tests/support/process.hpp"

#include <boost/test/unit_test.hpp>
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <csignal>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>


namespace weir::testing::nodes {

using namespace std::chrono_literals;
using runtime::rest::test::ClientResponse;
using runtime::rest::test::TestClient;

constexpr int partitions = 6;
constexpr int tasks = 6;
constexpr const char* table = "users";
// Failure detection: gossip every 250 ms, unreachable after 2 s of silence.
constexpr int heartbeat_ms = 250;
constexpr int unreachable_ms = 2000;

/// A schemaless JSON user record; amount is (id % 1000) + 0.5.
inline std::string user_json(size_t id) {
  return R"({"id":)" + std::to_string(id) + R"(,"name":"user-)" + std::to_string(id)
         + R"(","amount":)" + std::to_string(id % 1000) + ".5}";
}

/// Record `id`: on partition id % 6, keyed by id.
inline OutRecord user_record(size_t id) {
  return {static_cast<int32_t>(id % partitions), std::to_string(id), user_json(id)};
}

/// A task's state as a node's REST API reports it.
struct TaskState {
  std::string state, worker_id;
};
using Statuses = std::map<int, TaskState>; // by task id

/// The tasks of a GET /connectors/NAME/status body; nullopt if it is not one.
inline std::optional<Statuses> parse_statuses(const std::string& body) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::dom::array list;
  if (parser.parse(body).get(doc) || doc["tasks"].get(list))
    return std::nullopt;
  Statuses out;
  for (auto t : list) {
    int64_t id = -1;
    std::string_view state, worker;
    if (t["id"].get(id) || t["state"].get(state) || t["worker_id"].get(worker))
      return std::nullopt;
    out[static_cast<int>(id)] = {std::string{state}, std::string{worker}};
  }
  return out;
}

inline std::string describe(const std::optional<Statuses>& s) {
  if (!s)
    return "(no status)";
  std::ostringstream out;
  for (const auto& [id, t] : *s)
    out << id << ":" << t.state << "@" << t.worker_id << " ";
  return out.str();
}

/// The tasks `s` shows RUNNING on `worker_id`.
inline std::set<int> running_on(const Statuses& s, const std::string& worker_id) {
  std::set<int> out;
  for (const auto& [id, t] : s)
    if (t.state == "RUNNING" && t.worker_id == worker_id)
      out.insert(id);
  return out;
}

/// A line of a node's log about one task of a connector.
struct TaskEvent {
  int task = -1;
  std::string kind;         ///< started, stopped or abandoned
  int64_t generation = -1;  ///< -1 for abandoned
  int64_t at_ms = -1;       ///< the log line's time (ms since the epoch), -1 if it has none
};

/// The time of a log line that starts with spdlog's "[YYYY-MM-DD HH:MM:SS.mmm]", in
/// ms since the epoch (the local time read as UTC: only differences and the
/// comparison with wall_ms() matter); -1 when the line has none.
inline int64_t line_time_ms(const std::string& line) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, ms = 0;
  if (std::sscanf(line.c_str(), "[%d-%d-%d %d:%d:%d.%d]", &year, &month, &day, &hour, &minute, &second, &ms) != 7)
    return -1;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm)) * 1000 + ms;
}

/// Now, on the clock of line_time_ms (local time read as UTC).
inline int64_t wall_ms() {
  auto now = std::chrono::system_clock::now();
  auto t = std::chrono::system_clock::to_time_t(now);
  std::tm local{};
  localtime_r(&t, &local);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  return static_cast<int64_t>(timegm(&local)) * 1000 + ms;
}

/// The task events of `connector` in `log`, in order.
inline std::vector<TaskEvent> task_events(const std::string& log, const std::string& connector) {
  static const std::regex re(R"(task (\S+)-([0-9]+) (started|stopped|abandoned)(?: \(generation ([0-9]+)\))?)");
  std::vector<TaskEvent> out;
  std::istringstream in(log);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, re) && m[1] == connector)
      out.push_back({std::stoi(m[2]), m[3], m[4].matched ? std::stoll(m[4]) : -1, line_time_ms(line)});
  return out;
}

/// How many `kind` events about `task` (any task: -1) `events` has.
inline size_t count_events(const std::vector<TaskEvent>& events, int task, const std::string& kind) {
  size_t n = 0;
  for (const auto& e : events)
    n += (task < 0 || e.task == task) && e.kind == kind ? 1 : 0;
  return n;
}

/// One `weir node` process and its fixed addresses.
struct Node {
  std::string name;       ///< a, b, c: for messages
  std::string listen;     ///< cluster.listen, 127.0.0.1:PORT
  uint16_t rest_port = 0;
  std::string worker_id;  ///< 127.0.0.1:REST_PORT, as statuses name the node
  std::string config, log;
  std::unique_ptr<ChildProcess> process;

  std::string output() const { return read_file(log); }
  /// The log from byte `since` on (a restart appends to the same file).
  std::string output_since(size_t since) const {
    auto text = output();
    return since < text.size() ? text.substr(since) : "";
  }
  size_t log_size() const { return output().size(); }

  /// One HTTP request; status 0 when the node does not answer.
  ClientResponse call(std::string_view method, const std::string& target, std::string_view body = {}) const {
    try {
      // A write goes through the leader and waits for the config topic: give it the
      // time a loaded machine takes (Kafka Connect's own REST timeout is 90 s).
      TestClient client{rest_port, std::chrono::seconds{30}};
      return client.request(method, target, body);
    } catch (const std::exception&) {
      return {};
    }
  }

  std::optional<Statuses> statuses(const std::string& connector) const {
    auto r = call("GET", "/connectors/" + connector + "/status");
    if (r.status != 200)
      return std::nullopt;
    return parse_statuses(r.body);
  }
};

/// Produces user records with ids first, first + 1, ... on a thread of its own,
/// `per_tick` every `tick`, until stop(): load that keeps coming while nodes die.
/// Its own producer (idempotent), so the topic has each id once.
class Load {
public:
  struct Result {
    size_t sent = 0, delivered = 0, failed = 0;
    std::string error;
  };

  Load(std::string topic, size_t first, size_t per_tick, std::chrono::milliseconds tick)
    : props_(broker()), next_(first) {
    thread_ = std::thread([this, topic = std::move(topic), per_tick, tick] { run(topic, per_tick, tick); });
  }
  ~Load() { stop(); }
  Load(const Load&) = delete;
  Load& operator=(const Load&) = delete;

  /// Stops producing, waits for every delivery report; the id after the last sent.
  Result stop() {
    stop_ = true;
    if (thread_.joinable())
      thread_.join();
    return result_;
  }
  size_t next_id() const { return next_; }

private:
  void run(const std::string& topic, size_t per_tick, std::chrono::milliseconds tick) {
    try {
      weir::runtime::kafka::Producer producer(props_, [&](uint64_t, size_t ok, size_t bad, const std::string& e) {
        result_.delivered += ok;
        result_.failed += bad;
        if (bad && result_.error.empty())
          result_.error = e;
      });
      weir::Batch batch;
      uint64_t token = 0;
      while (!stop_) {
        batch.clear();
        for (size_t k = 0; k < per_tick; ++k) {
          auto r = user_record(next_);
          batch.append(topic, r.partition, -1, -1, r.key, r.value);
          ++next_;
        }
        producer.produce(batch, token++);
        result_.sent += per_tick;
        producer.poll(0ms);
        std::this_thread::sleep_for(tick);
      }
      if (!producer.flush(60s) && result_.error.empty())
        result_.error = "records still in flight 60 s after the load stopped";
    } catch (const std::exception& e) {
      result_.error = e.what();
    }
  }

  weir::runtime::kafka::Properties props_;
  std::atomic<bool> stop_{false};
  std::atomic<size_t> next_;
  Result result_;
  std::thread thread_;
};

/// Three (or n) nodes of one fresh cluster, their configs and logs in a temporary
/// directory (kept when the test fails), and the SQLite database the sink writes.
struct Cluster {
  TempDir dir{"weir-nodes"};
  std::string group = unique_name("weir-nodes");
  std::string db = dir / "sink.db";
  std::string topic, name; ///< the source topic and the connector, set by deploy()
  std::vector<Node> nodes;
  /// The sink inserts without keys instead of upserting by id: a record written twice
  /// shows as a second row (the offsets stored with the rows keep it exactly-once).
  bool insert_only = false;

  explicit Cluster(size_t n, const std::map<std::string, std::string>& extra = {}) {
    auto ports = free_ports(2 * n);
    auto common = worker_config("");
    common["group.id"] = group;
    common["cluster.secret"] = "secret-" + group;
    common["config.storage.topic"] = group + "-configs";
    common["offset.storage.topic"] = group + "-offsets";
    common["status.storage.topic"] = group + "-status";
    for (std::string topic : {"config", "offset", "status"}) // one broker: not Kafka Connect's 3
      common[topic + ".storage.replication.factor"] = "1";
    common["cluster.heartbeat.interval.ms"] = std::to_string(heartbeat_ms);
    common["cluster.unreachable.timeout.ms"] = std::to_string(unreachable_ms);
    std::string seeds;
    for (size_t i = 0; i < n; ++i)
      seeds += (i ? "," : "") + std::string{"127.0.0.1:"} + std::to_string(ports[2 * i]);
    common["cluster.seeds"] = seeds; // each node's own address included
    for (const auto& [k, v] : extra)
      common[k] = v;
    nodes.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      Node node;
      node.name = std::string(1, static_cast<char>('a' + i));
      node.listen = "127.0.0.1:" + std::to_string(ports[2 * i]);
      node.rest_port = ports[2 * i + 1];
      node.worker_id = "127.0.0.1:" + std::to_string(node.rest_port);
      node.config = dir / ("node-" + node.name + ".properties");
      node.log = dir / ("node-" + node.name + ".log");
      auto config = common;
      config["cluster.listen"] = node.listen;
      config["listeners"] = "http://" + node.worker_id;
      // The node's own statuses and source offsets: here, not weir-node-PORT.db in /tmp,
      // so nothing outlives the test (a restart with the same config finds it again).
      config["offset.storage.file.filename"] = dir / ("node-" + node.name + ".db");
      write_properties(node.config, config);
      nodes.push_back(std::move(node));
    }
  }
  ~Cluster() {
    if (current_test_failing())
      dir.keep();
  }
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  Node& operator[](size_t i) { return nodes.at(i); }

  /// Starts `weir node --config` for `n` and waits (60 s at most) until it says
  /// where its REST API listens; fails the test, with its log, if it ends first.
  void start(Node& n) {
    auto since = n.log_size();
    n.process = std::make_unique<ChildProcess>(
      std::vector<std::string>{weir_binary(), "node", "--config", n.config}, n.log);
    const std::string listening = "REST API on http://" + n.worker_id;
    bool up = wait_until(60s, 50ms, [&] {
      return !n.process->running() || n.output_since(since).find(listening) != std::string::npos;
    });
    if (!n.process->running()) {
      auto status = n.process->status()->describe();
      bool planned = n.process->status()->exited && n.process->status()->code == 2;
      BOOST_FAIL("node " << n.name << ": weir node ended before serving its REST API (" << status << ")"
                         << (planned ? ": exit code 2 means `weir node` is not implemented in this build" : "")
                         << "\n" << tail_lines(n.output_since(since)));
    }
    BOOST_REQUIRE_MESSAGE(up, "node " << n.name << " did not log '" << listening << "' within 60 s:\n"
                                      << tail_lines(n.output_since(since)));
  }

  /// Starts every node, one after the other (the first is the oldest, so it leads),
  /// then waits for the cluster to form before anything is assigned.
  void start_all() {
    auto t0 = Clock::now();
    for (auto& n : nodes)
      start(n);
    // Each later node logs that it joined (membership_actor). Not the contract, only
    // a wait: the statuses decide what the test checks.
    bool joined = wait_until(20s, 100ms, [&] {
      for (size_t i = 1; i < nodes.size(); ++i)
        if (nodes[i].output().find("cluster: joined '") == std::string::npos)
          return false;
      return true;
    });
    if (!joined)
      BOOST_TEST_MESSAGE("not every node logged 'cluster: joined' within 20 s; going on");
    std::this_thread::sleep_for(std::chrono::milliseconds{4 * heartbeat_ms}); // a few gossip rounds
    BOOST_TEST_MESSAGE(nodes.size() << " nodes up in " << seconds_since(t0) << " s");
  }

  /// SIGTERM to every running node at once (so none takes over another's tasks while
  /// they drain), then each must exit 0 within 60 s of it.
  void stop_all() {
    auto t0 = Clock::now();
    for (auto& n : nodes)
      if (n.process && n.process->running())
        n.process->signal(SIGTERM);
    for (auto& n : nodes) {
      if (!n.process || n.process->status())
        continue;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t0 + 60s - Clock::now());
      auto status = n.process->wait(std::max(left, std::chrono::milliseconds{0}));
      BOOST_TEST_MESSAGE("node " << n.name << " ended " << seconds_since(t0) << " s after SIGTERM: "
                                 << (status ? status->describe() : "still running"));
      BOOST_TEST((status && status->clean()), "node " << n.name << " after SIGTERM: "
                                                      << (status ? status->describe() : "still running after 60 s")
                                                      << "\n" << tail_lines(n.output()));
    }
  }

  /// How every case begins: a fresh 6-partition topic holding records 0..records-1,
  /// every node started, the connector (named after `what`) created through node
  /// `via`, and two tasks per node reached; returns that placement.
  Statuses deploy(const std::string& what, size_t records, size_t via) {
    topic = unique_name("weir-itest-nodes-" + what);
    name = unique_name("nodes-" + what);
    create_topic(topic, partitions);
    produce(topic, records, [](size_t i) { return user_record(i); });
    start_all();
    create(nodes.at(via));
    return wait_spread(all_of(), 90s);
  }

  /// The JDBC sink connector of the issue: upsert keyed by the value's id (or plain
  /// inserts, insert_only), 6 tasks.
  std::string jdbc_sink() const {
    return R"({"name":")" + name + R"(","config":{)"
           R"("connector.class":"io.confluent.connect.jdbc.JdbcSinkConnector",)"
           R"("tasks.max":")" + std::to_string(tasks) + R"(","topics":")" + topic + R"(",)"
           R"("connection.url":"jdbc:sqlite:)" + db + R"(","table.name.format":")" + table + R"(",)"
           + (insert_only ? R"("insert.mode":"insert","pk.mode":"none",)"
                          : R"("insert.mode":"upsert","pk.mode":"record_value","pk.fields":"id",)")
           + R"("auto.create":"true"}})";
  }

  /// POST /connectors through `via` (any node may take it).
  void create(const Node& via) {
    auto r = via.call("POST", "/connectors", jdbc_sink());
    BOOST_REQUIRE_MESSAGE(r.status == 201, "POST /connectors on node " << via.name << ": " << r.status << " "
                                                                       << r.body);
  }

  /// Rows in the sink's table (-1 while it does not exist).
  int64_t rows() const {
    if (!std::filesystem::exists(db))
      return -1;
    Sqlite sql(db);
    return sql.scalar(std::string{"SELECT count(*) FROM "} + table, -1);
  }

  /// Waits until the table has `n` rows (120 s at most), then a little longer for
  /// a replay to show; fails the test if it does not get there.
  void wait_for_rows(int64_t n) {
    auto t0 = Clock::now();
    bool done = wait_until(120s, 200ms, [&] { return rows() >= n; });
    BOOST_REQUIRE_MESSAGE(done, "the table has " << rows() << " of " << n << " rows after 120 s");
    BOOST_TEST_MESSAGE(n << " rows in the table " << seconds_since(t0) << " s into the wait");
    std::this_thread::sleep_for(2s);
  }

  /// The table holds ids 0..n-1, each exactly once, with the right values.
  void check_exactly_once(int64_t n) {
    Sqlite sql(db);
    auto all = sql.scalar(std::string{"SELECT count(*) FROM "} + table);
    auto ids = sql.scalar(std::string{"SELECT count(DISTINCT id) FROM "} + table);
    BOOST_TEST_MESSAGE(all << " rows, " << ids << " distinct ids, " << n << " records produced");
    BOOST_TEST(all == n);
    BOOST_TEST(ids == n);
    BOOST_TEST(sql.scalar(std::string{"SELECT min(id) FROM "} + table) == 0);
    BOOST_TEST(sql.scalar(std::string{"SELECT max(id) FROM "} + table) == n - 1);
    BOOST_TEST(sql.scalar(std::string{"SELECT count(*) FROM "} + table
                          + " WHERE name IS NOT 'user-' || id OR amount IS NOT (id % 1000) + 0.5")
               == 0);
  }

  /// Whether `s` has every task RUNNING, on `on` only, `per_node` each.
  static bool balanced(const std::optional<Statuses>& s, const std::vector<const Node*>& on, size_t per_node) {
    if (!s || s->size() != static_cast<size_t>(tasks))
      return false;
    size_t placed = 0;
    for (const auto* n : on) {
      auto mine = running_on(*s, n->worker_id).size();
      if (mine != per_node)
        return false;
      placed += mine;
    }
    return placed == static_cast<size_t>(tasks);
  }

  /// Waits (`timeout` at most) until every node of `on` reports a placement that
  /// `accept`s, all of them the same; returns it. Fails the test otherwise, saying
  /// what was `wanted`.
  template <class Accept>
  Statuses wait_agreed(const std::vector<const Node*>& on, std::chrono::seconds timeout, Accept accept,
                       const std::string& wanted) {
    auto t0 = Clock::now();
    std::optional<Statuses> seen, first;
    const Node* where = on.front();
    bool ok = wait_until(timeout, 100ms, [&] {
      for (const auto* n : on) {
        where = n;
        seen = n->statuses(name);
        if (n == on.front())
          first = seen;
        if (!accept(seen) || describe(seen) != describe(first))
          return false;
      }
      return true;
    });
    BOOST_REQUIRE_MESSAGE(ok, "not " << wanted << " within " << timeout.count() << " s; node " << where->name
                                     << " says: " << describe(seen) << " and node " << on.front()->name
                                     << ": " << describe(first) << workers());
    BOOST_TEST_MESSAGE(wanted << " after " << seconds_since(t0) << " s: " << describe(seen));
    return *seen;
  }

  /// Waits until every node of `on` reports `connector` balanced over `on`,
  /// `per_node` each.
  Statuses wait_balanced(const std::vector<const Node*>& on, size_t per_node, std::chrono::seconds timeout) {
    return wait_agreed(on, timeout, [&](const std::optional<Statuses>& s) { return balanced(s, on, per_node); },
                       "balanced, " + std::to_string(per_node) + " tasks on each of " + std::to_string(on.size())
                         + " nodes,");
  }

  /// Waits until every node of `on` reports every task RUNNING on a node of `on`,
  /// the nodes within one task of each other.
  Statuses wait_spread(const std::vector<const Node*>& on, std::chrono::seconds timeout) {
    auto spread = [&](const std::optional<Statuses>& s) {
      if (!s || s->size() != static_cast<size_t>(tasks))
        return false;
      size_t placed = 0, least = tasks, most = 0;
      for (const auto* n : on) {
        auto mine = running_on(*s, n->worker_id).size();
        placed += mine;
        least = std::min(least, mine);
        most = std::max(most, mine);
      }
      return placed == static_cast<size_t>(tasks) && most - least <= 1;
    };
    return wait_agreed(on, timeout, spread, "spread over " + std::to_string(on.size()) + " nodes");
  }

  std::vector<const Node*> all_of() const {
    std::vector<const Node*> out;
    for (const auto& n : nodes)
      out.push_back(&n);
    return out;
  }

  /// Which worker_id is which node, for messages.
  std::string workers() const {
    std::string out = "\nnodes:";
    for (const auto& n : nodes)
      out += " " + n.name + "=" + n.worker_id;
    return out;
  }
};

/// Every node's task events of `connector`, from byte `since[i]` of node i's log.
inline std::vector<std::vector<TaskEvent>> events_of(const Cluster& c, const std::string& connector,
                                              const std::vector<size_t>& since = {}) {
  std::vector<std::vector<TaskEvent>> out;
  for (size_t i = 0; i < c.nodes.size(); ++i)
    out.push_back(task_events(c.nodes[i].output_since(i < since.size() ? since[i] : 0), connector));
  return out;
}

inline std::vector<size_t> log_sizes(const Cluster& c) {
  std::vector<size_t> out;
  for (const auto& n : c.nodes)
    out.push_back(n.log_size());
  return out;
}

/// How many `kind` lines about `task` all the nodes' logs have.
inline size_t count_all(const std::vector<std::vector<TaskEvent>>& events, int task, const std::string& kind) {
  size_t n = 0;
  for (const auto& per_node : events)
    n += count_events(per_node, task, kind);
  return n;
}

/// The generation in which `task` last started on a node, from its events (-1: never).
inline int64_t started_generation(const std::vector<TaskEvent>& events, int task) {
  int64_t g = -1;
  for (const auto& e : events)
    if (e.task == task && e.kind == "started")
      g = e.generation;
  return g;
}

inline std::string list_of(const std::set<int>& s) {
  std::string out;
  for (int i : s)
    out += (out.empty() ? "" : ",") + std::to_string(i);
  return "{" + out + "}";
}

} // namespace weir::testing::nodes

namespace weir::testing::nodes {

/// A stretch of time, ms on the clock of line_time_ms.
struct Window {
  int64_t from = 0, to = 0;
};

/// The longest time `task` ran on two nodes at once (ms), from every node's task
/// events: on node i it runs from a `started` to the next `stopped` or `abandoned`
/// there, or to `ends[i]` (its kill, or now); time inside `paused[i]` (SIGSTOP:
/// the process runs nothing) does not count.
inline int64_t longest_double_run(const std::vector<std::vector<TaskEvent>>& events, int task,
                                  const std::vector<int64_t>& ends,
                                  const std::vector<std::vector<Window>>& paused) {
  std::vector<std::vector<Window>> runs(events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    int64_t since = -1; // -1: not running
    std::vector<Window> whole;
    for (const auto& e : events[i]) {
      if (e.task != task || e.at_ms < 0)
        continue;
      if (e.kind == "started" && since < 0)
        since = e.at_ms;
      else if (e.kind != "started" && since >= 0) {
        whole.push_back({since, e.at_ms});
        since = -1;
      }
    }
    if (since >= 0)
      whole.push_back({since, ends.at(i)});
    // Cut the paused stretches out.
    for (auto w : whole) {
      for (const auto& p : i < paused.size() ? paused[i] : std::vector<Window>{}) {
        if (p.to <= w.from || p.from >= w.to)
          continue;
        if (p.from > w.from)
          runs[i].push_back({w.from, p.from});
        w.from = std::max(w.from, p.to);
      }
      if (w.to > w.from)
        runs[i].push_back(w);
    }
  }
  int64_t longest = 0;
  for (size_t i = 0; i < runs.size(); ++i)
    for (size_t j = i + 1; j < runs.size(); ++j)
      for (const auto& a : runs[i])
        for (const auto& b : runs[j])
          longest = std::max(longest, std::min(a.to, b.to) - std::max(a.from, b.from));
  return longest;
}

/// SIGKILL of node `n`; requires that it died of it.
inline void kill_9(Node& n) {
  n.process->signal(SIGKILL);
  auto killed = n.process->wait(std::chrono::seconds{10});
  BOOST_REQUIRE_MESSAGE((killed && killed->signaled && killed->signal == SIGKILL),
                        "node " << n.name << " was not killed: " << (killed ? killed->describe() : "still running"));
}

} // namespace weir::testing::nodes

namespace weir::testing::nodes {

/// The pid of the local process listening on TCP `port` (the broker, to freeze it),
/// from /proc; nullopt when none is found.
inline std::optional<pid_t> listening_pid(uint16_t port) {
  std::set<std::string> inodes;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream in(read_file(table));
    std::string line;
    std::getline(in, line); // the header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retransmits >> uid >> timeout >> inode;
      auto colon = local.rfind(':');
      if (state == "0A" && colon != std::string::npos
          && std::stoul(local.substr(colon + 1), nullptr, 16) == port)
        inodes.insert("socket:[" + inode + "]");
    }
  }
  std::error_code ec;
  for (const auto& proc : std::filesystem::directory_iterator("/proc", ec)) {
    auto name = proc.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    for (const auto& fd : std::filesystem::directory_iterator(proc.path() / "fd", ec)) {
      auto target = std::filesystem::read_symlink(fd.path(), ec);
      if (!ec && inodes.count(target.string()))
        return static_cast<pid_t>(std::stol(name));
    }
  }
  return std::nullopt;
}

} // namespace weir::testing::nodes
