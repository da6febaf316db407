// Kafka Connect's REST API on `weir standalone` against the real broker (issue 7):
// a worker started with no connector, then driven only over HTTP, as kcctl or a UI
// would: create, status, pause/resume (nothing consumed while paused), reconfigure,
// stop, sink and source offsets (read, altered, refused while running, reset), delete, plugins,
// validation, loggers, and a failing task restarted automatically with backoff
// until it gives up, visible in its status; a tap on an SMT stage; and config
// providers, which resolve only when the worker names them and never show a value.
#include "tests/support/rest_worker.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <regex>
#include <string>
#include <thread>

using namespace weir::testing;
using namespace std::chrono_literals;
using weir::runtime::rest::test::ClientResponse;

namespace {

size_t lines_in(const std::string& path) {
  auto text = read_file(path);
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

OutRecord json_record(size_t i) {
  return {-1, std::nullopt, R"({"id":)" + std::to_string(i) + "}"};
}

} // namespace

BOOST_AUTO_TEST_SUITE(standalone_rest)

BOOST_AUTO_TEST_CASE(a_sink_connector_managed_only_over_rest) {
  TempDir dir{"weir-rest"};
  auto topic = unique_name("rest-sink");
  create_topic(topic, 2);
  produce(topic, 2000, json_record);
  auto w = start_worker(dir);
  const std::string file = dir.path() + "/out.txt";

  auto root = w.call("GET", "/");
  BOOST_TEST(root.status == 200);
  BOOST_TEST(has(root, "\"version\":"));
  BOOST_TEST(w.call("GET", "/connectors").body == "[]");

  // A bad config is refused whole, naming the key; nothing is created.
  auto bad = w.call("POST", "/connectors",
                    R"({"name":"files","config":{"connector.class":"FileStreamSink","tasks.max":"two","topics":")"
                      + topic + R"(","file":")" + file + R"("}})");
  BOOST_TEST(bad.status == 400);
  BOOST_TEST(has(bad, "tasks.max"));
  BOOST_TEST(w.call("GET", "/connectors/files").status == 404);

  const std::string config = R"({"connector.class":"FileStreamSink","tasks.max":"1","topics":")" + topic
                             + R"(","file":")" + file + R"("})";
  auto created = w.call("POST", "/connectors", R"({"name":"files","config":)" + config + "}");
  BOOST_TEST(created.status == 201);
  BOOST_TEST(has(created, R"("type":"sink")"));
  BOOST_TEST(has(created, R"("tasks":[{"connector":"files","task":0}])"));
  auto again = w.call("POST", "/connectors", R"({"name":"files","config":)" + config + "}");
  BOOST_TEST(again.status == 409);
  BOOST_TEST(has(again, "Connector files already exists"));

  BOOST_REQUIRE_MESSAGE(eventually([&] { return lines_in(file) == 2000; }, 60s),
                        "the sink wrote " << lines_in(file) << " of 2000 lines");
  auto status = w.call("GET", "/connectors/files/status");
  BOOST_TEST(has(status, R"("connector":{"state":"RUNNING")"));
  BOOST_TEST(has(status, R"("tasks":[{"id":0,"state":"RUNNING")"));

  // Paused: nothing is consumed; resumed: it carries on from its committed offsets.
  BOOST_TEST(w.call("PUT", "/connectors/files/pause").status == 202);
  BOOST_TEST(has(w.call("GET", "/connectors/files/status"), R"("connector":{"state":"PAUSED")"));
  produce(topic, 500, json_record);
  std::this_thread::sleep_for(3s);
  BOOST_TEST(lines_in(file) == 2000u);
  BOOST_TEST(w.call("PUT", "/connectors/files/resume").status == 202);
  BOOST_REQUIRE_MESSAGE(eventually([&] { return lines_in(file) == 2500; }, 60s),
                        "after resume the sink wrote " << lines_in(file) << " of 2500 lines");

  // Reconfigured through PUT .../config: two tasks now.
  auto put = w.call("PUT", "/connectors/files/config",
                    R"({"connector.class":"FileStreamSink","tasks.max":"2","topics":")" + topic
                      + R"(","file":")" + file + R"("})");
  BOOST_TEST(put.status == 200);
  BOOST_TEST(has(w.call("GET", "/connectors/files"), R"({"connector":"files","task":1})"));
  BOOST_TEST(has(w.call("GET", "/connectors?expand=status"), R"("files":{"status":)"));

  // Stopped: no tasks; offsets of a stopped sink are the consumer group's.
  BOOST_TEST(w.call("PUT", "/connectors/files/stop").status == 204);
  auto stopped = w.call("GET", "/connectors/files/status");
  BOOST_TEST(has(stopped, R"("connector":{"state":"STOPPED")"));
  BOOST_TEST(has(stopped, R"("tasks":[])"));
  auto offsets = w.call("GET", "/connectors/files/offsets");
  BOOST_TEST(offsets.status == 200);
  BOOST_TEST(has(offsets, R"({"partition":{"kafka_topic":")" + topic + R"(","kafka_partition":0},"offset":{"kafka_offset":)"));
  auto moved = w.call("PATCH", "/connectors/files/offsets",
                      R"({"offsets":[{"partition":{"kafka_topic":")" + topic
                        + R"(","kafka_partition":1},"offset":{"kafka_offset":7}}]})");
  BOOST_TEST(moved.status == 200);
  BOOST_TEST(has(w.call("GET", "/connectors/files/offsets"), R"("kafka_partition":1},"offset":{"kafka_offset":7})"));
  auto malformed = w.call("PATCH", "/connectors/files/offsets",
                          R"({"offsets":[{"partition":{"topic":"x"},"offset":{"kafka_offset":1}}]})");
  BOOST_TEST(malformed.status == 400);
  BOOST_TEST(has(malformed, "kafka_topic"));
  BOOST_TEST(w.call("DELETE", "/connectors/files/offsets").status == 200);
  BOOST_TEST(w.call("GET", "/connectors/files/offsets").body == R"({"offsets":[]})");

  BOOST_TEST(w.call("DELETE", "/connectors/files").status == 204);
  auto gone = w.call("GET", "/connectors/files/status");
  BOOST_TEST(gone.status == 404);
  BOOST_TEST(gone.body == R"({"error_code":404,"message":"Connector files not found"})");
  BOOST_TEST(lines_in(file) == 2500u); // nothing written twice by the moves
  stop_cleanly(*w.process);
}

BOOST_AUTO_TEST_CASE(source_offsets_plugins_validation_and_loggers) {
  TempDir dir{"weir-rest"};
  auto topic = unique_name("rest-source");
  auto w = start_worker(dir, {{"offset.flush.interval.ms", "200"}});
  auto created = w.call("POST", "/connectors",
                        R"({"name":"gen","config":{"connector.class":"DatagenConnector","kafka.topic":")"
                          + topic + R"(","quickstart":"users","max.interval":"0","iterations":"300"}})");
  BOOST_REQUIRE(created.status == 201);
  BOOST_REQUIRE(eventually([&] { return has(w.call("GET", "/connectors/gen/status"), "FINISHED"); }, 60s));
  BOOST_REQUIRE(eventually([&] { return has(w.call("GET", "/connectors/gen/offsets"), "300"); }, 30s));

  // Offsets change only on a STOPPED connector, as in Kafka Connect.
  auto refused = w.call("DELETE", "/connectors/gen/offsets");
  BOOST_TEST(refused.status == 400);
  BOOST_TEST(has(refused, "STOPPED state"));
  BOOST_TEST(w.call("PUT", "/connectors/gen/stop").status == 204);
  auto altered = w.call("PATCH", "/connectors/gen/offsets",
                        R"({"offsets":[{"partition":{"task.id":0},"offset":{"current.iteration":100}}]})");
  BOOST_TEST(altered.status == 200);
  BOOST_TEST(has(w.call("GET", "/connectors/gen/offsets"), R"("current.iteration":100)"));
  auto reset = w.call("DELETE", "/connectors/gen/offsets");
  BOOST_TEST(reset.status == 200);
  BOOST_TEST(w.call("GET", "/connectors/gen/offsets").body == R"({"offsets":[]})");

  auto plugins = w.call("GET", "/connector-plugins?connectorsOnly=false");
  BOOST_TEST(has(plugins, R"("class":"org.apache.kafka.connect.file.FileStreamSinkConnector","type":"sink")"));
  BOOST_TEST(has(plugins, R"(org.apache.kafka.connect.transforms.InsertField$Value","type":"transformation")"));
  BOOST_TEST(has(plugins, R"("type":"predicate")"));
  BOOST_TEST(!has(w.call("GET", "/connector-plugins"), "transformation"));
  BOOST_TEST(has(w.call("GET", "/connector-plugins/FileStreamSink/config"), R"("name":"file")"));
  BOOST_TEST(w.call("GET", "/connector-plugins/NoSuchThing/config").status == 404);

  auto validated = w.call("PUT", "/connector-plugins/FileStreamSink/config/validate",
                          R"({"connector.class":"FileStreamSink","name":"v","tasks.max":"0"})");
  BOOST_TEST(validated.status == 200);
  BOOST_TEST(has(validated, R"("error_count":2)")); // tasks.max, and no topics
  BOOST_TEST(has(validated, "topics"));

  BOOST_TEST(has(w.call("GET", "/admin/loggers"), R"("root":{"level":"INFO")"));
  auto set = w.call("PUT", "/admin/loggers/root", R"({"level":"DEBUG"})");
  BOOST_TEST(set.status == 200);
  BOOST_TEST(has(w.call("GET", "/admin/loggers/root"), R"("level":"DEBUG")"));
  stop_cleanly(*w.process);
}

BOOST_AUTO_TEST_CASE(a_failed_task_restarts_with_backoff_then_gives_up) {
  TempDir dir{"weir-rest"};
  auto topic = unique_name("rest-failing");
  create_topic(topic, 1);
  auto w = start_worker(dir, {{"task.restart.max.attempts", "2"}, {"task.restart.backoff.ms", "300"}});
  // The sink's file is a directory: every start of its task fails.
  std::filesystem::create_directory(dir.path() + "/a-directory");
  auto created = w.call("POST", "/connectors",
                        R"({"name":"broken","config":{"connector.class":"FileStreamSink","topics":")"
                          + topic + R"(","file":")" + dir.path() + R"(/a-directory"}})");
  BOOST_REQUIRE(created.status == 201);
  bool scheduled = false;
  bool gave_up = eventually(
    [&] {
      auto s = w.call("GET", "/connectors/broken/tasks/0/status");
      scheduled = scheduled || has(s, "automatic restart");
      return has(s, "gave up after 2 automatic restart(s)");
    },
    30s);
  BOOST_TEST(scheduled);
  BOOST_TEST(gave_up);
  auto status = w.call("GET", "/connectors/broken/tasks/0/status");
  BOOST_TEST(has(status, R"("state":"FAILED")"));
  BOOST_TEST(has(status, "a-directory"));
  BOOST_TEST(w.process->output().find("automatic restart 2 of 2") != std::string::npos);
  // A restart through the API is always allowed; it fails the same way.
  BOOST_TEST(w.call("POST", "/connectors/broken/tasks/0/restart").status == 204);
  BOOST_TEST(w.call("POST", "/connectors/broken/tasks/7/restart").status == 404);
  stop_cleanly(*w.process);
}

// Issue 20, item 1: any REST caller could read any file through `${file:...}`, the
// value printed in the validation error. Providers now resolve only when the worker
// names them, inside allowed.paths, and nothing weir answers, stores or logs shows
// what they resolved to.
BOOST_AUTO_TEST_CASE(config_providers_resolve_only_when_the_worker_names_them) {
  TempDir dir{"weir-rest-providers"};
  const std::string secrets = dir / "secrets";
  std::filesystem::create_directories(secrets);
  const std::string secret = "s3cr3t-" + unique_name("value");
  const std::string out = dir / "out.txt";
  write_properties(secrets + "/db.properties", {{"root", secret}, {"file", out}});
  const std::string root_ref = "${file:" + secrets + "/db.properties:root}";
  const std::string file_ref = "${file:" + secrets + "/db.properties:file}";
  auto jdbc = [](const std::string& url) {
    return R"({"connector.class":"JdbcSinkConnector","topics":"t","connection.url":")" + url + R"("})";
  };
  auto shows_nothing_secret = [&](const ClientResponse& r) {
    return !has(r, secret) && !has(r, "root:/root") && !has(r, "/bin/");
  };
  const std::string passwd = "${file:/etc/passwd:root}";

  auto w = start_worker(dir);
  auto refused = w.call("POST", "/connectors", R"({"name":"db","config":)" + jdbc(passwd) + "}");
  BOOST_TEST(refused.status == 400);
  BOOST_TEST(has(refused, "Invalid value " + passwd + " for configuration connection.url"));
  BOOST_TEST(shows_nothing_secret(refused));
  auto unresolved = w.call("PUT", "/connector-plugins/JdbcSinkConnector/config/validate", jdbc(root_ref));
  BOOST_TEST(has(unresolved, "Invalid value " + root_ref));
  BOOST_TEST(shows_nothing_secret(unresolved));
  stop_cleanly(*w.process);

  const std::string file_class = "org.apache.kafka.common.config.provider.FileConfigProvider";
  TempDir second{"weir-rest-providers"}; // its own log and state file
  w = start_worker(second, {{"config.providers", "file,env"},
                         {"config.providers.file.class", file_class},
                         {"config.providers.file.param.allowed.paths", secrets},
                         {"config.providers.env.class",
                          "org.apache.kafka.common.config.provider.EnvVarConfigProvider"},
                         {"config.providers.env.param.allowlist.pattern", "^WEIR_NOTHING_"}});
  // Resolved, and still never shown: the error names the reference.
  auto invalid = w.call("POST", "/connectors", R"({"name":"db","config":)" + jdbc(root_ref) + "}");
  BOOST_TEST(invalid.status == 400);
  BOOST_TEST(has(invalid, "Invalid value " + root_ref + " for configuration connection.url"));
  BOOST_TEST(shows_nothing_secret(invalid));
  auto validated = w.call("PUT", "/connector-plugins/JdbcSinkConnector/config/validate", jdbc(root_ref));
  BOOST_TEST(validated.status == 200);
  BOOST_TEST(shows_nothing_secret(validated));
  // Outside allowed.paths, and an environment variable the pattern does not allow,
  // stay as written.
  auto outside = w.call("POST", "/connectors", R"({"name":"db","config":)" + jdbc(passwd) + "}");
  BOOST_TEST(has(outside, "Invalid value " + passwd + " for configuration connection.url"));
  BOOST_TEST(shows_nothing_secret(outside));
  auto env = w.call("POST", "/connectors", R"({"name":"db","config":)" + jdbc("${env:HOME}") + "}");
  BOOST_TEST(has(env, "Invalid value ${env:HOME} for configuration connection.url"));

  // A connector whose file comes from the provider runs, shown with its reference.
  auto topic = unique_name("rest-providers");
  create_topic(topic, 1);
  produce(topic, 10, json_record);
  auto created = w.call("POST", "/connectors", R"({"name":"files","config":{"connector.class":"FileStreamSink",)"
                                               R"("topics":")" + topic + R"(","file":")" + file_ref + R"("}})");
  BOOST_TEST(created.status == 201);
  BOOST_REQUIRE_MESSAGE(eventually([&] { return lines_in(out) == 10; }, 60s), "the provider's file got no lines");
  BOOST_TEST(has(w.call("GET", "/connectors/files/config"), R"("file":")" + file_ref + R"(")"));
  // Task configs too, as Kafka Connect's reverse transform shows them.
  auto tasks = w.call("GET", "/connectors/files/tasks");
  BOOST_TEST(has(tasks, R"("file":")" + file_ref + R"(")"));
  BOOST_TEST(!has(tasks, out));
  stop_cleanly(*w.process);

  const auto log = read_file(dir / "weir.log") + read_file(second / "weir.log");
  BOOST_TEST(log.find(secret) == std::string::npos);
  BOOST_TEST(log.find("root:/root") == std::string::npos);
  for (auto suffix : {"", "-wal"}) {
    const std::string state = second / ("state.db" + std::string{suffix});
    if (!std::filesystem::exists(state)) continue;
    BOOST_TEST(read_file(state).find(secret) == std::string::npos);
    BOOST_TEST((std::filesystem::status(state).permissions() ==
                (std::filesystem::perms::owner_read | std::filesystem::perms::owner_write)));
  }
}

// Issue 19 item 3: a FAILED task ends its stages (here with no automatic restart
// left), so its consumer leaves the group and its partitions go to the running tasks. Partition 0 starts
// with a record that is not JSON (errors.tolerance=none: the task reading it fails);
// partition 1 holds valid records. Whichever task fails first gives partition 0 up,
// the other task is handed it and fails on the same record: both end FAILED. (A
// failed task that kept its consumer would hold partition 0 for good, the other
// task RUNNING beside it.)
BOOST_AUTO_TEST_CASE(a_task_that_gave_up_leaves_the_group_so_its_partitions_move) {
  TempDir dir{"weir-rest"};
  auto topic = unique_name("rest-gave-up");
  create_topic(topic, 2);
  produce(topic, 1, [](size_t) { return OutRecord{0, std::nullopt, std::string{"not json"}}; });
  produce(topic, 100, [](size_t i) { return OutRecord{1, std::nullopt, R"({"id":)" + std::to_string(i) + "}"}; });
  auto w = start_worker(dir, {{"task.restart.max.attempts", "0"}});
  auto created = w.call("POST", "/connectors",
                        R"({"name":"poisoned","config":{"connector.class":"FileStreamSink","tasks.max":"2",)"
                        R"("topics":")" + topic + R"(","file":")" + dir.path() + R"(/out.txt"}})");
  BOOST_REQUIRE(created.status == 201);
  auto failed = [&](int task) {
    return has(w.call("GET", "/connectors/poisoned/tasks/" + std::to_string(task) + "/status"),
               R"("state":"FAILED")");
  };
  bool both = eventually([&] { return failed(0) && failed(1); }, 60s);
  BOOST_TEST(both, "task 0 FAILED: " << failed(0) << ", task 1 FAILED: " << failed(1));
  BOOST_TEST(w.process->output().find("ends its stages after a failure") != std::string::npos);
  BOOST_TEST_MESSAGE(lines_in(dir.path() + "/out.txt") << " of partition 1's 100 records written");
  stop_cleanly(*w.process);
}

BOOST_AUTO_TEST_CASE(tap_shows_the_records_passing_an_smt_stage) {
  TempDir dir{"weir-rest"};
  auto w = start_worker(dir);
  auto created = w.call("POST", "/connectors",
                        R"({"name":"slow","config":{"connector.class":"DatagenConnector","kafka.topic":")"
                          + unique_name("rest-tap") + R"(","quickstart":"users","max.interval":"20",)"
                          R"("iterations":"100000","transforms":"tag",)"
                          R"("transforms.tag.type":"org.apache.kafka.connect.transforms.InsertField$Value",)"
                          R"("transforms.tag.static.field":"tapped","transforms.tag.static.value":"yes"}})");
  BOOST_REQUIRE(created.status == 201);
  auto tap = w.call("GET", "/weir/connectors/slow/tasks/0/stages/tag/tap?count=3");
  BOOST_TEST(tap.status == 200);
  BOOST_TEST(std::count(tap.body.begin(), tap.body.end(), '\n') == 3);
  BOOST_TEST(has(tap, R"("tapped":"yes")"));
  BOOST_TEST(has(tap, R"("userid":"User_)"));
  // The poller passes no decoded records of its own; an unknown stage is a 404.
  auto reader = w.call("GET", "/weir/connectors/slow/tasks/0/stages/poller/tap?count=1");
  BOOST_TEST(reader.status == 400);
  BOOST_TEST(has(reader, "tap an SMT stage, the sink or the producer (tag, producer)"));
  BOOST_TEST(w.call("GET", "/weir/connectors/slow/tasks/0/stages/nope/tap?count=1").status == 404);
  // The producer sees the records as they go to Kafka, after every SMT.
  auto produced = w.call("GET", "/weir/connectors/slow/tasks/0/stages/producer/tap?count=2");
  BOOST_TEST(produced.status == 200);
  BOOST_TEST(std::count(produced.body.begin(), produced.body.end(), '\n') == 2);
  BOOST_TEST(has(produced, R"("tapped":"yes")"));
  stop_cleanly(*w.process);
}

// POST /connectors/X/restart without includeTasks restarts the connector alone (issue
// 21): it makes its task configs again, and only the tasks whose config changed restart.
BOOST_AUTO_TEST_CASE(a_connector_restart_remakes_its_task_configs_and_restarts_only_changed_tasks) {
  TempDir dir{"weir-rest"};
  const std::string db = dir.path() + "/source.db";
  Sqlite(db, true).exec("CREATE TABLE t1 (id INTEGER PRIMARY KEY); CREATE TABLE t2 (id INTEGER PRIMARY KEY);"
                        "INSERT INTO t1 VALUES (1); INSERT INTO t2 VALUES (1);");
  const auto prefix = unique_name("rest-restart") + "-";
  auto w = start_worker(dir);
  auto created = w.call("POST", "/connectors",
                        R"({"name":"tables","config":{"connector.class":"JdbcSourceConnector","tasks.max":"3",)"
                        R"("connection.url":"jdbc:sqlite:)" + db + R"(","mode":"incrementing",)"
                        R"("incrementing.column.name":"id","topic.prefix":")" + prefix + R"(","poll.interval.ms":"200"}})");
  BOOST_REQUIRE_EQUAL(created.status, 201);
  BOOST_TEST(read_topic(prefix + "t1", 1, 60s, 0s).size() == 1u);
  auto tasks = w.call("GET", "/connectors/tables/tasks");
  BOOST_TEST(has(tasks, R"("tables":"t1")"));
  BOOST_TEST(has(tasks, R"("tables":"t2")"));
  BOOST_TEST(!has(tasks, R"("tables":"t3")"));

  // The connector's instance and its tasks' parent, in the tree above its tasks.
  static const std::regex instance_re(R"re("actor":([0-9]+),"instance":\{"actor":([0-9]+),"restarts":([0-9]+)\})re");
  std::smatch before, after;
  auto tree = w.call("GET", "/weir/tree/tables").body;
  BOOST_REQUIRE_MESSAGE(std::regex_search(tree, before, instance_re), tree);
  BOOST_TEST(before[3] == "0");
  BOOST_TEST(before[1] != before[2]);
  const auto parent = before[1].str(), instance = before[2].str(); // `tree` changes below

  Sqlite(db).exec("CREATE TABLE t3 (id INTEGER PRIMARY KEY); INSERT INTO t3 VALUES (5);");
  auto since = w.process->output().size();
  BOOST_TEST(w.call("POST", "/connectors/tables/restart").status == 204);
  BOOST_TEST(has(w.call("GET", "/connectors/tables/tasks"), R"("tables":"t3")"));
  tree = w.call("GET", "/weir/tree/tables").body;
  BOOST_REQUIRE(std::regex_search(tree, after, instance_re));
  BOOST_TEST(after[3] == "1");
  BOOST_TEST(after[2] != instance); // a new connector instance
  BOOST_TEST(after[1] == parent);    // under the same parent of its tasks
  BOOST_TEST(read_topic(prefix + "t3", 1, 60s, 0s).size() == 1u);
  Sqlite(db).exec("INSERT INTO t1 VALUES (2);");
  BOOST_TEST(read_topic(prefix + "t1", 2, 60s, 0s).size() == 2u); // task 0 went on from its offset
  auto log = w.process->output().substr(since);
  BOOST_TEST(log.find("task tables-0 stopped") == std::string::npos, log);
  BOOST_TEST(log.find("task tables-1 stopped") == std::string::npos, log);
  BOOST_TEST(log.find("task tables-2 stopped") != std::string::npos, log);
  BOOST_TEST(has(w.call("GET", "/connectors/tables/status"), R"("connector":{"state":"RUNNING")"));

  // With includeTasks=true a task is restarted once, even when the connector's own
  // restart gave it a new config: a fourth table changes every task's tables.
  Sqlite(db).exec("CREATE TABLE t4 (id INTEGER PRIMARY KEY); INSERT INTO t4 VALUES (7);");
  since = w.process->output().size();
  BOOST_TEST(w.call("POST", "/connectors/tables/restart?includeTasks=true").status == 202);
  BOOST_TEST(read_topic(prefix + "t4", 1, 60s, 0s).size() == 1u);
  log = w.process->output().substr(since);
  auto count = [&](const std::string& text) {
    size_t n = 0;
    for (auto at = log.find(text); at != std::string::npos; at = log.find(text, at + 1))
      ++n;
    return n;
  };
  for (int t = 0; t < 3; ++t) {
    auto id = std::to_string(t);
    BOOST_TEST(count("task tables-" + id + " started") + count("connector tables task " + id + " restarted") == 1u, log);
  }
  stop_cleanly(*w.process);
}

// A JDBC source's connector actor lists its tables again every table.poll.interval.ms
// (issue 21): a new table gives new task configs by itself, and only the task whose
// tables changed restarts.
BOOST_AUTO_TEST_CASE(a_jdbc_source_picks_up_a_new_table_by_itself) {
  TempDir dir{"weir-rest"};
  const std::string db = dir.path() + "/source.db";
  Sqlite(db, true).exec("CREATE TABLE a1 (id INTEGER PRIMARY KEY); INSERT INTO a1 VALUES (1);");
  const auto prefix = unique_name("rest-watch") + "-";
  auto w = start_worker(dir);
  auto created = w.call("POST", "/connectors",
                        R"({"name":"watched","config":{"connector.class":"JdbcSourceConnector","tasks.max":"2",)"
                        R"("connection.url":"jdbc:sqlite:)" + db + R"(","mode":"incrementing","table.poll.interval.ms":"300",)"
                        R"("incrementing.column.name":"id","topic.prefix":")" + prefix + R"(","poll.interval.ms":"200"}})");
  BOOST_REQUIRE_EQUAL(created.status, 201);
  BOOST_TEST(read_topic(prefix + "a1", 1, 60s, 0s).size() == 1u);
  auto since = w.process->output().size();
  Sqlite(db).exec("CREATE TABLE a2 (id INTEGER PRIMARY KEY); INSERT INTO a2 VALUES (9);");
  BOOST_REQUIRE_MESSAGE(eventually([&] { return has(w.call("GET", "/connectors/watched/tasks"), R"("tables":"a2")"); }, 30s),
                        "task 1 was not given table a2 within 30 s");
  BOOST_TEST(read_topic(prefix + "a2", 1, 60s, 0s).size() == 1u);
  Sqlite(db).exec("INSERT INTO a1 VALUES (2);");
  BOOST_TEST(read_topic(prefix + "a1", 2, 60s, 0s).size() == 2u);
  auto log = w.process->output().substr(since);
  BOOST_TEST(log.find("connector watched: its work changed") != std::string::npos, log);
  BOOST_TEST(log.find("task watched-0 stopped") == std::string::npos, log);
  BOOST_TEST(log.find("task watched-1 stopped") != std::string::npos, log);
  stop_cleanly(*w.process);
}

// Issue 21, item 3: a stage that throws fails its task, whose status shows FAILED
// with the trace; the automatic restart brings it back; another connector never
// stops. Here the JDBC sink's table is dropped under it: its next write throws, and
// the restarted writer creates the table again (auto.create).
BOOST_AUTO_TEST_CASE(a_failed_stage_fails_its_task_alone_and_the_automatic_restart_brings_it_back) {
  TempDir dir{"weir-rest"};
  auto rows_topic = unique_name("rest-fails"), lines_topic = unique_name("rest-steady");
  create_topic(rows_topic, 1);
  create_topic(lines_topic, 1);
  const std::string db = dir.path() + "/sink.db", lines = dir.path() + "/lines.txt";
  auto w = start_worker(dir, {{"task.restart.backoff.ms", "500"}});
  BOOST_REQUIRE_EQUAL(w.call("POST", "/connectors",
                             R"({"name":"rows","config":{"connector.class":"JdbcSinkConnector","topics":")" + rows_topic
                               + R"(","connection.url":"jdbc:sqlite:)" + db + R"(","auto.create":"true",)"
                               R"("table.name.format":"users","value.converter.schemas.enable":"false"}})").status, 201);
  BOOST_REQUIRE_EQUAL(w.call("POST", "/connectors",
                             R"({"name":"steady","config":{"connector.class":"FileStreamSink","topics":")" + lines_topic
                               + R"(","file":")" + lines + R"("}})").status, 201);
  produce(rows_topic, 10, json_record);
  produce(lines_topic, 10, json_record);
  auto rows = [&] { return std::filesystem::exists(db) ? Sqlite(db).scalar("SELECT count(*) FROM users", -1) : -1; };
  BOOST_REQUIRE_MESSAGE(eventually([&] { return rows() == 10 && lines_in(lines) == 10; }, 60s),
                        rows() << " rows, " << lines_in(lines) << " lines");
  auto since = w.process->output().size();
  // The task's own actor, at the end of its level in the tree.
  static const std::regex task_actor_re(R"re(\],"instance":\{"actor":([0-9]+),"restarts":([0-9]+)\}\})re");
  // Its parent: the connector's actor on this node.
  static const std::regex parent_re(R"re("actor":([0-9]+),"instance")re");
  std::smatch before, after, parent;
  auto tree = w.call("GET", "/weir/tree/rows").body;
  BOOST_REQUIRE_MESSAGE(std::regex_search(tree, before, task_actor_re), tree);
  BOOST_TEST(before[2] == "0");
  const auto task_actor = before[1].str(); // `tree` changes below
  BOOST_REQUIRE_MESSAGE(std::regex_search(tree, parent, parent_re), tree);
  const auto parent_actor = parent[1].str();

  Sqlite(db).exec("DROP TABLE users");
  produce(rows_topic, 10, [](size_t i) { return json_record(10 + i); });
  bool failed = eventually([&] {
    auto s = w.call("GET", "/connectors/rows/tasks/0/status");
    return has(s, R"("state":"FAILED")") && has(s, "users");
  }, 30s);
  BOOST_TEST(failed, "task rows-0 was not FAILED with a trace naming the table");
  produce(lines_topic, 10, [](size_t i) { return json_record(10 + i); });
  BOOST_REQUIRE_MESSAGE(eventually([&] { return rows() == 10; }, 60s), "after the restart: " << rows() << " rows");
  BOOST_TEST(has(w.call("GET", "/connectors/rows/tasks/0/status"), R"("state":"RUNNING")"));
  tree = w.call("GET", "/weir/tree/rows").body;
  BOOST_REQUIRE_MESSAGE(std::regex_search(tree, after, task_actor_re), tree);
  BOOST_TEST(after[1] != task_actor); // a new task actor
  BOOST_TEST(after[2] != "0");
  BOOST_REQUIRE_MESSAGE(std::regex_search(tree, parent, parent_re), tree);
  BOOST_TEST(parent[1] == parent_actor); // under the same parent
  BOOST_REQUIRE_MESSAGE(eventually([&] { return lines_in(lines) == 20; }, 60s), lines_in(lines) << " lines");
  auto log = w.process->output().substr(since);
  BOOST_TEST(log.find("automatic restart 1 of") != std::string::npos, log);
  BOOST_TEST(log.find("task steady-0 stopped") == std::string::npos, log); // the other connector went on
  BOOST_TEST(has(w.call("GET", "/connectors/steady/status"), R"("tasks":[{"id":0,"state":"RUNNING")"));
  stop_cleanly(*w.process);
}

BOOST_AUTO_TEST_SUITE_END()
