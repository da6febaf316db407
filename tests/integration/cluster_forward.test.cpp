// Requests about a task go to the node that runs it (issue 19, "The cluster" item
// 2): two `weir node` processes; a tap and a restart of a task running on node b,
// asked through node a, are answered by b, status code included, as Kafka Connect
// forwards a task restart to the worker that owns it. The tap streams through a,
// and b ends it once a's reader has gone. A request forwarded once
// (`forward=false`) that still finds the task elsewhere is refused with 409, so two
// nodes that disagree never pass it back and forth.
#include "tests/integration/node_cluster.hpp"
#include "tests/support/rest_worker.hpp"

using namespace weir::testing;
using namespace weir::testing::nodes;
using namespace std::chrono_literals;

namespace {

/// Automatic restarts off: a FAILED task stays FAILED until asked.
const std::map<std::string, std::string> settings = {{"scheduled.rebalance.max.delay.ms", "0"},
                                                     {"task.restart.max.attempts", "0"}};

/// A task's status as node `via` reports it, with its trace.
struct TaskReport {
  std::string state, worker_id, trace;
};

std::optional<TaskReport> task_status(const Node& via, const std::string& connector, int task) {
  auto r = via.call("GET", "/connectors/" + connector + "/tasks/" + std::to_string(task) + "/status");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view state, worker, trace;
  if (r.status != 200 || parser.parse(r.body).get(doc) || doc["state"].get(state) || doc["worker_id"].get(worker))
    return std::nullopt;
  if (doc["trace"].get(trace))
    trace = {};
  return TaskReport{std::string{state}, std::string{worker}, std::string{trace}};
}

/// Waits until both nodes report the two tasks of `connector` in `state`, one on
/// each node; returns {task on a, task on b}.
std::pair<int, int> wait_one_each(Cluster& c, const std::string& connector, const std::string& state) {
  std::pair<int, int> placed{-1, -1};
  std::string seen;
  bool ok = wait_until(60s, 200ms, [&] {
    placed = {-1, -1};
    seen.clear();
    for (const auto* n : c.all_of())
      for (int t = 0; t < 2; ++t) {
        auto s = task_status(*n, connector, t);
        seen += n->name + ":" + std::to_string(t) + "=" + (s ? s->state + "@" + s->worker_id : "?") + " ";
        if (!s || s->state != state)
          return false;
        (s->worker_id == c[0].worker_id ? placed.first : placed.second) = t;
      }
    return placed.first >= 0 && placed.second >= 0;
  });
  BOOST_REQUIRE_MESSAGE(ok, connector << ": not one task " << state << " on each node within 60 s: " << seen
                                      << c.workers());
  return placed;
}

std::string task_path(const std::string& connector, int task) {
  return "/connectors/" + connector + "/tasks/" + std::to_string(task);
}

} // namespace

BOOST_AUTO_TEST_SUITE(cluster_forward)

BOOST_AUTO_TEST_CASE(a_tap_and_a_restart_of_a_task_on_b_asked_through_a_are_answered_by_b) {
  Cluster c(2, settings);
  auto topic = unique_name("weir-itest-forward");
  create_topic(topic, 2);
  c.start_all();
  auto& a = c[0];
  auto& b = c[1];

  // A source that keeps producing, with an SMT stage to tap.
  auto gen = unique_name("forward-gen");
  auto created = a.call("POST", "/connectors",
                        R"({"name":")" + gen + R"(","config":{)"
                        R"("connector.class":"io.confluent.kafka.connect.datagen.DatagenConnector",)"
                        R"("tasks.max":"2","kafka.topic":")" + topic + R"(","quickstart":"orders",)"
                        R"("max.interval":"20","iterations":"100000000","random.seed":"7",)"
                        R"("transforms":"mark","transforms.mark.type":"org.apache.kafka.connect.transforms.InsertField$Value",)"
                        R"("transforms.mark.static.field":"via","transforms.mark.static.value":"mark"}})");
  BOOST_REQUIRE_MESSAGE(created.status == 201, created.status << " " << created.body);
  auto [gen_on_a, gen_on_b] = wait_one_each(c, gen, "RUNNING");

  // The tap through a reaches b's task: records that passed its SMT.
  auto tap = a.call("GET", "/weir" + task_path(gen, gen_on_b) + "/stages/mark/tap?count=3&timeout_ms=20000");
  BOOST_TEST(tap.status == 200, tap.status << " " << tap.body);
  BOOST_TEST(std::count(tap.body.begin(), tap.body.end(), '\n') == 3, tap.body);
  simdjson::dom::parser parser;
  std::istringstream lines(tap.body);
  for (std::string line; std::getline(lines, line);) {
    std::string_view via;
    BOOST_TEST(!parser.parse(line)["value"]["via"].get(via), line);
    BOOST_TEST(via == "mark");
  }
  // The tap streams through a: records come as they pass, long before the tap
  // would end; when its reader goes, a lets go of b, and b ends the tap.
  {
    weir::runtime::rest::test::TestClient reader{a.rest_port};
    BOOST_REQUIRE(reader.send_raw("GET /weir" + task_path(gen, gen_on_b)
                                  + "/stages/mark/tap?count=10000&timeout_ms=60000 HTTP/1.1\r\nHost: a\r\n\r\n"));
    auto head = reader.read_head();
    BOOST_TEST(head.status == 200);
    BOOST_TEST((head.header("transfer-encoding") && *head.header("transfer-encoding") == "chunked"));
    std::string first;
    reader.read_chunks([&](const std::string& data) {
      first = data;
      return false; // one piece is enough
    });
    BOOST_TEST(first.find("\"via\":\"mark\"") != std::string::npos, first);
  } // the reader closes its connection
  auto ended = "tap of stage mark of task " + gen + "-" + std::to_string(gen_on_b) + " ended after";
  BOOST_TEST(eventually([&] { return b.output().find(ended) != std::string::npos; }, 20s),
             "b's log has no '" << ended << "' 20 s after the reader left");
  BOOST_TEST(b.output().find("its reader has gone") != std::string::npos);

  // b's errors come back as b gave them: only b knows the task's stages.
  auto unknown = a.call("GET", "/weir" + task_path(gen, gen_on_b) + "/stages/nope/tap?timeout_ms=100");
  BOOST_TEST(unknown.status == 404);
  BOOST_TEST(unknown.body.find("Stage nope not found in task " + gen + "-" + std::to_string(gen_on_b))
               != std::string::npos, unknown.body);
  auto poller = a.call("GET", "/weir" + task_path(gen, gen_on_b) + "/stages/poller/tap?timeout_ms=100");
  BOOST_TEST(poller.status == 400, poller.body);
  BOOST_TEST(poller.body.find("cannot be tapped") != std::string::npos, poller.body);

  // A sink whose file cannot be created: both tasks FAILED, one on each node.
  std::filesystem::path dir = c.dir / "out";
  auto files = unique_name("forward-files");
  created = a.call("POST", "/connectors",
                   R"({"name":")" + files + R"(","config":{)"
                   R"("connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector",)"
                   R"("tasks.max":"2","topics":")" + topic + R"(","file":")" + (dir / "sink.txt").string() + R"("}})");
  BOOST_REQUIRE_MESSAGE(created.status == 201, created.status << " " << created.body);
  auto [files_on_a, files_on_b] = wait_one_each(c, files, "FAILED");
  BOOST_TEST(task_status(a, files, files_on_b)->trace.find("Couldn't find or create file") != std::string::npos);

  // Once the folder exists, a restart of b's task asked through a runs it again on
  // b; a's task, not asked, stays FAILED.
  std::filesystem::create_directories(dir);
  auto b_log = b.log_size();
  auto a_log = a.log_size();
  auto restart = a.call("POST", task_path(files, files_on_b) + "/restart");
  BOOST_TEST(restart.status == 204, restart.status << " " << restart.body);
  std::optional<TaskReport> after;
  bool running = wait_until(30s, 200ms, [&] {
    after = task_status(a, files, files_on_b);
    return after && after->state == "RUNNING";
  });
  BOOST_TEST(running, "task " << files_on_b << " after the restart: " << (after ? after->state : "?"));
  BOOST_TEST(after->worker_id == b.worker_id);
  BOOST_TEST(after->trace.empty(), after->trace);
  auto restarted = "connector " + files + " task " + std::to_string(files_on_b) + " restarted";
  BOOST_TEST(b.output_since(b_log).find(restarted) != std::string::npos, "b's log has no '" << restarted << "'");
  BOOST_TEST(a.output_since(a_log).find(restarted) == std::string::npos);
  BOOST_TEST(task_status(a, files, files_on_a)->state == "FAILED");
  BOOST_TEST(std::filesystem::exists(dir / "sink.txt"));

  // A task no node runs is not found, whichever node is asked.
  auto missing = a.call("POST", task_path(files, 7) + "/restart");
  BOOST_TEST(missing.status == 404, missing.body);
  // A request forwarded once is not forwarded again: b does not run a's task.
  auto hop = b.call("POST", task_path(files, files_on_a) + "/restart?forward=false");
  BOOST_TEST(hop.status == 409, hop.body);
  BOOST_TEST(hop.body.find("conflicting operation") != std::string::npos, hop.body);
  auto hop_tap = b.call("GET", "/weir" + task_path(gen, gen_on_a) + "/stages/mark/tap?forward=false&timeout_ms=100");
  BOOST_TEST(hop_tap.status == 409, hop_tap.body);
  // Without it, b forwards to a, which restarts its own task: the file opens now.
  auto back = b.call("POST", task_path(files, files_on_a) + "/restart");
  BOOST_TEST(back.status == 204, back.body);
  running = wait_until(30s, 200ms, [&] {
    after = task_status(b, files, files_on_a);
    return after && after->state == "RUNNING";
  });
  BOOST_TEST(running, "task " << files_on_a << " after its restart through b: " << (after ? after->state : "?"));
  c.stop_all();
}

BOOST_AUTO_TEST_SUITE_END()
