// `weir node` end to end (issue 6, "What it must show"): three node processes on
// loopback form a cluster through cluster.seeds, share their state in fresh Kafka
// topics and serve Kafka Connect's REST API each; one JDBC sink connector (SQLite,
// upsert keyed by id, tasks.max=6) reads a 6-partition topic.
//
//  1. its six tasks run two per node, as every node's status says;
//  2. under load, kill -9 of a node (scheduled.rebalance.max.delay.ms=0): its two
//     tasks run on the others within 5 s, the other four are never restarted, and
//     the table has every record exactly once;
//  3. the killed node comes back with the same config: two per node again, by
//     moving exactly two tasks;
//  4. SIGSTOP of a node: marked unreachable, its tasks move; SIGCONT: it rejoins and
//     its stale tasks stop without committing (`abandoned`), every record once.
//
// What the nodes do is read from the REST API (task states and worker_id, the
// REST host:port of the node running a task) and from each node's log: a node logs
// `task NAME-N started (generation G)`, `task NAME-N stopped (generation G)` (after
// committing) and `task NAME-N abandoned` (a stale task stopped without committing).
// Times are printed (BOOST_TEST_LOG_LEVEL=message shows them under meson test); only
// the 5 s failover bound is asserted, because the issue states it.
#include "runtime/rest/test_http_client.hpp"
#include "tests/support/kafka_tools.hpp"
#include "tests/support/ports.hpp"
#include "tests/support/process.hpp"

#include <boost/test/unit_test.hpp>
#include <simdjson.h>

#include <atomic>
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

using namespace weir::testing;
using namespace std::chrono_literals;
using weir::runtime::rest::test::ClientResponse;
using weir::runtime::rest::test::TestClient;

namespace {

constexpr int partitions = 6;
constexpr int tasks = 6;
constexpr const char* table = "users";
// Failure detection: gossip every 250 ms, unreachable after 2 s of silence.
constexpr int heartbeat_ms = 250;
constexpr int unreachable_ms = 2000;

/// A schemaless JSON user record; amount is (id % 1000) + 0.5.
std::string user_json(size_t id) {
  return R"({"id":)" + std::to_string(id) + R"(,"name":"user-)" + std::to_string(id)
         + R"(","amount":)" + std::to_string(id % 1000) + ".5}";
}

/// Record `id`: on partition id % 6, keyed by id.
OutRecord user_record(size_t id) {
  return {static_cast<int32_t>(id % partitions), std::to_string(id), user_json(id)};
}

/// A task's state as a node's REST API reports it.
struct TaskState {
  std::string state, worker_id;
};
using Statuses = std::map<int, TaskState>; // by task id

/// The tasks of a GET /connectors/NAME/status body; nullopt if it is not one.
std::optional<Statuses> parse_statuses(const std::string& body) {
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

std::string describe(const std::optional<Statuses>& s) {
  if (!s)
    return "(no status)";
  std::ostringstream out;
  for (const auto& [id, t] : *s)
    out << id << ":" << t.state << "@" << t.worker_id << " ";
  return out.str();
}

/// The tasks `s` shows RUNNING on `worker_id`.
std::set<int> running_on(const Statuses& s, const std::string& worker_id) {
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
};

/// The task events of `connector` in `log`, in order.
std::vector<TaskEvent> task_events(const std::string& log, const std::string& connector) {
  static const std::regex re(R"(task (\S+)-([0-9]+) (started|stopped|abandoned)(?: \(generation ([0-9]+)\))?)");
  std::vector<TaskEvent> out;
  std::istringstream in(log);
  std::string line;
  std::smatch m;
  while (std::getline(in, line))
    if (std::regex_search(line, m, re) && m[1] == connector)
      out.push_back({std::stoi(m[2]), m[3], m[4].matched ? std::stoll(m[4]) : -1});
  return out;
}

/// How many `kind` events about `task` (any task: -1) `events` has.
size_t count_events(const std::vector<TaskEvent>& events, int task, const std::string& kind) {
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
      TestClient client{rest_port};
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

  explicit Cluster(size_t n, const std::map<std::string, std::string>& extra = {}) {
    auto ports = free_ports(2 * n);
    auto common = worker_config("");
    common["group.id"] = group;
    common["cluster.secret"] = "secret-" + group;
    common["config.storage.topic"] = group + "-configs";
    common["offset.storage.topic"] = group + "-offsets";
    common["status.storage.topic"] = group + "-status";
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
    return wait_balanced(all_of(), 2, 90s);
  }

  /// The JDBC sink connector of the issue: upsert keyed by the value's id, 6 tasks.
  std::string jdbc_sink() const {
    return R"({"name":")" + name + R"(","config":{)"
           R"("connector.class":"io.confluent.connect.jdbc.JdbcSinkConnector",)"
           R"("tasks.max":")" + std::to_string(tasks) + R"(","topics":")" + topic + R"(",)"
           R"("connection.url":"jdbc:sqlite:)" + db + R"(","table.name.format":")" + table + R"(",)"
           R"("insert.mode":"upsert","pk.mode":"record_value","pk.fields":"id","auto.create":"true"}})";
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

  /// Waits (`timeout` at most) until every node of `on` reports `connector` balanced
  /// over `on`, all of them the same placement; returns it.
  Statuses wait_balanced(const std::vector<const Node*>& on, size_t per_node, std::chrono::seconds timeout) {
    auto t0 = Clock::now();
    std::optional<Statuses> seen, first;
    const Node* where = on.front();
    bool ok = wait_until(timeout, 100ms, [&] {
      for (const auto* n : on) {
        where = n;
        seen = n->statuses(name);
        if (n == on.front())
          first = seen;
        if (!balanced(seen, on, per_node) || describe(seen) != describe(first))
          return false;
      }
      return true;
    });
    BOOST_REQUIRE_MESSAGE(ok, "no " << per_node << " tasks per node on " << on.size() << " nodes within "
                                    << timeout.count() << " s; node " << where->name
                                    << " says: " << describe(seen) << workers());
    BOOST_TEST_MESSAGE("balanced, " << per_node << " tasks on each of " << on.size() << " nodes, after "
                                    << seconds_since(t0) << " s: " << describe(seen));
    return *seen;
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
std::vector<std::vector<TaskEvent>> events_of(const Cluster& c, const std::string& connector,
                                              const std::vector<size_t>& since = {}) {
  std::vector<std::vector<TaskEvent>> out;
  for (size_t i = 0; i < c.nodes.size(); ++i)
    out.push_back(task_events(c.nodes[i].output_since(i < since.size() ? since[i] : 0), connector));
  return out;
}

std::vector<size_t> log_sizes(const Cluster& c) {
  std::vector<size_t> out;
  for (const auto& n : c.nodes)
    out.push_back(n.log_size());
  return out;
}

/// How many `kind` lines about `task` all the nodes' logs have.
size_t count_all(const std::vector<std::vector<TaskEvent>>& events, int task, const std::string& kind) {
  size_t n = 0;
  for (const auto& per_node : events)
    n += count_events(per_node, task, kind);
  return n;
}

/// The generation in which `task` last started on a node, from its events (-1: never).
int64_t started_generation(const std::vector<TaskEvent>& events, int task) {
  int64_t g = -1;
  for (const auto& e : events)
    if (e.task == task && e.kind == "started")
      g = e.generation;
  return g;
}

std::string list_of(const std::set<int>& s) {
  std::string out;
  for (int i : s)
    out += (out.empty() ? "" : ",") + std::to_string(i);
  return "{" + out + "}";
}

} // namespace

BOOST_AUTO_TEST_SUITE(cluster_nodes)

// Must-show 1: tasks.max=6 on a 6-partition topic over three nodes -> 2/2/2, as
// every node's REST API reports it; each node started exactly the tasks its
// worker_id shows, once; the sink writes every record once; SIGTERM drains (each
// task stops, committed) and every node exits 0.
BOOST_AUTO_TEST_CASE(six_tasks_run_two_per_node) {
  const int64_t n = 30000;
  Cluster c(3);
  auto s = c.deploy("spread", static_cast<size_t>(n), 2); // created through a node that does not lead
  const auto& name = c.name;

  c.wait_for_rows(n);
  auto events = events_of(c, name);
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    BOOST_TEST_CONTEXT("node " << c[i].name << " (" << c[i].worker_id << ")") {
      for (int task : running_on(s, c[i].worker_id))
        BOOST_TEST(count_events(events[i], task, "started") == 1u, "task " << task);
      BOOST_TEST(count_events(events[i], -1, "started") == 2u);
    }
  }
  BOOST_TEST(describe(c[0].statuses(name)) == describe(s)); // still so, nothing moved
  c.check_exactly_once(n);

  auto before_stop = log_sizes(c);
  c.stop_all();
  auto drained = events_of(c, name, before_stop);
  for (size_t i = 0; i < c.nodes.size(); ++i)
    for (int task : running_on(s, c[i].worker_id))
      BOOST_TEST(count_events(drained[i], task, "stopped") == 1u,
                 "node " << c[i].name << " did not log task " << task << " stopped after SIGTERM");
}

// Must-show 2: records keep coming; kill -9 of node b with
// scheduled.rebalance.max.delay.ms=0. Its two tasks run on a and c within 5 s of the
// kill (status polled every 100 ms); the four others never restart; 3/3 after; the
// table has every record exactly once (the sink stores offsets with the rows, so
// what b wrote but had not committed to the group is skipped on replay).
BOOST_AUTO_TEST_CASE(kill_9_under_load_moves_only_the_dead_nodes_tasks_within_5_s) {
  const size_t initial = 20000;
  Cluster c(3, {{"scheduled.rebalance.max.delay.ms", "0"}});
  auto s = c.deploy("kill", initial, 0);
  const auto& topic = c.topic;
  const auto& name = c.name;
  auto b_tasks = running_on(s, c[1].worker_id);

  Load load(topic, initial, 500, 100ms); // ~5,000 records/s
  BOOST_REQUIRE_MESSAGE(wait_until(120s, 100ms, [&] { return c.rows() >= static_cast<int64_t>(initial); }),
                        "the sink did not write the first " << initial << " records: " << c.rows());
  std::this_thread::sleep_for(1s); // the load flows through every task
  auto rows_at_kill = c.rows();
  c[1].process->signal(SIGKILL);
  auto killed_at = Clock::now();
  const auto sent_at_kill = static_cast<int64_t>(load.next_id());
  auto killed = c[1].process->wait(10s);
  BOOST_REQUIRE_MESSAGE((killed && killed->signaled && killed->signal == SIGKILL),
                        "node b was not killed: " << (killed ? killed->describe() : "still running"));
  BOOST_TEST_MESSAGE("killed node b (tasks " << list_of(b_tasks) << ") with " << rows_at_kill << " rows written, "
                                             << load.next_id() << " records sent");

  // Failover: every task RUNNING, none on b, as node a reports it.
  std::vector<const Node*> survivors{&c[0], &c[2]};
  std::optional<Statuses> seen;
  bool moved = wait_until(30s, 100ms, [&] {
    seen = c[0].statuses(name);
    if (!seen || seen->size() != static_cast<size_t>(tasks))
      return false;
    return running_on(*seen, c[0].worker_id).size() + running_on(*seen, c[2].worker_id).size()
           == static_cast<size_t>(tasks);
  });
  double failover = seconds_since(killed_at);
  BOOST_REQUIRE_MESSAGE(moved, "b's tasks did not move within 30 s: " << describe(seen) << c.workers());
  BOOST_TEST_MESSAGE("kill -9 -> b's tasks RUNNING on a and c after " << failover << " s");
  BOOST_TEST(failover < 5.0, "failover took " << failover << " s (the issue says within 5 s)");

  // Printed only: when every record sent before the kill is in the table. Until the
  // moved partitions are consumed again (the group's session timeout for b's
  // consumers), their records wait.
  bool caught_up = wait_until(60s, 200ms, [&] {
    Sqlite sql(c.db);
    return sql.scalar("SELECT count(*) FROM " + std::string{table} + " WHERE id < "
                      + std::to_string(sent_at_kill)) == sent_at_kill;
  });
  BOOST_TEST_MESSAGE("kill -9 -> every record sent before it in the table after "
                     << (caught_up ? std::to_string(seconds_since(killed_at)) + " s" : std::string{"(not within 60 s)"}));
  std::this_thread::sleep_for(3s); // more load on the new placement
  auto sent = load.stop();
  BOOST_REQUIRE_MESSAGE(sent.failed == 0 && sent.error.empty(),
                        sent.failed << " records not delivered: " << sent.error);
  BOOST_REQUIRE_EQUAL(sent.delivered, sent.sent);
  const auto total = static_cast<int64_t>(initial + sent.delivered);
  c.wait_for_rows(total);

  auto after = c.wait_balanced(survivors, 3, 30s);
  auto events = events_of(c, name);
  for (int task = 0; task < tasks; ++task) {
    BOOST_TEST_CONTEXT("task " << task << (b_tasks.count(task) ? " (was on b)" : " (was on a or c)")) {
      if (b_tasks.count(task)) {
        BOOST_TEST(count_all(events, task, "started") == 2u); // on b, then on a or c
        BOOST_TEST(count_events(events[0], task, "started") + count_events(events[2], task, "started") == 1u);
      } else {
        BOOST_TEST(count_all(events, task, "started") == 1u);
        BOOST_TEST(count_all(events, task, "stopped") == 0u);
        BOOST_TEST(count_all(events, task, "abandoned") == 0u);
        BOOST_TEST(after.at(task).worker_id == s.at(task).worker_id, "a task that was not on b moved");
      }
    }
  }
  c.check_exactly_once(total);
  c.stop_all();
}

// Must-show 3: node c is killed (its tasks go to a and b, 3/3), then started again
// with the same config: 2/2/2 again by moving exactly two tasks, one from a and one
// from b (each logs one `stopped`), and c logs two `started`.
BOOST_AUTO_TEST_CASE(the_killed_node_returns_and_takes_back_exactly_two_tasks) {
  const size_t first = 10000, second = 10000;
  Cluster c(3, {{"scheduled.rebalance.max.delay.ms", "0"}});
  c.deploy("return", first, 1);
  const auto& topic = c.topic;
  const auto& name = c.name;
  c.wait_for_rows(static_cast<int64_t>(first));

  c[2].process->signal(SIGKILL);
  BOOST_REQUIRE(c[2].process->wait(10s).has_value());
  auto t0 = Clock::now();
  auto three_each = c.wait_balanced({&c[0], &c[1]}, 3, 30s);
  BOOST_TEST_MESSAGE("kill -9 of c -> 3/3 on a and b after " << seconds_since(t0) << " s");

  auto since = log_sizes(c);
  t0 = Clock::now();
  c.start(c[2]); // same config: same addresses, same worker_id
  auto back = c.wait_balanced(c.all_of(), 2, 60s);
  BOOST_TEST_MESSAGE("c restarted -> 2/2/2 after " << seconds_since(t0) << " s");
  std::this_thread::sleep_for(2s); // a further, wrong move would show now
  BOOST_TEST(describe(c[0].statuses(name)) == describe(back));

  std::set<int> moved;
  for (int task = 0; task < tasks; ++task)
    if (back.at(task).worker_id != three_each.at(task).worker_id)
      moved.insert(task);
  BOOST_TEST_MESSAGE("moved back to c: tasks " << list_of(moved));
  BOOST_TEST(moved.size() == 2u);
  BOOST_TEST((moved == running_on(back, c[2].worker_id)));
  auto events = events_of(c, name, since);
  BOOST_TEST(count_events(events[2], -1, "started") == 2u, "c's task starts after its restart");
  for (size_t i : {size_t{0}, size_t{1}}) {
    BOOST_TEST_CONTEXT("node " << c[i].name) {
      for (const auto& e : events[i])
        if (e.kind == "stopped")
          BOOST_TEST(moved.count(e.task) == 1u, "stopped task " << e.task << ", which did not move");
      BOOST_TEST(count_events(events[i], -1, "stopped") == 1u);
      BOOST_TEST(count_events(events[i], -1, "started") == 0u);
      BOOST_TEST(count_events(events[i], -1, "abandoned") == 0u);
    }
  }

  // The returned node's tasks write: more records, each once.
  produce(topic, second, [&](size_t i) { return user_record(first + i); });
  c.wait_for_rows(static_cast<int64_t>(first + second));
  c.check_exactly_once(static_cast<int64_t>(first + second));
  c.stop_all();
}

// Must-show 4: SIGSTOP of node c (it keeps its sockets; only the heartbeat tells):
// the others mark it unreachable and run its tasks; records produced meanwhile are
// written by them. SIGCONT: c rejoins, stops its stale tasks without committing
// (`abandoned`, never `stopped` for their old generation), the cluster is 2/2/2
// again, and the table has every record exactly once.
//
// c is stopped while idle (everything written): a SQLite writer frozen inside its
// transaction would hold the database's write lock and stall the other nodes' writes
// for as long as it is frozen, which is SQLite's single-writer lock, not fencing.
BOOST_AUTO_TEST_CASE(sigstop_moves_the_tasks_sigcont_abandons_the_stale_ones) {
  const size_t first = 20000, during = 20000, after = 5000;
  Cluster c(3, {{"scheduled.rebalance.max.delay.ms", "0"}});
  auto s = c.deploy("stop", first, 0);
  const auto& topic = c.topic;
  const auto& name = c.name;
  c.wait_for_rows(static_cast<int64_t>(first));
  auto c_tasks = running_on(s, c[2].worker_id);
  std::map<int, int64_t> old_generation;
  auto c_events = task_events(c[2].output(), name);
  for (int task : c_tasks)
    old_generation[task] = started_generation(c_events, task);

  auto since_stop = log_sizes(c);
  c[2].process->signal(SIGSTOP);
  auto stopped_at = Clock::now();
  // membership_actor's line; the member id starts with its address.
  const std::regex unreachable("cluster: member " + std::regex_replace(c[2].listen, std::regex(R"(\.)"), R"(\.)")
                               + R"([^0-9]\S* unreachable)");
  std::optional<double> noticed;
  std::optional<Statuses> on_a, on_b;
  bool moved = wait_until(30s, 100ms, [&] {
    for (size_t i : {size_t{0}, size_t{1}})
      if (!noticed && std::regex_search(c[i].output_since(since_stop[i]), unreachable))
        noticed = seconds_since(stopped_at);
    on_a = c[0].statuses(name);
    on_b = c[1].statuses(name);
    return Cluster::balanced(on_a, {&c[0], &c[1]}, 3) && Cluster::balanced(on_b, {&c[0], &c[1]}, 3);
  });
  double move_time = seconds_since(stopped_at);
  BOOST_TEST_MESSAGE("SIGSTOP -> c marked unreachable after "
                     << (noticed ? std::to_string(*noticed) + " s" : std::string{"(no log line seen)"})
                     << " (cluster.unreachable.timeout.ms=" << unreachable_ms << ")");
  BOOST_REQUIRE_MESSAGE(moved, "c's tasks did not move within 30 s of SIGSTOP; a says: "
                                 << describe(on_a) << "; b says: " << describe(on_b) << c.workers());
  BOOST_TEST_MESSAGE("SIGSTOP -> c's tasks " << list_of(c_tasks) << " RUNNING on a and b after " << move_time << " s");
  BOOST_TEST(noticed.has_value(), "neither a nor b logged 'cluster: member " << c[2].listen << "... unreachable'");

  // Written by a and b while c is frozen.
  produce(topic, during, [&](size_t i) { return user_record(first + i); });
  c.wait_for_rows(static_cast<int64_t>(first + during));

  auto since_cont = log_sizes(c);
  c[2].process->signal(SIGCONT);
  auto resumed_at = Clock::now();
  bool abandoned = wait_until(60s, 100ms, [&] {
    auto events = task_events(c[2].output_since(since_cont[2]), name);
    for (int task : c_tasks)
      if (count_events(events, task, "abandoned") == 0)
        return false;
    return true;
  });
  BOOST_TEST_MESSAGE("SIGCONT -> c's stale tasks abandoned after " << seconds_since(resumed_at) << " s");
  BOOST_TEST(abandoned, "c did not log its stale tasks " << list_of(c_tasks) << " abandoned within 60 s:\n"
                                                         << tail_lines(c[2].output_since(since_cont[2])));
  auto back = c.wait_balanced(c.all_of(), 2, 60s);
  BOOST_TEST_MESSAGE("SIGCONT -> 2/2/2 again after " << seconds_since(resumed_at) << " s");

  auto events = task_events(c[2].output_since(since_cont[2]), name);
  for (int task : c_tasks) {
    BOOST_TEST(count_events(events, task, "abandoned") == 1u, "task " << task);
    for (const auto& e : events)
      BOOST_TEST(!(e.task == task && e.kind == "stopped" && e.generation == old_generation[task]),
                 "c committed stale task " << task << " of generation " << e.generation);
  }
  for (size_t i : {size_t{0}, size_t{1}})
    BOOST_TEST(count_events(task_events(c[i].output_since(since_stop[i]), name), -1, "abandoned") == 0u);

  c.check_exactly_once(static_cast<int64_t>(first + during));
  produce(topic, after, [&](size_t i) { return user_record(first + during + i); });
  c.wait_for_rows(static_cast<int64_t>(first + during + after));
  c.check_exactly_once(static_cast<int64_t>(first + during + after));
  BOOST_TEST(running_on(back, c[2].worker_id).size() == 2u);
  c.stop_all();
}

BOOST_AUTO_TEST_SUITE_END()
