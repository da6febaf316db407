// weir's own endpoints over real HTTP against the in-memory herder: the actor
// tree's JSON, /metrics' content type and series, tap's validation and answers,
// the log tail's lines.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <thread>

#include <spdlog/spdlog.h>

#include "runtime/log_tail.hpp"
#include "tests/support/fake_herder.hpp"
#include "tests/support/http_client.hpp"
#include "runtime/rest/weir_api.hpp"
#include "runtime/rest/connect_json.hpp"
#include "runtime/rest/weir_json.hpp"

using namespace weir::runtime::rest;
using weir::runtime::rest::test::FakeHerder;
using weir::runtime::rest::test::TestClient;

namespace {

// A REST server on an ephemeral loopback port over a fake herder holding a sink
// (one task, no SMTs) and a source (two tasks, one SMT), and a client.
struct Weir {
  Weir() : server(herder, loopback()), client(server.port()) {
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    herder.put_connector_config("sink", {{"name", "sink"}, {"connector.class", "FileStreamSink"},
                                         {"tasks.max", "1"}, {"topics", "orders"}},
                                std::nullopt, false, until);
    herder.put_connector_config("source", {{"name", "source"}, {"connector.class", "FileStreamSource"},
                                           {"tasks.max", "2"}, {"transforms", "mask"}},
                                std::nullopt, false, until);
  }
  static HttpServerOptions loopback() {
    HttpServerOptions options;
    options.listener = "http://127.0.0.1:0";
    return options;
  }

  FakeHerder herder;
  ConnectRestServer server;
  TestClient client;
};

std::string error(int status, const std::string& message) {
  return R"({"error_code":)" + std::to_string(status) + R"(,"message":")" + message + R"("})";
}

const std::string credit =
    R"("credit":{"granted":{"batches":8,"bytes":1048576},"held":{"batches":2,"bytes":2048}},)"
    R"("out_credit":{"granted":{"batches":8,"bytes":1048576},"in_flight":{"batches":1,"bytes":1024},)"
    R"("max_in_flight":{"batches":8,"bytes":8192}},)";
const std::string counters = R"("records_in":1000,"records_out":1000,"batches_in":10,"bytes_in":100000,)"
                             R"("records_in_per_sec":100.0,"records_out_per_sec":100.0,"bytes_in_per_sec":10000.0,)";
const std::string sink_connector =
    R"({"name":"sink","type":"sink","state":"RUNNING","worker_id":"127.0.0.1:8083",)"
    R"("actor":6,"instance":{"actor":7,"restarts":1},"tasks":[)"
    R"({"id":0,"state":"RUNNING","worker_id":"127.0.0.1:8083",)"
    R"x("bottleneck":"bottleneck: sink (fake)","bottleneck_stage":"sink","poll_to_ack":{"p50":0.012,"p99":0.04},)x"
    R"("stages":[)"
    R"({"name":"consumer","role":"sink_reader","kind":"consumer","state":"RUNNING","mailbox":0,)" +
    credit + counters +
    R"("errors":0,"last_error":null,"cpu_ns":2000000,"cpu_per_sec":0.25,)"
    R"("busy_ns":0,"busy":0.3,"ns_per_record":2000.0,"credit_wait_ns":0,"credit_wait":0.5,"upstream_wait":0.0,)"
    R"("idle":0.0,"lag":42,"partitions":3,"partition_lags":[{"topic":"orders","partition":0,"lag":10},)"
    R"({"topic":"orders","partition":1,"lag":12},{"topic":"orders","partition":2,"lag":20}]},)"
    R"({"name":"sink","role":"sink_writer","kind":"sink","state":"RUNNING","mailbox":1,)" +
    credit + counters +
    R"("errors":0,"last_error":null,"cpu_ns":4000000,"cpu_per_sec":0.5,)"
    R"("busy_ns":0,"busy":0.6,"ns_per_record":4000.0,"credit_wait_ns":0,"credit_wait":0.0,"upstream_wait":0.5,)"
    R"("idle":0.0,"lag":null,"partitions":null}],"instance":{"actor":20,"restarts":0}}]})";
// The fake node's figures (FakeHerder::actor_tree).
const std::string fake_node =
    R"({"id":"127.0.0.1:8083","leader":true,"scheduler":{"threads":[)"
    R"({"id":0,"tid":100,"busy":0.5,"cpu":0.0,"busy_ns":0,"cpu_ns":0},)"
    R"({"id":1,"tid":101,"busy":0.25,"cpu":0.0,"busy_ns":0,"cpu_ns":0}],"busy_threads":0,"run_queue":1},)"
    R"("threads":[{"group":"scheduler","count":2,"cpu":0.75},{"group":"kafka","count":4,"cpu":0.125}],)"
    R"("process":{"cpu":1.0,"rss_bytes":67108864,"fds":32,"connections":8},"verdict":null,)";

} // namespace

BOOST_AUTO_TEST_SUITE(weir_api)

BOOST_AUTO_TEST_CASE(tree_of_one_connector_has_every_field) {
  Weir weir;
  auto tree = weir.client.request("GET", "/weir/tree/sink");
  BOOST_TEST(tree.status == 200);
  BOOST_TEST(*tree.header("content-type") == "application/json");
  BOOST_TEST(tree.body == R"({"nodes":[)" + fake_node + R"("connectors":[)" + sink_connector + "]}]}");
}

BOOST_AUTO_TEST_CASE(whole_tree_lists_every_connector_task_and_stage) {
  Weir weir;
  auto tree = weir.client.request("GET", "/weir/tree");
  BOOST_TEST(tree.status == 200);
  BOOST_TEST(tree.body.find(sink_connector) != std::string::npos);
  // The source: two tasks, each poller → mask → producer.
  BOOST_TEST(tree.body.find(R"({"name":"source","type":"source","state":"RUNNING")") != std::string::npos);
  BOOST_TEST(tree.body.find(R"x({"id":1,"state":"RUNNING","worker_id":"127.0.0.1:8083",)x"
                            R"x("bottleneck":"bottleneck: producer (fake)","bottleneck_stage":"producer",)x"
                            R"("poll_to_ack":{"p50":0.012,"p99":0.04},"stages":[)"
                            R"({"name":"poller","role":"source_reader","kind":"file")") != std::string::npos);
  BOOST_TEST(tree.body.find(R"({"name":"mask","role":"transform","kind":"transform")") != std::string::npos);
  BOOST_TEST(tree.body.find(R"({"name":"producer","role":"source_writer","kind":"producer")") != std::string::npos);
  BOOST_TEST(tree.body.find(R"("records_in":2000,)") != std::string::npos); // task 1's figures
}

BOOST_AUTO_TEST_CASE(tree_shows_failures) {
  Weir weir;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  weir.herder.put_connector_config("bad", {{"name", "bad"}, {"connector.class", "FileStreamSink"},
                                           {"fail.task", "0"}},
                                   std::nullopt, false, until);
  auto tree = weir.client.request("GET", "/weir/tree/bad");
  BOOST_TEST(tree.status == 200);
  BOOST_TEST(tree.body.find(R"({"id":0,"state":"FAILED","worker_id":"127.0.0.1:8083",)"
                            R"("trace":"java.lang.RuntimeException: boom in bad",)"
                            R"("bottleneck":null,"bottleneck_stage":null,"poll_to_ack":null,"stages":[)") != std::string::npos);
  BOOST_TEST(tree.body.find(R"("errors":1,"last_error":"boom",)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(tree_of_unknown_connector_is_404) {
  Weir weir;
  auto tree = weir.client.request("GET", "/weir/tree/nope");
  BOOST_TEST(tree.status == 404);
  BOOST_TEST(tree.body == error(404, "Connector nope not found"));
  BOOST_TEST(weir.client.request("POST", "/weir/tree").status == 405);
  BOOST_TEST(weir.client.request("GET", "/weir/trees").status == 404);
}

BOOST_AUTO_TEST_CASE(empty_tree) {
  FakeHerder herder;
  ConnectRestServer server{herder, Weir::loopback()};
  TestClient client{server.port()};
  auto tree = client.request("GET", "/weir/tree");
  BOOST_TEST(tree.body == R"({"nodes":[)" + fake_node + R"("connectors":[]}]})");
}

BOOST_AUTO_TEST_CASE(stage_json_writes_large_counters_and_rates) {
  TreeStage stage{"flatten", "transform", {}};
  stage.rates.records_in_per_sec = 0.5;
  stage.rates.records_out_per_sec = 1e7;
  stage.rates.cpu_per_sec = 1.25;
  stage.stats.records_in = 18'000'000'000'000'000'000u;
  stage.stats.last_error = "bad \"record\"";
  std::string out;
  append_tree_stage(stage, out);
  BOOST_TEST(out.find(R"("records_in":18000000000000000000,)") != std::string::npos);
  BOOST_TEST(out.find(R"("records_in_per_sec":0.5,"records_out_per_sec":1.0E7,)") != std::string::npos);
  BOOST_TEST(out.find(R"("last_error":"bad \"record\"")") != std::string::npos);
  BOOST_TEST(out.find(R"("cpu_per_sec":1.25,"busy_ns":0,)") != std::string::npos);
  BOOST_TEST(out.find(R"("idle":0.0,"lag":null,"partitions":null})") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_gathered_tree_reads_back_as_written_unreachable_nodes_included) {
  Weir weir;
  auto tree = weir.herder.actor_tree(std::nullopt, std::chrono::steady_clock::now() + std::chrono::seconds(5));
  TreeNode gone{"127.0.0.1:9999", false, {}};
  gone.unreachable = true;
  tree.nodes.push_back(gone);
  std::string first;
  append_actor_tree(tree, first);
  BOOST_TEST(first.find(R"({"id":"127.0.0.1:9999","leader":false,"unreachable":true,"connectors":[]})") !=
             std::string::npos);
  std::string second;
  append_actor_tree(parse_actor_tree(first), second);
  BOOST_TEST(second == first);
}

BOOST_AUTO_TEST_CASE(a_task_status_carries_the_bottleneck_beside_connects_fields) {
  std::string out;
  append_task_state({0, {"RUNNING", "127.0.0.1:8083", ""}, "bottleneck: none (Kafka): the consumer is idle 88%, lag 0"},
                    out);
  BOOST_TEST(out == R"({"id":0,"state":"RUNNING","worker_id":"127.0.0.1:8083",)"
                    R"("bottleneck":"bottleneck: none (Kafka): the consumer is idle 88%, lag 0"})");
  out.clear();
  append_task_state({1, {"FAILED", "127.0.0.1:8083", "boom"}}, out); // none known: Connect's fields alone
  BOOST_TEST(out == R"({"id":1,"state":"FAILED","worker_id":"127.0.0.1:8083","trace":"boom"})");
}

BOOST_AUTO_TEST_CASE(tree_scope_is_node_or_cluster) {
  Weir weir;
  BOOST_TEST(weir.client.request("GET", "/weir/tree?scope=cluster").status == 200);
  BOOST_TEST(weir.client.request("GET", "/weir/tree/sink?scope=node").status == 200);
  auto bad = weir.client.request("GET", "/weir/tree?scope=planet");
  BOOST_TEST(bad.status == 400);
  BOOST_TEST(bad.body == error(400, R"(Invalid value \"planet\" for query parameter \"scope\": expected node or cluster)"));
}

BOOST_AUTO_TEST_CASE(metrics_is_prometheus_text) {
  Weir weir;
  auto metrics = weir.client.request("GET", "/metrics");
  BOOST_TEST(metrics.status == 200, metrics.body);
  BOOST_TEST(*metrics.header("content-type") == "text/plain; version=0.0.4; charset=utf-8");
  BOOST_TEST(metrics.body.find("# TYPE weir_stage_records_in_total counter\n") != std::string::npos);
  BOOST_TEST(metrics.body.find(R"(weir_stage_records_in_total{connector="sink",task="0",stage="consumer"} 1000)") !=
             std::string::npos);
  BOOST_TEST(metrics.body.find(R"(weir_consumer_lag_records{connector="sink",task="0",stage="consumer"} 42)") !=
             std::string::npos);
  BOOST_TEST(metrics.body.find(R"(kafka_connect_source_task_source_record_poll_total{connector="source",task="1"} 2000)") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(tap_answers_json_lines) {
  Weir weir;
  auto tap = weir.client.request("GET", "/weir/connectors/sink/tasks/0/stages/consumer/tap?count=2");
  BOOST_TEST(tap.status == 200);
  BOOST_TEST(*tap.header("content-type") == "application/x-ndjson");
  BOOST_TEST(tap.body ==
             R"({"topic":"orders","partition":0,"offset":0,"timestamp":1700000000000,"key":null,)"
             R"("value":{"stage":"consumer","n":0},"headers":[]})"
             "\n"
             R"({"topic":"orders","partition":0,"offset":1,"timestamp":1700000000001,"key":null,)"
             R"("value":{"stage":"consumer","n":1},"headers":[]})"
             "\n");
  // Without count: 10 records.
  auto ten = weir.client.request("GET", "/weir/connectors/source/tasks/1/stages/mask/tap");
  BOOST_TEST(ten.status == 200);
  BOOST_TEST(std::count(ten.body.begin(), ten.body.end(), '\n') == 10);
  auto most = weir.client.request("GET", "/weir/connectors/sink/tasks/0/stages/sink/tap?count=10000");
  BOOST_TEST(std::count(most.body.begin(), most.body.end(), '\n') == 10000);
}

BOOST_AUTO_TEST_CASE(tap_of_a_paused_connector_answers_no_records) {
  Weir weir;
  weir.client.request("PUT", "/connectors/sink/pause");
  auto tap = weir.client.request("GET", "/weir/connectors/sink/tasks/0/stages/consumer/tap?count=5&timeout_ms=10");
  BOOST_TEST(tap.status == 200);
  BOOST_TEST(tap.body.empty());
}

// Each tap holds a handler thread while it streams: past tap_max_concurrent at once,
// one more is 429, the other requests are still answered, and once one has ended a
// tap is taken again.
BOOST_AUTO_TEST_CASE(taps_beyond_the_limit_are_429_and_leave_the_other_requests_served) {
  Weir weir;
  weir.client.request("PUT", "/connectors/sink/pause"); // its taps wait out their time
  const std::string path = "/weir/connectors/sink/tasks/0/stages/consumer/tap?count=1&timeout_ms=";
  std::vector<std::thread> holders;
  std::atomic<int> answered{0};
  for (int i = 0; i < tap_max_concurrent; ++i)
    holders.emplace_back([&] {
      TestClient own{weir.server.port()};
      if (own.request("GET", path + "3000").status == 200)
        ++answered;
    });
  std::this_thread::sleep_for(std::chrono::milliseconds{1000}); // every one streaming by now
  auto refused = weir.client.request("GET", path + "10");
  BOOST_TEST(refused.status == 429);
  BOOST_TEST(refused.body == error(429, "Too many taps: this worker streams at most " +
                                          std::to_string(tap_max_concurrent) + " at once; retry when one has ended"));
  BOOST_TEST(weir.client.request("GET", "/connectors").status == 200);
  for (auto& t : holders)
    t.join();
  BOOST_TEST(answered == tap_max_concurrent);
  BOOST_TEST(weir.client.request("GET", path + "10").status == 200);
}

BOOST_AUTO_TEST_CASE(tap_validates_its_parameters) {
  Weir weir;
  const std::string path = "/weir/connectors/sink/tasks/0/stages/consumer/tap";
  for (std::string bad : {"0", "10001", "-1", "abc", "", "5x", "99999999999999999999"}) {
    auto tap = weir.client.request("GET", path + "?count=" + bad);
    BOOST_TEST(tap.status == 400);
    BOOST_TEST(tap.body == error(400, R"(Invalid value \")" + bad +
                                          R"(\" for query parameter \"count\": expected an integer from 1 to 10000)"));
  }
  auto timeout = weir.client.request("GET", path + "?timeout_ms=0");
  BOOST_TEST(timeout.status == 400);
  BOOST_TEST(timeout.body == error(400, R"(Invalid value \"0\" for query parameter \"timeout_ms\": )"
                                        R"(expected an integer from 1 to 90000)"));
}

BOOST_AUTO_TEST_CASE(tap_of_unknown_things_is_404) {
  Weir weir;
  auto stage = weir.client.request("GET", "/weir/connectors/sink/tasks/0/stages/nope/tap");
  BOOST_TEST(stage.status == 404);
  BOOST_TEST(stage.body == error(404, "Stage nope not found in task sink-0"));
  auto task = weir.client.request("GET", "/weir/connectors/sink/tasks/3/stages/consumer/tap");
  BOOST_TEST(task.body == error(404, "Task sink-3 not found"));
  auto connector = weir.client.request("GET", "/weir/connectors/nope/tasks/0/stages/consumer/tap");
  BOOST_TEST(connector.body == error(404, "Connector nope not found"));
  auto not_a_task = weir.client.request("GET", "/weir/connectors/sink/tasks/x/stages/consumer/tap");
  BOOST_TEST(not_a_task.status == 404);
}

BOOST_AUTO_TEST_CASE(logs_since_a_sequence_number_filtered_by_connector) {
  weir::runtime::keep_log_tail();
  Weir weir;
  spdlog::warn("connector console-orders started");
  spdlog::info("connector console-users started");
  auto all = weir.client.request("GET", "/weir/logs?connector=console-");
  BOOST_TEST(all.status == 200);
  BOOST_TEST(all.body.find(R"("level":"WARN","message":"connector console-orders started"})") != std::string::npos);
  auto orders = weir.client.request("GET", "/weir/logs?connector=console-orders");
  BOOST_TEST(orders.body.find("console-users") == std::string::npos);
  auto seq = weir::runtime::log_tail().lines(0, 1, std::nullopt).front().seq;
  BOOST_TEST(weir.client.request("GET", "/weir/logs?after=" + std::to_string(seq)).body == R"({"lines":[]})");
  auto bad = weir.client.request("GET", "/weir/logs?limit=0");
  BOOST_TEST(bad.status == 400);
  BOOST_TEST(bad.body.find(R"(query parameter \"limit\")") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
