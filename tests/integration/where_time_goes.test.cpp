// Where the time goes (issue 22, "What it must show"), with `weir standalone` and
// `weir node` against the real broker:
//  1. a sink task whose SMT chain is expensive on purpose (20 Cast and ReplaceField
//     steps on 2 KB records of 100 numbers): its verdict names an SMT stage, and the
//     SMTs cost more per record than the consumer and the sink;
//  2. a JDBC sink on SQLite locked by another connection: the verdict names the sink
//     while the lock lasts, and `none` once the task has caught up;
//  3. tasks.max=8 on 2 scheduler threads with that chain: `scheduler saturated`;
//  4. three nodes: `weir shell -c tree` against one lists the tasks of all three; with
//     one SIGSTOPped, the tree comes within the deadline and marks it unreachable;
//  5. the scheduler threads' CPU time in actors, summed, is within 0.15 cores + 15% of
//     what /proc counts for those threads over the same interval (docs/metrics.md);
// and the per-task figures: poll-to-ack p50/p99 once records were acknowledged, the
// consumer's lag per partition summing to its total, and a consumer fed a trickle
// counted idle (its wait inside poll), with the verdict `none`.
// Figures are read from GET /weir/tree; every wait is bounded. Nothing asserts speed.
#include "tests/integration/node_cluster.hpp"
#include "tests/support/rest_worker.hpp"

#include <boost/test/unit_test.hpp>
#include <simdjson.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

constexpr int fields = 100;

/// A 2 KB schemaless JSON record: an id, 100 numbers n0..n99 and a padding string.
std::string wide_json(size_t id) {
  std::string out = R"({"id":)" + std::to_string(id);
  for (int f = 0; f < fields; ++f)
    out += ",\"n" + std::to_string(f) + "\":" + std::to_string(id + static_cast<size_t>(f));
  return out + R"(,"pad":")" + std::string(600, 'x') + "\"}";
}

/// 20 SMT stages, expensive on purpose: Cast of all 100 numbers to float64,
/// ReplaceField renaming every one (n → m), Cast back to int64, ReplaceField back
/// (m → n), five times over; each step rebuilds the record.
std::map<std::string, std::string> expensive_chain() {
  std::map<std::string, std::string> config;
  std::string aliases;
  for (int s = 0; s < 20; ++s) {
    bool cast = s % 2 == 0;
    auto alias = (cast ? "cast" : "rename") + std::to_string(s);
    aliases += (aliases.empty() ? "" : ",") + alias;
    auto prefix = "transforms." + alias + ".";
    std::string list;
    for (int f = 0; f < fields; ++f) {
      auto n = std::to_string(f);
      list += (f ? "," : "");
      if (s % 4 == 0) list += "n" + n + ":float64";
      if (s % 4 == 1) list += "n" + n + ":m" + n;
      if (s % 4 == 2) list += "m" + n + ":int64";
      if (s % 4 == 3) list += "m" + n + ":n" + n;
    }
    config[prefix + "type"] = cast ? "org.apache.kafka.connect.transforms.Cast$Value"
                                   : "org.apache.kafka.connect.transforms.ReplaceField$Value";
    config[prefix + (cast ? "spec" : "renames")] = list;
  }
  config["transforms"] = aliases;
  return config;
}

std::string connector_json(const std::string& name, const std::map<std::string, std::string>& config) {
  std::string out = R"({"name":")" + name + R"(","config":{)";
  bool first = true;
  for (const auto& [k, v] : config) {
    out += (first ? "\"" : ",\"") + k + "\":\"" + v + "\"";
    first = false;
  }
  return out + "}}";
}

/// Produces `per_tick` records (wide ones unless `value` says otherwise) every 50 ms
/// on a thread of its own until stopped, so a task never runs dry while a test
/// watches it.
class WideLoad {
public:
  explicit WideLoad(std::string topic, int partitions, int per_tick = 200,
                    std::function<std::string(size_t)> value = wide_json) {
    thread_ = std::thread([this, topic = std::move(topic), partitions, per_tick, value = std::move(value)] {
      weir::runtime::kafka::Producer producer(broker(), [](uint64_t, size_t, size_t, const std::string&) {});
      weir::Batch batch;
      uint64_t token = 0;
      size_t id = 0;
      while (!stop_) {
        batch.clear();
        for (int k = 0; k < per_tick; ++k, ++id)
          batch.append(topic, static_cast<int32_t>(id % partitions), -1, -1, std::to_string(id), value(id));
        producer.produce(batch, token++);
        producer.poll(0ms);
        std::this_thread::sleep_for(50ms);
      }
      producer.flush(30s);
    });
  }
  ~WideLoad() {
    stop_ = true;
    thread_.join();
  }

private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

/// A task as GET /weir/tree shows it.
struct TaskView {
  std::string bottleneck, bottleneck_stage;
  double p50 = -1, p99 = -1; ///< poll_to_ack in seconds; -1 while it is null
  struct Stage {
    std::string name, role;
    double busy = 0, ns_per_record = 0, records_in_per_sec = 0, idle = 0;
    int64_t lag = -1;                    ///< null: -1
    std::vector<int64_t> partition_lags; ///< consumers: each partition's (-1: null)
  };
  std::vector<Stage> stages;
  const Stage* stage(const std::string& name) const {
    for (const auto& s : stages)
      if (s.name == name)
        return &s;
    return nullptr;
  }
};

/// The node figures and tasks of a tree, by "connector-task".
struct TreeView {
  std::string node_verdict;
  int scheduler_threads = 0;
  std::vector<int> tids;          ///< the scheduler threads' kernel ids
  std::vector<uint64_t> cpu_ns;   ///< their CPU time running actors so far
  std::map<std::string, TaskView> tasks;
  std::vector<std::string> unreachable; ///< node ids
  size_t nodes = 0;
};

std::optional<TreeView> tree_of(uint16_t port, const std::string& path = "/weir/tree") {
  std::string body;
  try {
    weir::runtime::rest::test::TestClient client{port};
    auto r = client.request("GET", path);
    if (r.status != 200)
      return std::nullopt;
    body = r.body;
  } catch (const std::exception&) {
    return std::nullopt;
  }
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(body).get(doc))
    return std::nullopt;
  TreeView view;
  for (auto node : doc["nodes"].get_array()) {
    ++view.nodes;
    bool unreachable = false;
    if (!node["unreachable"].get(unreachable) && unreachable) {
      view.unreachable.emplace_back(std::string_view(node["id"]));
      continue;
    }
    std::string_view verdict;
    if (!node["verdict"].get(verdict))
      view.node_verdict = verdict;
    for (auto t : node["scheduler"]["threads"].get_array()) {
      ++view.scheduler_threads;
      view.tids.push_back(static_cast<int>(int64_t(t["tid"])));
      view.cpu_ns.push_back(uint64_t(t["cpu_ns"]));
    }
    for (auto c : node["connectors"].get_array())
      for (auto t : c["tasks"].get_array()) {
        TaskView task;
        std::string_view text;
        if (!t["bottleneck"].get(text))
          task.bottleneck = text;
        if (!t["bottleneck_stage"].get(text))
          task.bottleneck_stage = text;
        simdjson::dom::element latency;
        if (!t["poll_to_ack"].get(latency) && !latency.is_null()) {
          task.p50 = double(latency["p50"]);
          task.p99 = double(latency["p99"]);
        }
        for (auto s : t["stages"].get_array()) {
          TaskView::Stage stage{std::string{std::string_view(s["name"])}, std::string{std::string_view(s["role"])},
                                double(s["busy"]), double(s["ns_per_record"]), double(s["records_in_per_sec"]),
                                double(s["idle"]), -1, {}};
          int64_t n = -1;
          if (!s["lag"].get(n))
            stage.lag = n;
          simdjson::dom::array lags;
          if (!s["partition_lags"].get(lags))
            for (auto p : lags)
              stage.partition_lags.push_back(p["lag"].get(n) ? -1 : n);
          task.stages.push_back(std::move(stage));
        }
        view.tasks[std::string{std::string_view(c["name"])} + "-" + std::to_string(int64_t(t["id"]))] = task;
      }
  }
  return view;
}

std::string describe(const TaskView& t) {
  std::ostringstream out;
  out << "verdict '" << t.bottleneck << "', poll to ack p50 " << t.p50 << " s, p99 " << t.p99 << " s";
  for (const auto& s : t.stages) {
    out << "\n  " << s.name << " (" << s.role << "): busy " << s.busy << ", idle " << s.idle << ", "
        << s.ns_per_record << " ns/record, in " << s.records_in_per_sec << "/s";
    if (s.lag >= 0 || !s.partition_lags.empty()) {
      out << ", lag " << s.lag << " (";
      for (auto l : s.partition_lags)
        out << ' ' << l;
      out << " )";
    }
  }
  return out.str();
}

/// The known per-partition lags of a consumer, summed (-1 when none is known).
int64_t summed(const std::vector<int64_t>& lags) {
  int64_t total = -1;
  for (auto l : lags)
    if (l >= 0)
      total = std::max<int64_t>(total, 0) + l;
  return total;
}

/// utime + stime of thread `tid` of process `pid`, in clock ticks (0 if gone).
uint64_t thread_ticks(pid_t pid, int tid) {
  std::ifstream in{"/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat"};
  std::string line;
  std::getline(in, line);
  auto close = line.rfind(')');
  if (close == std::string::npos)
    return 0;
  std::istringstream rest{line.substr(close + 2)};
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return utime + stime;
}

struct Standalone {
  TempDir dir{"weir-time"};
  RestWorker w;

  explicit Standalone(std::map<std::string, std::string> extra = {}) : w(start_worker(dir, std::move(extra))) {}
  ~Standalone() {
    if (current_test_failing())
      dir.keep();
    if (w.process && w.process->running())
      stop_cleanly(*w.process);
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(where_time_goes)

BOOST_AUTO_TEST_CASE(an_expensive_smt_chain_is_named_and_its_stages_cost_most) {
  auto topic = unique_name("weir-itest-time-smt");
  create_topic(topic, 1);
  produce(topic, 20000, [](size_t i) { return OutRecord{0, std::to_string(i), wide_json(i)}; }, 1000);
  WideLoad load{topic, 1};
  Standalone s;
  auto config = expensive_chain();
  config["connector.class"] = "FileStreamSink";
  config["topics"] = topic;
  config["file"] = "/dev/null";
  BOOST_REQUIRE_EQUAL(s.w.call("POST", "/connectors", connector_json("smt", config)).status, 201);

  TaskView task;
  bool named = wait_until(60s, 500ms, [&] {
    auto tree = tree_of(s.w.port);
    if (!tree || !tree->tasks.count("smt-0"))
      return false;
    task = tree->tasks["smt-0"];
    return task.bottleneck_stage.starts_with("rename") || task.bottleneck_stage.starts_with("cast");
  });
  BOOST_TEST_MESSAGE(describe(task));
  BOOST_TEST(named, describe(task));
  // On a saturated scheduler the verdict says so first, and names the stage where
  // the threads' time goes.
  BOOST_TEST((task.bottleneck.starts_with("bottleneck: " + task.bottleneck_stage + " (")
              || (task.bottleneck.starts_with("scheduler saturated: ")
                  && task.bottleneck.find("(busiest " + task.bottleneck_stage + " (") != std::string::npos)),
             task.bottleneck);
  // The SMTs together cost more per record than the consumer and the sink.
  double smts = 0, others = 0;
  for (const auto& st : task.stages)
    (st.role == "transform" ? smts : others) += st.ns_per_record;
  BOOST_TEST(smts > others, describe(task));
}

BOOST_AUTO_TEST_CASE(a_locked_destination_names_the_sink_then_none_once_caught_up) {
  Standalone s;
  auto topic = unique_name("weir-itest-time-jdbc");
  create_topic(topic, 2);
  auto db = s.dir.path() + "/sink.db";
  // Two partitions, unevenly fed (2 of every 3 records to partition 0), so that
  // their lags differ while the sink is held up.
  auto record = [](size_t i) {
    return OutRecord{i % 3 == 2 ? 1 : 0, std::to_string(i),
                     R"({"id":)" + std::to_string(i) + R"(,"name":"user-)" + std::to_string(i) + "\"}"};
  };
  produce(topic, 5000, record);
  std::map<std::string, std::string> config{{"connector.class", "io.confluent.connect.jdbc.JdbcSinkConnector"},
                                            {"topics", topic},
                                            {"connection.url", "jdbc:sqlite:" + db},
                                            {"table.name.format", "users"},
                                            {"insert.mode", "insert"},
                                            {"pk.mode", "none"},
                                            {"auto.create", "true"}};
  BOOST_REQUIRE_EQUAL(s.w.call("POST", "/connectors", connector_json("jdbc", config)).status, 201);
  auto rows = [&] {
    if (!std::filesystem::exists(db))
      return int64_t{-1};
    Sqlite sql(db);
    return sql.scalar("SELECT count(*) FROM users", -1);
  };
  BOOST_REQUIRE_MESSAGE(wait_until(60s, 200ms, [&] { return rows() >= 5000; }), rows() << " of 5000 rows");

  TaskView task;
  {
    Sqlite lock(db);
    lock.exec("BEGIN EXCLUSIVE"); // the sink's next write waits for it (busy timeout 30 s)
    produce(topic, 20000, [&](size_t i) { return record(5000 + i); });
    bool named = wait_until(20s, 250ms, [&] {
      auto tree = tree_of(s.w.port);
      if (tree && tree->tasks.count("jdbc-0"))
        task = tree->tasks["jdbc-0"];
      return task.bottleneck_stage == "sink";
    });
    BOOST_TEST_MESSAGE("while locked: " << describe(task));
    BOOST_TEST(named, describe(task));
    BOOST_TEST(task.bottleneck.starts_with("bottleneck: sink (JdbcSinkConnector, SQLite): "), task.bottleneck);
    // The consumer's lag per partition: both partitions behind, and summing to its total.
    const TaskView::Stage* consumer = nullptr;
    bool behind = wait_until(20s, 250ms, [&] {
      auto tree = tree_of(s.w.port);
      if (tree && tree->tasks.count("jdbc-0"))
        task = tree->tasks["jdbc-0"];
      consumer = task.stage("consumer");
      return consumer && consumer->partition_lags.size() == 2 && consumer->partition_lags[0] > 0
             && consumer->partition_lags[1] > 0;
    });
    BOOST_TEST_MESSAGE("lag while locked: " << describe(task));
    BOOST_REQUIRE_MESSAGE(behind, describe(task));
    BOOST_TEST(summed(consumer->partition_lags) == consumer->lag, describe(task));
    BOOST_TEST(consumer->partition_lags[0] != consumer->partition_lags[1], describe(task));
    auto metrics = s.w.call("GET", "/metrics");
    BOOST_TEST(has(metrics, "weir_consumer_records_lag{connector=\"jdbc\",task=\"0\",stage=\"consumer\",topic=\"" +
                              topic + "\",partition=\"1\"}"),
               metrics.body);
    auto status = s.w.call("GET", "/connectors/jdbc/status");
    BOOST_TEST(has(status, R"("bottleneck":"bottleneck: sink (JdbcSinkConnector, SQLite))"), status.body);
    lock.exec("COMMIT");
  }
  BOOST_REQUIRE_MESSAGE(wait_until(60s, 200ms, [&] { return rows() >= 25000; }), rows() << " of 25000 rows");
  bool none = wait_until(30s, 250ms, [&] {
    auto tree = tree_of(s.w.port);
    if (tree && tree->tasks.count("jdbc-0"))
      task = tree->tasks["jdbc-0"];
    return task.bottleneck.starts_with("bottleneck: none (Kafka): the consumer is idle");
  });
  BOOST_TEST_MESSAGE("caught up: " << describe(task));
  BOOST_TEST(none, describe(task));
  BOOST_TEST(task.bottleneck.ends_with("lag 0"), task.bottleneck);
  // Records were acknowledged: the poll-to-ack quantiles are there and ordered.
  BOOST_TEST(task.p50 > 0.0, describe(task));
  BOOST_TEST(task.p99 >= task.p50, describe(task));
  auto metrics = s.w.call("GET", "/metrics");
  BOOST_TEST(has(metrics, "weir_task_poll_to_ack_seconds{connector=\"jdbc\",task=\"0\",quantile=\"0.99\"}"),
             metrics.body);
  // The progress line says it too.
  bool printed = wait_until(15s, 250ms, [&] {
    return s.w.process->output().find("[jdbc] task 0: bottleneck: none (Kafka)") != std::string::npos;
  });
  BOOST_TEST(printed, tail_lines(s.w.process->output()));
}

BOOST_AUTO_TEST_CASE(a_consumer_fed_a_trickle_is_idle_and_its_records_are_acked_quickly) {
  auto topic = unique_name("weir-itest-time-trickle");
  create_topic(topic, 1);
  Standalone s;
  std::map<std::string, std::string> config{{"connector.class", "FileStreamSink"},
                                            {"topics", topic},
                                            {"file", s.dir.path() + "/out.txt"}};
  BOOST_REQUIRE_EQUAL(s.w.call("POST", "/connectors", connector_json("trickle", config)).status, 201);
  // Two records every 50 ms: each poll waits most of its timeout for the next ones.
  auto trickle = std::make_unique<WideLoad>(topic, 1, 2, [](size_t id) { return R"({"id":)" + std::to_string(id) + "}"; });
  TaskView task;
  bool idle = wait_until(60s, 500ms, [&] {
    auto tree = tree_of(s.w.port);
    if (tree && tree->tasks.count("trickle-0"))
      task = tree->tasks["trickle-0"];
    auto consumer = task.stage("consumer");
    return consumer && consumer->records_in_per_sec > 0 && task.p50 > 0
           && task.bottleneck.starts_with("bottleneck: none (Kafka): the consumer is idle");
  });
  trickle.reset();
  BOOST_TEST_MESSAGE("trickle: " << describe(task));
  BOOST_TEST(idle, describe(task));
  auto consumer = task.stage("consumer");
  BOOST_REQUIRE(consumer);
  BOOST_TEST(consumer->records_in_per_sec > 0.0, describe(task)); // records flowed in that interval
  BOOST_TEST(consumer->busy < 0.5, describe(task));
  BOOST_TEST(consumer->idle >= 0.5, describe(task));
  BOOST_TEST(task.p99 >= task.p50, describe(task));
}

BOOST_AUTO_TEST_CASE(eight_cpu_bound_tasks_on_two_threads_saturate_the_scheduler_and_proc_agrees) {
  auto topic = unique_name("weir-itest-time-sat");
  create_topic(topic, 8);
  produce(topic, 20000, [](size_t i) { return OutRecord{static_cast<int32_t>(i % 8), std::to_string(i), wide_json(i)}; },
          1000);
  WideLoad load{topic, 8};
  Standalone s{{{"scheduler.threads", "2"}}};
  auto config = expensive_chain();
  config["connector.class"] = "FileStreamSink";
  config["tasks.max"] = "8";
  config["topics"] = topic;
  config["file"] = "/dev/null";
  BOOST_REQUIRE_EQUAL(s.w.call("POST", "/connectors", connector_json("sat", config)).status, 201);

  std::optional<TreeView> tree;
  bool saturated = wait_until(60s, 500ms, [&] {
    tree = tree_of(s.w.port);
    if (!tree || !tree->node_verdict.starts_with("scheduler saturated: 2 of 2 threads"))
      return false;
    for (const auto& [id, t] : tree->tasks)
      if (t.bottleneck.find("scheduler saturated: 2 of 2 threads") != std::string::npos)
        return true;
    return false;
  });
  BOOST_REQUIRE(tree);
  BOOST_TEST_MESSAGE("node: '" << tree->node_verdict << "'");
  for (const auto& [id, t] : tree->tasks)
    BOOST_TEST_MESSAGE(id << ": " << describe(t));
  BOOST_TEST(saturated, tree->node_verdict);
  BOOST_TEST(tree->scheduler_threads == 2);

  // Item 5, over the same interval: the meter's CPU time in actors against /proc's
  // CPU time of the same threads (which adds their polling and waking).
  auto pid = s.w.process->pid();
  auto proc_ticks = [&](const std::vector<int>& tids) {
    uint64_t sum = 0;
    for (int tid : tids)
      sum += thread_ticks(pid, tid);
    return sum;
  };
  auto t0 = Clock::now();
  auto before = tree_of(s.w.port);
  BOOST_REQUIRE(before && before->tids.size() == 2u);
  auto ticks0 = proc_ticks(before->tids);
  std::this_thread::sleep_for(5s);
  auto after = tree_of(s.w.port);
  auto ticks1 = proc_ticks(before->tids);
  double seconds = seconds_since(t0);
  BOOST_REQUIRE(after && after->cpu_ns.size() == 2u);
  double metered = 0;
  for (size_t i = 0; i < 2; ++i)
    metered += static_cast<double>(after->cpu_ns[i] - before->cpu_ns[i]) / 1e9 / seconds;
  double proc = static_cast<double>(ticks1 - ticks0) / static_cast<double>(sysconf(_SC_CLK_TCK)) / seconds;
  BOOST_TEST_MESSAGE("scheduler threads over " << seconds << " s: metered " << metered << " cores in actors, /proc "
                                               << proc << " cores");
  BOOST_TEST(std::fabs(metered - proc) <= 0.15 + 0.15 * proc, "metered " << metered << ", /proc " << proc);
}

BOOST_AUTO_TEST_CASE(the_cluster_tree_lists_every_node_and_marks_a_stopped_one_unreachable) {
  nodes::Cluster c{3};
  c.deploy("tree", 3000, 0);
  // weir shell -c tree against node a: the tasks of all three nodes.
  std::string shell_log = c.dir / "shell.log";
  ChildProcess shell{{weir_binary(), "shell", "--url", "http://" + c[0].worker_id, "-c", "tree"}, shell_log};
  auto ended = shell.wait(30s);
  BOOST_REQUIRE_MESSAGE(ended && ended->clean(), "weir shell -c tree: " << (ended ? ended->describe() : "still running"));
  auto out = shell.output();
  for (const auto& n : c.nodes)
    BOOST_TEST(out.find("node " + n.worker_id) != std::string::npos, out);
  size_t tasks = 0;
  for (auto at = out.find("    task "); at != std::string::npos; at = out.find("    task ", at + 1))
    ++tasks;
  BOOST_TEST(tasks == static_cast<size_t>(nodes::tasks), out);

  c[2].process->signal(SIGSTOP);
  auto t0 = Clock::now();
  auto tree = tree_of(c[0].rest_port, "/weir/tree?scope=cluster");
  double took = seconds_since(t0);
  c[2].process->signal(SIGCONT);
  BOOST_REQUIRE(tree);
  BOOST_TEST_MESSAGE("with node c stopped the tree took " << took << " s");
  // The request's deadline (the REST timeout) bounds the wait for c at 5 s.
  BOOST_TEST(took < 10.0);
  BOOST_TEST(tree->nodes == 3u);
  BOOST_TEST(tree->unreachable == std::vector<std::string>{c[2].worker_id});
  c.stop_all();
}

BOOST_AUTO_TEST_SUITE_END()
