// Kafka Connect's REST API on `weir standalone` against the real broker (issue 7):
// a worker started with no connector, then driven only over HTTP, as kcctl or a UI
// would: create, status, pause/resume (nothing consumed while paused), reconfigure,
// stop, sink and source offsets (read, altered, refused while running, reset), delete, plugins,
// validation, loggers, and a failing task restarted automatically with backoff
// until it gives up, visible in its status; and a tap on an SMT stage.
#include "tests/support/rest_worker.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <regex>
#include <string>
#include <thread>

using namespace weir::testing;
using namespace std::chrono_literals;

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
  BOOST_TEST(has(reader, "tap an SMT stage or the sink (tag)"));
  BOOST_TEST(w.call("GET", "/weir/connectors/slow/tasks/0/stages/nope/tap?count=1").status == 404);
  stop_cleanly(*w.process);
}

BOOST_AUTO_TEST_SUITE_END()
