// The cluster's shared state in Kafka topics (ConfigLog, StatusLog) against the
// real broker: two nodes see each other's writes after catch_up, a restarted log
// reads the state back, statuses are latest-wins per key, a malformed record is
// skipped with a log line, and the topics are created compacted. The fenced
// leadership: a new leader's acquire() fences the old one, whose next assignment
// is refused and never read by anyone.
#include "runtime/cluster/leadership.hpp"
#include "runtime/cluster/state_log.hpp"
#include "tests/support/captured_log.hpp"
#include "tests/support/kafka_tools.hpp"

#include <boost/test/unit_test.hpp>

#include <mutex>
#include <vector>

using namespace weir::runtime::cluster;
using namespace weir::testing;
using namespace std::chrono_literals;
using weir::runtime::kafka::KafkaError;

namespace {

constexpr auto patience = 30s; // a catch_up that needs longer has failed

/// Records every state that on_change reports (it runs on the log's thread).
struct Changes {
  std::mutex mutex;
  std::vector<ClusterConfig> seen;

  std::function<void(const ClusterConfig&)> listener() {
    return [this](const ClusterConfig& c) {
      std::lock_guard lock(mutex);
      seen.push_back(c);
    };
  }
  size_t count() {
    std::lock_guard lock(mutex);
    return seen.size();
  }
  ClusterConfig last() {
    std::lock_guard lock(mutex);
    BOOST_REQUIRE(!seen.empty());
    return seen.back();
  }
  ClusterConfig first() {
    std::lock_guard lock(mutex);
    BOOST_REQUIRE(!seen.empty());
    return seen.front();
  }
};

StatusRecord status(const std::string& state, uint64_t generation, const std::string& trace = "") {
  return {state, trace, "127.0.0.1:8083", generation};
}

void require_status(const StatusRecord& got, const StatusRecord& want) {
  BOOST_TEST(got.state == want.state);
  BOOST_TEST(got.trace == want.trace);
  BOOST_TEST(got.worker_id == want.worker_id);
  BOOST_TEST(got.generation == want.generation);
}

} // namespace

BOOST_AUTO_TEST_SUITE(cluster_state)

BOOST_AUTO_TEST_CASE(two_config_logs_see_each_others_writes) {
  const auto topic = unique_name("weir-itest-configs");
  ConfigLog a(broker(), topic), b(broker(), topic);
  Changes changes_a, changes_b;
  a.start(changes_a.listener());
  b.start(changes_b.listener());

  // An empty topic: read to its end, reported once as empty.
  BOOST_REQUIRE(a.catch_up(patience));
  BOOST_REQUIRE(b.catch_up(patience));
  BOOST_TEST(changes_b.count() >= 1u);
  BOOST_TEST(changes_b.first().connectors.empty());

  // Values that JSON must escape survive the trip.
  const StringMap sink{{"connector.class", "FileStreamSink"},
                       {"topics", "orders"},
                       {"file", "/tmp/out \"quoted\" \\ back\nnew line \t tab é ✓"}};
  a.put_connector("sink-1", sink);
  BOOST_REQUIRE(b.catch_up(patience));
  auto seen = b.snapshot();
  BOOST_REQUIRE_EQUAL(seen.connectors.count("sink-1"), 1u);
  BOOST_TEST(seen.connectors.at("sink-1") == sink);
  BOOST_TEST(seen.target_states.at("sink-1") == "RUNNING"); // a new connector runs
  // catch_up also means on_change has reported what it waited for.
  BOOST_TEST(changes_b.last().connectors.count("sink-1") == 1u);

  // The writer reads its own write too.
  BOOST_REQUIRE(a.catch_up(patience));
  BOOST_TEST(a.snapshot().connectors.at("sink-1") == sink);

  b.put_target_state("sink-1", "PAUSED");
  b.put_connector("source-2", {{"connector.class", "FileStreamSource"}, {"tasks.max", "2"}});
  BOOST_REQUIRE(a.catch_up(patience));
  seen = a.snapshot();
  BOOST_TEST(seen.target_states.at("sink-1") == "PAUSED");
  BOOST_TEST(seen.connectors.at("source-2").at("tasks.max") == "2");

  a.put_target_state("source-2", "STOPPED");
  BOOST_REQUIRE(b.catch_up(patience));
  BOOST_TEST(b.snapshot().target_states.at("source-2") == "STOPPED");
  a.put_target_state("source-2", "RUNNING");
  BOOST_REQUIRE(b.catch_up(patience));
  BOOST_TEST(b.snapshot().target_states.at("source-2") == "RUNNING");
  BOOST_CHECK_THROW(a.put_target_state("source-2", "SLEEPING"), std::invalid_argument);

  // A reconfiguration replaces the whole config.
  b.put_connector("sink-1", {{"connector.class", "FileStreamSink"}, {"topics", "payments"}});
  a.delete_connector("source-2");
  BOOST_REQUIRE(a.catch_up(patience));
  BOOST_REQUIRE(b.catch_up(patience));
  for (auto* log : {&a, &b}) {
    auto s = log->snapshot();
    BOOST_TEST(s.connectors.size() == 1u);
    BOOST_TEST(s.connectors.at("sink-1").size() == 2u);
    BOOST_TEST(s.connectors.at("sink-1").at("topics") == "payments");
    BOOST_TEST(s.target_states.at("sink-1") == "PAUSED"); // kept across the reconfiguration
    BOOST_TEST(s.target_states.count("source-2") == 0u); // deleted with its connector
  }
  // Nodes that read to the same point agree, and say so by the version.
  BOOST_TEST(a.snapshot().version == b.snapshot().version);
  BOOST_TEST(a.snapshot().version > 0);
}

BOOST_AUTO_TEST_CASE(a_restarted_config_log_reads_the_state_back) {
  const auto topic = unique_name("weir-itest-configs");
  const StringMap config{{"connector.class", "FileStreamSink"}, {"topics", "t"}};
  ClusterConfig before;
  {
    auto log = std::make_unique<ConfigLog>(broker(), topic);
    log->start({});
    log->put_connector("kept", config);
    log->put_connector("gone", config);
    log->put_target_state("kept", "STOPPED");
    log->delete_connector("gone");
    BOOST_REQUIRE(log->catch_up(patience));
    before = log->snapshot();
    auto t0 = Clock::now();
    log.reset();
    BOOST_TEST_MESSAGE("~ConfigLog took " << seconds_since(t0) << " s");
  }
  ConfigLog again(broker(), topic);
  Changes changes;
  again.start(changes.listener());
  BOOST_REQUIRE(again.catch_up(patience));
  auto after = again.snapshot();
  BOOST_TEST(after.connectors == before.connectors);
  BOOST_TEST(after.target_states == before.target_states);
  BOOST_TEST(after.version == before.version);
  BOOST_TEST(after.connectors.count("gone") == 0u);
  BOOST_TEST(after.target_states.at("kept") == "STOPPED");
  // The first on_change already has everything that was in the topic.
  BOOST_TEST(changes.first().connectors == before.connectors);
}

BOOST_AUTO_TEST_CASE(config_records_are_kafka_connects) {
  // What Kafka Connect reads: its keys, schemaless JSON, STARTED for running, and
  // STOPPED written as PAUSED for workers older than state.v2.
  const auto topic = unique_name("weir-itest-configs");
  ConfigLog log(broker(), topic);
  log.put_connector("c", {{"connector.class", "FileStreamSink"}});
  log.put_target_state("c", "RUNNING");
  log.put_target_state("c", "STOPPED");
  log.delete_connector("c");
  auto records = read_topic(topic, 5, patience, 0s);
  BOOST_REQUIRE_EQUAL(records.size(), 5u);
  BOOST_TEST(*records[0].key == "connector-c");
  BOOST_TEST(*records[0].value == R"({"properties":{"connector.class":"FileStreamSink"}})");
  BOOST_TEST(*records[1].key == "target-state-c");
  BOOST_TEST(*records[1].value == R"({"state":"STARTED","state.v2":"STARTED"})");
  BOOST_TEST(*records[2].value == R"({"state":"PAUSED","state.v2":"STOPPED"})");
  BOOST_TEST(*records[3].key == "connector-c");
  BOOST_TEST(!records[3].value.has_value());
  BOOST_TEST(*records[4].key == "target-state-c");
  BOOST_TEST(!records[4].value.has_value());
}

BOOST_AUTO_TEST_CASE(status_log_is_latest_wins_per_key) {
  const auto topic = unique_name("weir-itest-status");
  StatusLog one(broker(), topic), two(broker(), topic);
  one.start();
  two.start();

  one.put_connector("my-conn-1", status("UNASSIGNED", 1));
  one.put_connector("my-conn-1", status("RUNNING", 1));
  one.put_task("my-conn-1", 0, status("RUNNING", 1));
  one.put_task("my-conn-1", 12, status("RUNNING", 1));
  one.flush(patience);
  BOOST_REQUIRE(two.catch_up(patience));
  auto seen = two.snapshot();
  BOOST_REQUIRE_EQUAL(seen.connectors.count("my-conn-1"), 1u);
  require_status(seen.connectors.at("my-conn-1"), status("RUNNING", 1));
  BOOST_REQUIRE_EQUAL(seen.tasks.size(), 2u); // a dash in the name is not the task's
  require_status(seen.tasks.at({"my-conn-1", 12}), status("RUNNING", 1));

  // Another node takes the task over; it fails there.
  auto failed = status("FAILED", 2, "org.apache.kafka.connect.errors.ConnectException: \"boom\"\n\tat X");
  failed.worker_id = "127.0.0.2:8083";
  two.put_task("my-conn-1", 0, failed);
  two.put_connector("other", status("PAUSED", 2));
  two.flush(patience);
  BOOST_REQUIRE(one.catch_up(patience));
  seen = one.snapshot();
  require_status(seen.tasks.at({"my-conn-1", 0}), failed);
  require_status(seen.connectors.at("other"), status("PAUSED", 2));

  one.delete_connector("my-conn-1", 13);
  one.flush(patience);
  BOOST_REQUIRE(two.catch_up(patience));
  seen = two.snapshot();
  BOOST_TEST(seen.connectors.size() == 1u);
  BOOST_TEST(seen.connectors.count("other") == 1u);
  BOOST_TEST(seen.tasks.empty());

  // A restarted log reads the same.
  StatusLog again(broker(), topic);
  again.start();
  BOOST_REQUIRE(again.catch_up(patience));
  BOOST_TEST(again.snapshot().connectors.size() == 1u);
  BOOST_TEST(again.snapshot().tasks.empty());
  require_status(again.snapshot().connectors.at("other"), status("PAUSED", 2));
}

BOOST_AUTO_TEST_CASE(malformed_records_are_skipped_and_logged) {
  const auto config_topic = unique_name("weir-itest-configs");
  const auto status_topic = unique_name("weir-itest-status");
  {
    ConfigLog create_config(broker(), config_topic);
    StatusLog create_status(broker(), status_topic);
  }
  const std::vector<OutRecord> bad_configs{
    {0, "connector-broken", "{not json"},
    {0, "target-state-ok", R"({"state":"FLYING"})"},
    {0, "connector-list", R"({"properties":["a"]})"},
    {0, "who-knows", R"({"x":1})"},
    {0, "connector-ok", R"({"properties":{"connector.class":"X","n":null}})"},
  };
  produce(config_topic, bad_configs.size(), [&](size_t i) { return bad_configs[i]; });
  const std::vector<OutRecord> bad_statuses{
    {-1, "status-task-c-x", R"({"state":"RUNNING","trace":null,"worker_id":"w","generation":1})"},
    {-1, "status-connector-c", R"({"state":"RUNNING","worker_id":"w"})"},
    {-1, "status-connector-d", "[]"},
    {-1, "status-task-c-0", R"({"state":"RUNNING","trace":null,"worker_id":"w","generation":1})"},
  };
  produce(status_topic, bad_statuses.size(), [&](size_t i) { return bad_statuses[i]; });

  CapturedLog log;
  ConfigLog configs(broker(), config_topic);
  configs.start({});
  BOOST_REQUIRE(configs.catch_up(patience));
  auto state = configs.snapshot();
  BOOST_TEST(state.connectors.size() == 1u);
  BOOST_TEST((state.connectors.at("ok") == StringMap{{"connector.class", "X"}}));
  BOOST_TEST(state.target_states.size() == 1u); // ok's default; FLYING was skipped
  BOOST_TEST(state.target_states.at("ok") == "RUNNING");
  BOOST_TEST(state.version == 5);

  StatusLog statuses(broker(), status_topic);
  statuses.start();
  BOOST_REQUIRE(statuses.catch_up(patience));
  auto status_state = statuses.snapshot();
  BOOST_TEST(status_state.connectors.empty());
  BOOST_REQUIRE_EQUAL(status_state.tasks.size(), 1u);
  BOOST_TEST(status_state.tasks.count({"c", 0}) == 1u);

  auto text = log.text();
  BOOST_TEST_MESSAGE("log:\n" << text);
  for (const auto* line : {"offset 0 with key 'connector-broken'", "offset 1 with key 'target-state-ok'",
                           "offset 2 with key 'connector-list'", "offset 3 with key 'who-knows'", "key 'status-task-c-x'",
                           "key 'status-connector-c'", "key 'status-connector-d'"})
    BOOST_TEST(text.find(line) != std::string::npos, "no log line with \"" << line << "\"");
  BOOST_TEST(text.find("key 'connector-ok'") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(topics_are_created_compacted) {
  const auto config_topic = unique_name("weir-itest-configs");
  const auto status_topic = unique_name("weir-itest-status");
  ConfigLog configs(broker(), config_topic);
  StatusLog statuses(broker(), status_topic);
  using weir::runtime::kafka::partition_count;
  using weir::runtime::kafka::topic_configs;
  BOOST_TEST(topic_configs(broker(), config_topic).at("cleanup.policy") == "compact");
  BOOST_TEST(topic_configs(broker(), status_topic).at("cleanup.policy") == "compact");
  BOOST_TEST(partition_count(broker(), config_topic).value_or(-1) == 1);
  BOOST_TEST(partition_count(broker(), status_topic).value_or(-1) == 5);

  // A topic that would delete configs, or split their order, is refused.
  const auto deleting = unique_name("weir-itest-configs");
  weir::runtime::kafka::create_topics(broker(), {{deleting, 1, 1, {{"cleanup.policy", "delete"}}}});
  BOOST_CHECK_THROW(ConfigLog(broker(), deleting), KafkaError);
  const auto split = unique_name("weir-itest-configs");
  weir::runtime::kafka::create_topics(broker(), {{split, 3, 1, {{"cleanup.policy", "compact"}}}});
  BOOST_CHECK_THROW(ConfigLog(broker(), split), KafkaError);
}

// Kafka Connect's *.storage.partitions and *.storage.replication.factor (issue 21).
BOOST_AUTO_TEST_CASE(storage_topics_take_their_partitions_and_replication_factor) {
  using weir::runtime::kafka::partition_count;
  const auto status_topic = unique_name("weir-itest-status");
  StatusLog statuses(broker(), status_topic, 3, 1);
  BOOST_TEST(partition_count(broker(), status_topic).value_or(-1) == 3);
  const auto offsets_topic = unique_name("weir-itest-offsets");
  create_storage_topic(broker(), "offset.storage.topic", offsets_topic, 25, -1);
  BOOST_TEST(partition_count(broker(), offsets_topic).value_or(-1) == 25);

  // Kafka Connect's default replication factor, 3, on this one broker: the error
  // names the topic and the key that sets it.
  const auto config_topic = unique_name("weir-itest-configs");
  try {
    ConfigLog configs(broker(), config_topic, 3);
    BOOST_FAIL("a replication factor of 3 on one broker was accepted");
  } catch (const KafkaError& e) {
    std::string what = e.what();
    BOOST_TEST(what.find("config.storage.replication.factor") != std::string::npos, what);
    BOOST_TEST(what.find(config_topic) != std::string::npos, what);
  }
}

PublishedAssignment assignment_of(uint64_t generation, const std::string& leader,
                                  const std::string& node, int tasks) {
  PublishedAssignment a;
  a.generation = generation;
  a.leader = leader;
  auto& mine = a.nodes[node];
  mine.worker_id = node + "-rest";
  for (int t = 0; t < tasks; ++t)
    mine.work.push_back({"c", t});
  return a;
}

// "Membership places, Kafka fences": two nodes that both believe they lead. The
// second to acquire the leadership fences the first: the first one's next write
// throws Fenced, nothing of it is committed, and the config log (read_committed)
// shows only the second leader's assignment.
BOOST_AUTO_TEST_CASE(a_new_leader_fences_the_old_one) {
  const auto topic = unique_name("weir-itest-configs");
  const auto id = unique_name("weir-itest-cluster") + "-leader";
  ConfigLog log(broker(), topic);
  log.start({});
  BOOST_REQUIRE(log.catch_up(patience));
  BOOST_TEST(!log.snapshot().assignment.has_value());
  auto contact = log.last_contact();

  Leadership a(broker(), topic, id), b(broker(), topic, id);
  a.acquire(patience);
  BOOST_TEST(a.held());
  a.publish(assignment_of(1, "a", "node-a", 2), patience);
  BOOST_REQUIRE(log.catch_up(patience));
  auto seen = log.snapshot();
  BOOST_REQUIRE(seen.assignment.has_value());
  BOOST_TEST(seen.assignment->generation == 1u);
  BOOST_TEST(seen.assignment->work_of("node-a").size() == 2u);
  auto first_offset = seen.assignment_offset;
  BOOST_TEST(first_offset >= 0);

  a.publish_task_configs("c", {{{"task.id", "from-a"}}}, patience);
  b.acquire(patience); // fences a
  BOOST_CHECK_THROW(a.publish(assignment_of(2, "a", "node-a", 3), patience), Fenced);
  BOOST_TEST(!a.held(), "a fenced leader no longer holds the leadership");
  a.acquire(patience); // a's view is late: it believes it leads again...
  b.acquire(patience); // ...but b takes it back before a writes
  BOOST_CHECK_THROW(a.publish_task_configs("c", {{{"task.id", "late"}}, {{"task.id", "late"}}}, patience), Fenced);
  b.publish(assignment_of(2, "b", "node-b", 1), patience);
  b.publish_task_configs("c", {{{"task.id", "from-b"}}}, patience);
  BOOST_REQUIRE(log.catch_up(patience));
  seen = log.snapshot();
  // Task configs in Kafka Connect's records, and none of the fenced leader's late ones.
  BOOST_REQUIRE(seen.task_configs.count("c"));
  BOOST_REQUIRE(seen.task_configs.at("c").size() == 1u);
  BOOST_TEST(seen.task_configs.at("c").at(0).at("task.id") == "from-b");
  BOOST_TEST(seen.assignment->leader == "b");
  BOOST_TEST(seen.assignment->work_of("node-a").empty());
  BOOST_TEST(seen.assignment->nodes.at("node-b").worker_id == "node-b-rest");
  BOOST_TEST(seen.assignment_offset > first_offset);

  // a takes it back: now b is fenced; a renewal of the same record moves its offset.
  a.acquire(patience);
  BOOST_CHECK_THROW(b.publish(assignment_of(3, "b", "node-b", 2), patience), Fenced);
  a.publish(seen.assignment.value(), patience);
  BOOST_REQUIRE(log.catch_up(patience));
  BOOST_TEST(log.snapshot().assignment->leader == "b");
  BOOST_TEST(log.snapshot().assignment->generation == 2u);
  BOOST_TEST(log.snapshot().assignment_offset > seen.assignment_offset);
  // The log's thread asks the broker every half second.
  BOOST_TEST(wait_until(5s, 50ms, [&] { return log.last_contact() > contact; }));

  // A fresh reader sees the same: aborted or fenced writes never surface.
  ConfigLog later(broker(), topic);
  later.start({});
  BOOST_REQUIRE(later.catch_up(patience));
  BOOST_TEST(later.snapshot().assignment->leader == "b");
  BOOST_TEST(later.snapshot().assignment->work_of("node-b").size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
