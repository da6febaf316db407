// Connectors in a cluster (issue 21): a connector's actor runs on the node its
// instance is assigned to, which reports the connector's status; the task configs
// it makes reach the leader, which stores them once in the config topic in Kafka
// Connect's format (task-NAME-N records, then commit-NAME); every node runs its
// tasks from them and answers GET /connectors/NAME/tasks with them.
// POST /connectors/NAME/restart (no includeTasks) makes them again: only the tasks
// whose config changed restart.
#include "tests/integration/node_cluster.hpp"

#include <fstream>

using namespace weir::testing;
using namespace weir::testing::nodes;

namespace {

using Config = std::map<std::string, std::string>;

/// GET /connectors/NAME/tasks on `n`, by task id; nullopt when it does not answer 200.
std::optional<std::map<int, Config>> task_configs(const Node& n, const std::string& name) {
  auto r = n.call("GET", "/connectors/" + name + "/tasks");
  if (r.status != 200)
    return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::dom::array list;
  if (parser.parse(r.body).get(list))
    return std::nullopt;
  std::map<int, Config> out;
  for (auto t : list) {
    int64_t id = -1;
    simdjson::dom::object config;
    if (t["id"]["task"].get(id) || t["config"].get(config))
      return std::nullopt;
    for (auto [k, v] : config) {
      std::string_view text;
      if (!v.get(text))
        out[static_cast<int>(id)][std::string{k}] = std::string{text};
    }
  }
  return out;
}

/// Waits (60 s at most) until every node answers the same `count` task configs for
/// `name` and `ready` holds for them; returns them.
std::map<int, Config> wait_task_configs(Cluster& cluster, const std::string& name, size_t count,
                                        const std::function<bool(const std::map<int, Config>&)>& ready) {
  std::map<int, Config> seen;
  std::string last;
  bool agreed = wait_until(60s, 200ms, [&] {
    std::optional<std::map<int, Config>> first;
    for (const auto& n : cluster.nodes) {
      auto configs = task_configs(n, name);
      if (!configs || configs->size() != count || !ready(*configs)) {
        last = "node " + n.name + ": " + (configs ? std::to_string(configs->size()) + " task config(s)" : "no answer");
        return false;
      }
      if (first && *first != *configs) {
        last = "node " + n.name + " answers other task configs than node a";
        return false;
      }
      first = configs;
    }
    seen = *first;
    return true;
  });
  BOOST_REQUIRE_MESSAGE(agreed, "connector " << name << ": the nodes did not agree on " << count
                                             << " task config(s) within 60 s (" << last << ")");
  return seen;
}

/// The config topic's records with key `key`, in order.
std::vector<InRecord> records_of(const std::vector<InRecord>& all, const std::string& key) {
  std::vector<InRecord> out;
  for (const auto& r : all)
    if (r.key && *r.key == key)
      out.push_back(r);
  return out;
}

/// The ids of the records of `topic` (values {"id":N,...}), read until `expected`
/// came or 60 s passed.
std::set<int64_t> ids_in(const std::string& topic, size_t expected) {
  std::set<int64_t> ids;
  simdjson::dom::parser parser;
  for (const auto& r : read_topic(topic, expected, 60s, 1s)) {
    simdjson::dom::element doc;
    int64_t id = -1;
    if (r.value && !parser.parse(*r.value).get(doc) && !doc["id"].get(id))
      ids.insert(id);
  }
  return ids;
}

/// The node whose work holds connector `name`'s instance in the newest assignment
/// the leader committed to `config_topic`; nullptr when none does.
Node* instance_node(Cluster& cluster, const std::string& config_topic, const std::string& name) {
  auto records = records_of(read_topic(config_topic, 1, 10s, 0s), "weir-assignment");
  simdjson::dom::parser parser;
  simdjson::dom::array nodes;
  if (records.empty() || !records.back().value || parser.parse(*records.back().value)["nodes"].get(nodes))
    return nullptr;
  for (auto n : nodes) {
    std::string_view address;
    simdjson::dom::array work;
    if (n["address"].get(address) || n["work"].get(work))
      continue;
    for (auto w : work) {
      std::string_view connector;
      int64_t task = 0;
      if (!w.at(0).get(connector) && !w.at(1).get(task) && connector == name && task == -1)
        for (auto& node : cluster.nodes)
          if (node.listen == address)
            return &node;
    }
  }
  return nullptr;
}

/// Whether `n`'s own actor tree shows connector `name`'s actor (`restarts` times
/// restarted, if given).
bool runs_instance(const Node& n, const std::string& name, std::optional<int> restarts = std::nullopt) {
  auto tree = n.call("GET", "/weir/tree/" + name + "?scope=node").body;
  std::regex instance(R"re("instance":\{"actor":[0-9]+,"restarts":)re"
                      + (restarts ? std::to_string(*restarts) : std::string{"[0-9]+"})
                      + R"re(\},"tasks")re"); // the connector's, not its tasks'
  return std::regex_search(tree, instance);
}

/// Waits (30 s at most) until connector `name`'s actor runs on the node its
/// instance is assigned to and on no other, and every node shows that node's
/// worker id in the connector's status; returns that node.
Node& wait_instance_placed(Cluster& cluster, const std::string& config_topic, const std::string& name) {
  Node* owner = nullptr;
  std::string last;
  bool placed = wait_until(30s, 500ms, [&] {
    owner = instance_node(cluster, config_topic, name);
    if (!owner || !owner->process || !owner->process->running()) {
      last = owner ? "its instance is assigned to node " + owner->name + ", which has stopped"
                   : "no node has its instance in the assignment";
      return false;
    }
    const std::string reported = R"("connector":{"state":"RUNNING","worker_id":")" + owner->worker_id + "\"";
    for (const auto& n : cluster.nodes) {
      if (!n.process || !n.process->running())
        continue;
      if (runs_instance(n, name) != (&n == owner)) {
        last = "node " + n.name + (&n == owner ? " runs no" : " runs a") + " connector actor; it is assigned to "
               + owner->name;
        return false;
      }
      if (n.call("GET", "/connectors/" + name + "/status").body.find(reported) == std::string::npos) {
        last = "node " + n.name + " does not show " + reported;
        return false;
      }
    }
    return true;
  });
  BOOST_REQUIRE_MESSAGE(placed, "connector " << name << ": its actor is not where it is assigned within 30 s ("
                                             << last << ")");
  return *owner;
}

} // namespace

BOOST_AUTO_TEST_SUITE(cluster_connectors)

BOOST_AUTO_TEST_CASE(task_configs_are_stored_once_and_a_restart_makes_them_again) {
  Cluster cluster(3);
  const auto db = cluster.dir / "source.db";
  Sqlite(db, true).exec("CREATE TABLE t1 (id INTEGER PRIMARY KEY, name TEXT);"
                        "CREATE TABLE t2 (id INTEGER PRIMARY KEY, name TEXT);"
                        "INSERT INTO t1 VALUES (1, 'a'), (2, 'b'); INSERT INTO t2 VALUES (1, 'c');");
  const auto lines = cluster.dir / "lines.txt";
  std::ofstream(lines) << "one\ntwo\nthree\n";
  const auto prefix = unique_name("weir-itest-conn") + "-";
  const auto jdbc = unique_name("jdbc-src"), file = unique_name("file-src");
  cluster.start_all();

  auto r = cluster[1].call("POST", "/connectors",
                           R"({"name":")" + file + R"(","config":{"connector.class":"FileStreamSource",)"
                             R"("tasks.max":"1","file":")" + lines + R"(","topic":")" + prefix + R"(lines"}})");
  BOOST_REQUIRE_MESSAGE(r.status == 201, r.status << " " << r.body);
  r = cluster[2].call("POST", "/connectors",
                      R"({"name":")" + jdbc + R"(","config":{"connector.class":"JdbcSourceConnector",)"
                        R"("tasks.max":"3","connection.url":"jdbc:sqlite:)" + db + R"(","mode":"incrementing",)"
                        R"("incrementing.column.name":"id","topic.prefix":")" + prefix + R"(","poll.interval.ms":"200"}})");
  BOOST_REQUIRE_MESSAGE(r.status == 201, r.status << " " << r.body);

  // Every node answers the leader's task configs: two tables over three tasks.
  wait_task_configs(cluster, file, 1, [&](const auto& c) { return c.at(0).at("file") == lines; });
  auto configs = wait_task_configs(cluster, jdbc, 3, [](const auto&) { return true; });
  BOOST_TEST(configs.at(0).at("tables") == "t1");
  BOOST_TEST(configs.at(1).at("tables") == "t2");
  BOOST_TEST(configs.at(2).at("tables") == "");
  BOOST_TEST(ids_in(prefix + "t1", 2) == (std::set<int64_t>{1, 2}));
  BOOST_TEST(read_topic(prefix + "lines", 3, 60s, 0s).size() == 3u);
  // Each connector's actor runs on the node its instance is assigned to, which
  // reports the connector's status, on every node. Two connectors over three nodes:
  // one of them is not on the leader (node a, the oldest).
  const auto config_topic = cluster.group + "-configs";
  const auto& jdbc_node = wait_instance_placed(cluster, config_topic, jdbc);
  const auto& file_node = wait_instance_placed(cluster, config_topic, file);
  BOOST_TEST_MESSAGE("instances: " << jdbc << " on node " << jdbc_node.name << ", " << file << " on node "
                                   << file_node.name);
  BOOST_TEST(&jdbc_node != &file_node, "the assignor spreads the connectors' instances");

  // ...stored once, in Kafka Connect's records, whichever node made them.
  auto stored = read_topic(config_topic, 1, 30s);
  for (const auto& name : {jdbc, file}) {
    auto commits = records_of(stored, "commit-" + name);
    BOOST_REQUIRE_MESSAGE(commits.size() == 1u, name << ": " << commits.size() << " commit records");
  }
  BOOST_TEST(*records_of(stored, "commit-" + jdbc)[0].value == R"({"tasks":3})");
  BOOST_TEST(*records_of(stored, "commit-" + file)[0].value == R"({"tasks":1})");
  for (int t = 0; t < 3; ++t) {
    auto task = records_of(stored, "task-" + jdbc + "-" + std::to_string(t));
    BOOST_REQUIRE_EQUAL(task.size(), 1u);
    BOOST_TEST(task[0].value->starts_with(R"({"properties":{)"));
    BOOST_TEST(task[0].offset < records_of(stored, "commit-" + jdbc)[0].offset);
  }
  BOOST_TEST(records_of(stored, "task-" + jdbc + "-3").empty());

  // A third table, then a restart of the connector alone: it makes its task configs
  // again; only task 2's changed, so only task 2 restarts.
  Sqlite(db).exec("CREATE TABLE t3 (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t3 VALUES (7, 'd');");
  std::vector<size_t> since;
  for (const auto& n : cluster.nodes)
    since.push_back(n.log_size());
  // The whole tree: the connector's own actor is on its node alone.
  auto instances = [&](int restarts) { // connector actors in the tree that restarted `restarts` times
    auto tree = cluster[2].call("GET", "/weir/tree/" + jdbc).body;
    std::regex instance(R"re("instance":\{"actor":[0-9]+,"restarts":)re" + std::to_string(restarts)
                        + R"re(\},"tasks")re"); // the connector's, not its tasks'
    return std::distance(std::sregex_iterator(tree.begin(), tree.end(), instance), std::sregex_iterator());
  };
  BOOST_TEST(instances(0) == 1);
  BOOST_TEST(runs_instance(jdbc_node, jdbc, 0));
  {
    // node -> connector -> task -> stage on every node: its 3 tasks spread over the 3
    // nodes, each under the connector's actor there (the parent of its tasks).
    auto tree = cluster[2].call("GET", "/weir/tree/" + jdbc).body;
    auto count = [&](const std::string& pattern) {
      std::regex re(pattern);
      return std::distance(std::sregex_iterator(tree.begin(), tree.end(), re), std::sregex_iterator());
    };
    BOOST_TEST(count(R"re("name":"[^"]+","type":"source","state":"RUNNING","worker_id":"[^"]+","actor":[0-9]+,)re")
               == 3, tree);
    BOOST_TEST(count(R"re("stages":\[\{"name":"poller","role":"source_reader")re") == 3, tree);
  }
  // Asked of a node that does not run it: the request goes to the one that does.
  const auto& asked = &jdbc_node == &cluster[1] ? cluster[2] : cluster[1];
  r = asked.call("POST", "/connectors/" + jdbc + "/restart");
  BOOST_REQUIRE_MESSAGE(r.status == 204, r.status << " " << r.body);
  configs = wait_task_configs(cluster, jdbc, 3, [](const auto& c) { return c.at(2).at("tables") == "t3"; });
  BOOST_TEST(configs.at(0).at("tables") == "t1");
  BOOST_TEST(configs.at(1).at("tables") == "t2");
  BOOST_TEST(ids_in(prefix + "t3", 1) == (std::set<int64_t>{7}));
  BOOST_TEST(instances(1) == 1); // restarted: a new connector actor
  BOOST_TEST(runs_instance(jdbc_node, jdbc, 1), "restarted on its node " << jdbc_node.name);

  // The tasks that kept their config kept running: their offsets move on.
  Sqlite(db).exec("INSERT INTO t1 VALUES (3, 'e'); INSERT INTO t2 VALUES (2, 'f');");
  BOOST_TEST(ids_in(prefix + "t1", 3) == (std::set<int64_t>{1, 2, 3}));
  BOOST_TEST(ids_in(prefix + "t2", 2) == (std::set<int64_t>{1, 2}));
  std::vector<TaskEvent> events;
  for (size_t i = 0; i < cluster.nodes.size(); ++i)
    for (auto& e : task_events(cluster.nodes[i].output_since(since[i]), jdbc))
      events.push_back(e);
  BOOST_TEST(count_events(events, 0, "stopped") == 0u);
  BOOST_TEST(count_events(events, 1, "stopped") == 0u);
  BOOST_TEST(count_events(events, 2, "stopped") == 1u);
  BOOST_TEST(count_events(events, 2, "started") == 1u);
  stored = read_topic(config_topic, 1, 30s);
  BOOST_TEST(records_of(stored, "commit-" + jdbc).size() == 2u);
  BOOST_TEST(records_of(stored, "commit-" + file).size() == 1u); // the other connector's stay

  // The same config written again: its task configs are made and stored again, the
  // same, so its tasks go on.
  for (size_t i = 0; i < cluster.nodes.size(); ++i)
    since[i] = cluster.nodes[i].log_size();
  r = cluster[2].call("PUT", "/connectors/" + jdbc + "/config",
                      R"({"connector.class":"JdbcSourceConnector","tasks.max":"3","connection.url":"jdbc:sqlite:)" + db
                        + R"(","mode":"incrementing","incrementing.column.name":"id","topic.prefix":")" + prefix
                        + R"(","poll.interval.ms":"200"})");
  BOOST_REQUIRE_MESSAGE(r.status == 200, r.status << " " << r.body);
  bool recommitted = wait_until(30s, 200ms, [&] {
    return records_of(read_topic(config_topic, 1, 10s, 0s), "commit-" + jdbc).size() == 3u;
  });
  BOOST_TEST(recommitted, "the leader did not store the task configs again");
  Sqlite(db).exec("INSERT INTO t2 VALUES (3, 'g');");
  BOOST_TEST(ids_in(prefix + "t2", 3) == (std::set<int64_t>{1, 2, 3}));
  events.clear();
  for (size_t i = 0; i < cluster.nodes.size(); ++i)
    for (auto& e : task_events(cluster.nodes[i].output_since(since[i]), jdbc))
      events.push_back(e);
  BOOST_TEST(count_events(events, -1, "stopped") == 0u);

  // Stopped, a connector's task configs are none (Kafka Connect's KIP-875).
  r = cluster[1].call("PUT", "/connectors/" + file + "/stop");
  BOOST_REQUIRE_MESSAGE(r.status == 202 || r.status == 204, r.status << " " << r.body);
  bool cleared = wait_until(30s, 200ms, [&] {
    auto s = read_topic(config_topic, 1, 10s, 0s);
    auto commits = records_of(s, "commit-" + file);
    return commits.size() == 2u && *commits[1].value == R"({"tasks":0})";
  });
  BOOST_TEST(cleared, "no commit of 0 tasks for the stopped connector");
  cluster.stop_all();
}

// The connector's actor follows its instance: the node that gets the instance when
// its node leaves starts one, and from then on reports the connector's status; the
// task configs, which the new actor makes the same, are not stored again.
BOOST_AUTO_TEST_CASE(the_connector_actor_moves_with_its_instance) {
  Cluster cluster(3, {{"scheduled.rebalance.max.delay.ms", "0"}});
  const auto lines = cluster.dir / "lines.txt";
  std::ofstream(lines) << "one\ntwo\n";
  const auto topic = unique_name("weir-itest-conn-moves");
  const auto file = unique_name("file-src");
  cluster.start_all();
  auto r = cluster[2].call("POST", "/connectors",
                           R"({"name":")" + file + R"(","config":{"connector.class":"FileStreamSource",)"
                             R"("tasks.max":"1","file":")" + lines + R"(","topic":")" + topic + R"("}})");
  BOOST_REQUIRE_MESSAGE(r.status == 201, r.status << " " << r.body);
  wait_task_configs(cluster, file, 1, [&](const auto& c) { return c.at(0).at("file") == lines; });
  const auto config_topic = cluster.group + "-configs";
  auto& first = wait_instance_placed(cluster, config_topic, file);
  BOOST_TEST_MESSAGE("instance on node " << first.name);

  first.process->signal(SIGTERM); // leaves: its instance goes to another node at once
  auto ended = first.process->wait(60s);
  BOOST_REQUIRE_MESSAGE((ended && ended->clean()), "node " << first.name << " after SIGTERM: "
                                                           << (ended ? ended->describe() : "still running"));
  const auto& second = wait_instance_placed(cluster, config_topic, file);
  BOOST_TEST(&second != &first);
  BOOST_TEST(runs_instance(second, file, 0), "a new connector actor on node " << second.name);
  auto stored = read_topic(config_topic, 1, 30s);
  BOOST_TEST(records_of(stored, "commit-" + file).size() == 1u, "the same task configs are stored once");
  BOOST_TEST(read_topic(topic, 2, 60s, 0s).size() >= 2u);
  cluster.stop_all();
}

BOOST_AUTO_TEST_SUITE_END()
