// ConfigLog and StatusLog on the embedded mock cluster: the same code path as on a
// real broker except the compaction check (the mock has no topic configs). The
// real broker's suite is tests/integration/cluster_state.test.cpp.
#include "runtime/cluster/state_log.hpp"
#include "tests/support/kafka_unit.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>

using namespace weir::runtime::cluster;
using weir::runtime::kafka::test::embedded;
using weir::runtime::kafka::test::unique_name;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(state_log)

BOOST_AUTO_TEST_CASE(config_log_on_the_embedded_cluster) {
  const auto topic = unique_name("configs");
  ConfigLog writer(embedded(), topic), reader(embedded(), topic);
  std::atomic<int> changes{0};
  writer.start({});
  reader.start([&](const ClusterConfig&) { ++changes; });
  BOOST_REQUIRE(reader.catch_up(30s));
  BOOST_TEST(changes.load() == 1); // the empty topic, once

  writer.put_connector("c", {{"connector.class", "FileStreamSink"}});
  writer.put_target_state("c", "PAUSED");
  BOOST_REQUIRE(reader.catch_up(30s));
  auto seen = reader.snapshot();
  BOOST_TEST(seen.connectors.at("c").at("connector.class") == "FileStreamSink");
  BOOST_TEST(seen.target_states.at("c") == "PAUSED");
  BOOST_TEST(seen.version == 2);
  BOOST_TEST(changes.load() >= 2);

  writer.delete_connector("c");
  BOOST_REQUIRE(reader.catch_up(30s));
  BOOST_TEST(reader.snapshot().connectors.empty());
  BOOST_TEST(reader.snapshot().target_states.empty());
}

// Kafka Connect's task-NAME-N and commit-NAME records (issue 21).
BOOST_AUTO_TEST_CASE(task_configs_apply_on_their_commit) {
  const auto topic = unique_name("configs");
  ConfigLog writer(embedded(), topic), reader(embedded(), topic);
  writer.start({});
  reader.start({});
  writer.put_connector("my-source", {{"connector.class", "FileStreamSource"}, {"file", "${env:FILE}"}});
  BOOST_REQUIRE(reader.catch_up(30s));
  BOOST_TEST(reader.snapshot().awaiting_task_configs.count("my-source") == 1);
  BOOST_TEST(reader.snapshot().task_configs.empty());

  writer.put_task_configs("my-source", {{{"file", "${env:FILE}"}, {"task.id", "0"}}, {{"task.id", "1"}}});
  BOOST_REQUIRE(reader.catch_up(30s));
  auto seen = reader.snapshot();
  BOOST_TEST(seen.awaiting_task_configs.empty());
  BOOST_REQUIRE(seen.task_configs.at("my-source").size() == 2u);
  BOOST_TEST(seen.task_configs.at("my-source")[0].at("file") == "${env:FILE}");
  BOOST_TEST(seen.task_configs.at("my-source")[1].at("task.id") == "1");

  // A new config waits for new task configs; a stopped connector's are none.
  writer.put_connector("my-source", {{"connector.class", "FileStreamSource"}, {"file", "/tmp/b"}});
  BOOST_REQUIRE(reader.catch_up(30s));
  BOOST_TEST(reader.snapshot().awaiting_task_configs.count("my-source") == 1);
  BOOST_TEST(reader.snapshot().task_configs.at("my-source").size() == 2u);
  writer.put_task_configs("my-source", {});
  BOOST_REQUIRE(reader.catch_up(30s));
  BOOST_TEST(reader.snapshot().task_configs.at("my-source").empty());
  BOOST_TEST(reader.snapshot().awaiting_task_configs.empty());

  writer.delete_connector("my-source");
  BOOST_REQUIRE(reader.catch_up(30s));
  BOOST_TEST(reader.snapshot().task_configs.empty());
}

BOOST_AUTO_TEST_CASE(catch_up_from_on_change_is_refused) {
  ConfigLog log(embedded(), unique_name("configs"));
  std::atomic<bool> refused{false};
  log.start([&](const ClusterConfig&) {
    try {
      log.catch_up(1s);
    } catch (const std::logic_error&) {
      refused = true;
    }
  });
  BOOST_REQUIRE(log.catch_up(30s));
  BOOST_TEST(refused.load());
}

BOOST_AUTO_TEST_CASE(status_log_on_the_embedded_cluster) {
  const auto topic = unique_name("status");
  StatusLog writer(embedded(), topic), reader(embedded(), topic);
  writer.start();
  reader.start();
  writer.put_connector("c", {"RUNNING", "", "w:1", 1});
  writer.put_task("c", 0, {"RUNNING", "", "w:1", 1});
  writer.put_task("c", 0, {"FAILED", "trace", "w:1", 1});
  writer.flush(30s);
  BOOST_REQUIRE(reader.catch_up(30s));
  auto seen = reader.snapshot();
  BOOST_TEST(seen.connectors.at("c").state == "RUNNING");
  BOOST_TEST(seen.tasks.at({"c", 0}).state == "FAILED");
  BOOST_TEST(seen.tasks.at({"c", 0}).trace == "trace");

  // The node that gave a task up says UNASSIGNED after its new node said RUNNING:
  // the newest record is the former's, each node's own is kept.
  writer.put_task("c", 1, {"RUNNING", "", "w:2", 2});
  writer.put_task("c", 1, {"UNASSIGNED", "", "w:1", 2});
  writer.flush(30s);
  BOOST_REQUIRE(reader.catch_up(30s));
  seen = reader.snapshot();
  BOOST_TEST(seen.tasks.at({"c", 1}).worker_id == "w:1");
  BOOST_TEST(seen.task_reports.at({"c", 1}).at("w:2").state == "RUNNING");
  BOOST_TEST(seen.task_reports.at({"c", 1}).at("w:1").state == "UNASSIGNED");

  writer.delete_connector("c", 2);
  writer.flush(30s);
  BOOST_REQUIRE(reader.catch_up(30s));
  BOOST_TEST(reader.snapshot().connectors.empty());
  BOOST_TEST(reader.snapshot().tasks.empty());
  BOOST_TEST(reader.snapshot().task_reports.empty());
}

BOOST_AUTO_TEST_SUITE_END()
