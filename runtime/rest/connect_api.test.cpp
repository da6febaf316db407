// Every endpoint over real HTTP against an in-memory herder: status codes and exact
// bodies as Kafka Connect 4.x answers them.
#include <boost/test/unit_test.hpp>

#include "runtime/rest/connect_api.hpp"
#include "tests/support/fake_herder.hpp"
#include "tests/support/http_client.hpp"

using namespace weir::runtime::rest;
using weir::runtime::rest::test::ClientResponse;
using weir::runtime::rest::test::FakeHerder;
using weir::runtime::rest::test::TestClient;

namespace {

HttpServerOptions loopback() {
  HttpServerOptions options;
  options.listener = "http://127.0.0.1:0";
  return options;
}

std::string error(int status, const std::string& message) {
  return R"({"error_code":)" + std::to_string(status) + R"(,"message":")" + message + R"("})";
}

const std::string sink_config =
    R"({"connector.class":"FileStreamSink","tasks.max":"2","file":"/tmp/x","connection.password":"pw"})";
const std::string sink_info =
    R"({"name":"sink","config":{"connection.password":"[hidden]","connector.class":"FileStreamSink",)"
    R"("file":"/tmp/x","name":"sink","tasks.max":"2"},"tasks":[{"connector":"sink","task":0},)"
    R"({"connector":"sink","task":1}],"type":"sink"})";
const std::string running_task = R"("state":"RUNNING","worker_id":"127.0.0.1:8083")";
const std::string sink_status = R"({"name":"sink","connector":{)" + running_task + R"(},"tasks":[{"id":0,)" +
                                running_task + R"(},{"id":1,)" + running_task + R"(}],"type":"sink"})";

// A REST server on an ephemeral loopback port over a fake herder, and a client.
struct Api {
  explicit Api(ConnectApiOptions api = {}, HttpServerOptions http = loopback())
      : server(herder, std::move(http), api), client(server.port()) {}

  ClientResponse create_sink() {
    return client.request("POST", "/connectors", R"({"name":"sink","config":)" + sink_config + "}");
  }

  FakeHerder herder;
  ConnectRestServer server;
  TestClient client;
};

} // namespace

BOOST_AUTO_TEST_SUITE(connect_api)

BOOST_AUTO_TEST_CASE(root_and_health) {
  Api api{{.request_timeout = std::chrono::milliseconds(90'000),
           .health_check_timeout = std::chrono::milliseconds(50)}};
  auto root = api.client.request("GET", "/");
  BOOST_TEST(root.status == 200);
  BOOST_TEST(root.body == R"({"version":"0.1.0","commit":"abc123","kafka_cluster_id":"cluster-1"})");

  auto healthy = api.client.request("GET", "/health");
  BOOST_TEST(healthy.status == 200);
  BOOST_TEST(healthy.body ==
             R"({"status":"healthy","message":"Worker has completed startup and is ready to handle requests."})");
  api.herder.healthy = false;
  api.herder.is_ready = false;
  auto starting = api.client.request("GET", "/health");
  BOOST_TEST(starting.status == 503);
  BOOST_TEST(starting.body == R"({"status":"starting","message":"Worker is still starting up. The worker is )"
                              R"(currently waiting for the supervisor actor to answer a health check"})");
  api.herder.is_ready = true;
  auto unhealthy = api.client.request("GET", "/health");
  BOOST_TEST(unhealthy.status == 500);
  BOOST_TEST(unhealthy.body ==
             R"({"status":"unhealthy","message":"Worker was unable to handle this request and may be unable to )"
             R"(handle other requests. The worker is currently waiting for the supervisor actor to answer a health check"})");
}

BOOST_AUTO_TEST_CASE(create_connector) {
  Api api;
  auto created = api.create_sink();
  BOOST_TEST(created.status == 201);
  BOOST_TEST(created.body == sink_info);
  BOOST_TEST(*created.header("location") == "http://127.0.0.1/connectors/sink");

  auto duplicate = api.create_sink();
  BOOST_TEST(duplicate.status == 409);
  BOOST_TEST(duplicate.body == error(409, "Connector sink already exists"));

  auto numbers = api.client.request(
      "POST", "/connectors",
      R"({"name":" n ","config":{"connector.class":"FileStreamSource","tasks.max":1,"batch":1.50,"x":true}})");
  BOOST_TEST(numbers.status == 201);
  BOOST_TEST(numbers.body == R"({"name":"n","config":{"batch":"1.50","connector.class":"FileStreamSource",)"
                             R"("name":"n","tasks.max":"1","x":"true"},"tasks":[{"connector":"n","task":0}],)"
                             R"("type":"source"})");
}

BOOST_AUTO_TEST_CASE(create_with_initial_state) {
  Api api;
  auto paused = api.client.request(
      "POST", "/connectors", R"({"name":"p","config":{"connector.class":"FileStreamSink"},"initial_state":"paused"})");
  BOOST_TEST(paused.status == 201);
  auto status = api.client.request("GET", "/connectors/p/status");
  BOOST_TEST(status.body == R"({"name":"p","connector":{"state":"PAUSED","worker_id":"127.0.0.1:8083"},)"
                            R"("tasks":[{"id":0,"state":"PAUSED","worker_id":"127.0.0.1:8083"}],"type":"sink"})");
  auto stopped = api.client.request(
      "POST", "/connectors", R"({"name":"s","config":{"connector.class":"FileStreamSink"},"initial_state":"STOPPED"})");
  BOOST_TEST(stopped.body == R"({"name":"s","config":{"connector.class":"FileStreamSink","name":"s"},)"
                             R"("tasks":[],"type":"sink"})");
  auto bad = api.client.request(
      "POST", "/connectors", R"({"name":"b","config":{"connector.class":"X"},"initial_state":"GONE"})");
  BOOST_TEST(bad.status == 400);
  BOOST_TEST(bad.body == error(400, R"(Invalid initial_state \"GONE\": expected one of RUNNING, PAUSED, STOPPED)"));
}

BOOST_AUTO_TEST_CASE(create_rejects_bad_requests) {
  Api api;
  struct Case {
    std::string body;
    std::string message;
  };
  std::vector<Case> cases = {
      {"", "The request body is empty: a JSON object is expected"},
      {"[1]", "The request body must be a JSON object, not an array"},
      {R"({"name":"a"})", R"(The request has no connector \"config\": expected {\"name\": ..., \"config\": {...}})"},
      {R"({"name":"a","config":{"connector.class":"X"},"tasks":[]})",
       R"(Unrecognized field \"tasks\" in the request: expected \"name\", \"config\" and \"initial_state\")"},
      {R"({"name":"a","config":{"connector.class":"X","nested":{"k":1}}})",
       R"(Configuration \"nested\" is an object: connector config values must be strings)"},
      {R"({"name":"a","config":{"connector.class":"X","gone":null}})",
       R"(Configuration \"gone\" is null: connector config values must be strings)"},
      {R"({"name":"a","config":{"name":"b","connector.class":"X"}})",
       "Connector name configuration (b) doesn't match connector name in the URL (a)"},
      {R"({"name":"a","config":{"tasks.max":"1"}})",
       R"(Connector configuration is invalid and contains the following 1 error(s):\nMissing required )"
       R"(configuration \"connector.class\" which has no default value.\nYou can also find the above list of )"
       R"(errors at the endpoint `/connector-plugins/{connectorType}/config/validate`)"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.body) {
      auto response = api.client.request("POST", "/connectors", c.body);
      BOOST_TEST(response.status == 400);
      BOOST_TEST(response.body == error(400, c.message));
    }
  }
  // Invalid JSON: 400 naming the parser's complaint; the connection stays usable.
  auto invalid = api.client.request("POST", "/connectors", R"({"name": "a", "config": {)");
  BOOST_TEST(invalid.status == 400);
  BOOST_TEST(invalid.body.find(R"("message":"The request body is not valid JSON: line 1, column 26 (byte 25): )"
                               R"(expected a member name in double quotes, found the end of the input")")
               != std::string::npos,
             invalid.body);
  BOOST_TEST(api.client.request("GET", "/connectors").body == "[]");
}

BOOST_AUTO_TEST_CASE(list_connectors_with_expansions) {
  Api api;
  api.create_sink();
  api.client.request("POST", "/connectors", R"({"name":"a","config":{"connector.class":"FileStreamSource"}})");
  BOOST_TEST(api.client.request("GET", "/connectors").body == R"(["a","sink"])");

  const std::string a_status = R"({"name":"a","connector":{)" + running_task + R"(},"tasks":[{"id":0,)" +
                               running_task + R"(}],"type":"source"})";
  const std::string a_info = R"({"name":"a","config":{"connector.class":"FileStreamSource","name":"a"},)"
                             R"("tasks":[{"connector":"a","task":0}],"type":"source"})";
  auto status = api.client.request("GET", "/connectors?expand=status");
  BOOST_TEST(status.status == 200);
  BOOST_TEST(status.body == R"({"a":{"status":)" + a_status + R"(},"sink":{"status":)" + sink_status + "}}");
  // Both expansions: status first, as Kafka Connect's map prints them.
  auto both = api.client.request("GET", "/connectors?expand=info&expand=status");
  BOOST_TEST(both.body == R"({"a":{"status":)" + a_status + R"(,"info":)" + a_info + R"(},"sink":{"status":)" +
                              sink_status + R"(,"info":)" + sink_info + "}}");
  BOOST_TEST(api.client.request("GET", "/connectors?expand=bogus").body == R"({"a":{},"sink":{}})");
}

BOOST_AUTO_TEST_CASE(connector_info_and_config) {
  Api api;
  api.create_sink();
  auto info = api.client.request("GET", "/connectors/sink");
  BOOST_TEST(info.status == 200);
  BOOST_TEST(info.body == sink_info);
  auto config = api.client.request("GET", "/connectors/sink/config");
  BOOST_TEST(config.status == 200);
  BOOST_TEST(config.body == R"({"connection.password":"[hidden]","connector.class":"FileStreamSink",)"
                            R"("file":"/tmp/x","name":"sink","tasks.max":"2"})");
  auto missing = api.client.request("GET", "/connectors/nope");
  BOOST_TEST(missing.status == 404);
  BOOST_TEST(missing.body == error(404, "Connector nope not found"));
  BOOST_TEST(api.client.request("GET", "/connectors/nope/config").body == error(404, "Connector nope not found"));
}

BOOST_AUTO_TEST_CASE(values_from_config_providers_are_redacted) {
  Api api;
  api.herder.set_provider_keys({"file"});
  api.create_sink();
  BOOST_TEST(api.client.request("GET", "/connectors/sink/config").body ==
             R"({"connection.password":"[hidden]","connector.class":"FileStreamSink",)"
             R"("file":"[hidden]","name":"sink","tasks.max":"2"})");
}

BOOST_AUTO_TEST_CASE(a_config_read_back_and_sent_again_keeps_its_secrets) {
  Api api;
  api.herder.set_provider_keys({"db.url"});
  api.client.request("PUT", "/connectors/sink/config",
                     R"({"connector.class":"FileStreamSink","connection.password":"pw","db.url":"${env:URL}"})");
  auto shown = api.client.request("GET", "/connectors/sink/config");
  // A value that is only provider references is shown as written, as in Kafka Connect.
  BOOST_TEST(shown.body == R"({"connection.password":"[hidden]","connector.class":"FileStreamSink",)"
                           R"("db.url":"${env:URL}","name":"sink"})");
  // What a UI's edit form does: the shown config, one value changed, sent back.
  std::string edited = shown.body;
  edited.replace(edited.find("FileStreamSink"), 14, "FileStreamSinkConnector");
  BOOST_TEST(api.client.request("PUT", "/connectors/sink/config", edited).status == 200);
  BOOST_TEST(api.client.request("PATCH", "/connectors/sink/config", R"({"db.url":"[hidden]","topic":"[hidden]"})").status == 200);
  BOOST_TEST((api.herder.stored("sink") == ConfigMap{{"connection.password", "pw"},
                                                     {"connector.class", "FileStreamSinkConnector"},
                                                     {"db.url", "${env:URL}"},
                                                     {"name", "sink"},
                                                     {"topic", "[hidden]"}}));
}

// Issue 20, item 7: what Kafka types PASSWORD, whatever its prefix, and the
// passwords inside URLs; a reference to a secret is shown, a secret never.
BOOST_AUTO_TEST_CASE(password_keys_and_credentials_in_urls_are_hidden) {
  Api api;
  const std::string config =
      R"({"connector.class":"FileStreamSink","consumer.override.sasl.jaas.config":"x required password=\"pw\";",)"
      R"("consumer.override.sasl.oauthbearer.client.secret":"cs","connection.url":"jdbc:postgresql://u:pw@db/app",)"
      R"("other.url":"jdbc:postgresql://db/app?user=u&password=pw2","ssl.key.password":"${file:/s.properties:k}"})";
  BOOST_TEST(api.client.request("PUT", "/connectors/sink/config", config).status == 201);
  auto shown = api.client.request("GET", "/connectors/sink/config");
  BOOST_TEST(shown.body == R"({"connection.url":"jdbc:postgresql://u:[hidden]@db/app","connector.class":"FileStreamSink",)"
                           R"("consumer.override.sasl.jaas.config":"[hidden]",)"
                           R"("consumer.override.sasl.oauthbearer.client.secret":"[hidden]","name":"sink",)"
                           R"("other.url":"jdbc:postgresql://db/app?user=u&password=[hidden]",)"
                           R"("ssl.key.password":"${file:/s.properties:k}"})");
  // Sent back as shown, the secrets stay as stored.
  BOOST_TEST(api.client.request("PUT", "/connectors/sink/config", shown.body).status == 200);
  BOOST_TEST(api.herder.stored("sink").at("connection.url") == "jdbc:postgresql://u:pw@db/app");
  BOOST_TEST(api.herder.stored("sink").at("other.url") == "jdbc:postgresql://db/app?user=u&password=pw2");
  BOOST_TEST(api.herder.stored("sink").at("consumer.override.sasl.jaas.config") == "x required password=\"pw\";");
  // A URL whose password is the placeholder, with no such URL stored, is refused.
  auto refused = api.client.request("PATCH", "/connectors/sink/config",
                                    R"({"connection.url":"jdbc:postgresql://v:[hidden]@db/app"})");
  BOOST_TEST(refused.status == 400);
  BOOST_TEST(refused.body == error(400, R"(Configuration \"connection.url\" holds \"[hidden]\" in place of a )"
                                        R"(password, the placeholder weir shows in place of secrets; send the real value)"));
}

BOOST_AUTO_TEST_CASE(a_secret_placeholder_with_nothing_stored_behind_it_is_refused) {
  Api api;
  const std::string refused = error(400, R"(Configuration \"connection.password\" is \"[hidden]\", the )"
                                         R"(placeholder weir shows in place of secrets; send the real value)");
  BOOST_TEST(api.client.request("POST", "/connectors", R"({"name":"n","config":{"connector.class":"X",)"
                                                       R"("connection.password":"[hidden]"}})").body == refused);
  api.client.request("PUT", "/connectors/n/config", R"({"connector.class":"X"})");
  BOOST_TEST(api.client.request("PUT", "/connectors/n/config",
                                R"({"connector.class":"X","connection.password":"[hidden]"})").body == refused);
}

BOOST_AUTO_TEST_CASE(put_and_patch_config) {
  Api api;
  auto created = api.client.request("PUT", "/connectors/sink/config", sink_config);
  BOOST_TEST(created.status == 201);
  BOOST_TEST(created.body == sink_info);
  BOOST_TEST(*created.header("location") == "http://127.0.0.1/connectors/sink");
  auto updated = api.client.request("PUT", "/connectors/sink/config", sink_config);
  BOOST_TEST(updated.status == 200);
  BOOST_TEST(!updated.header("location"));
  BOOST_TEST(updated.body == sink_info);

  auto mismatch = api.client.request("PUT", "/connectors/sink/config", R"({"name":"other","connector.class":"X"})");
  BOOST_TEST(mismatch.status == 400);
  BOOST_TEST(mismatch.body == error(400, "Connector name configuration (other) doesn't match connector name in the URL (sink)"));
  auto wrapped = api.client.request("PUT", "/connectors/sink/config", R"({"name":"sink","config":{}})");
  BOOST_TEST(wrapped.status == 400);
  BOOST_TEST(wrapped.body == error(400, R"(Configuration \"config\" is an object: connector config values must be strings)"));

  // PATCH: values replace, null removes.
  auto patched = api.client.request("PATCH", "/connectors/sink/config", R"({"file":"/tmp/y","tasks.max":null})");
  BOOST_TEST(patched.status == 200);
  BOOST_TEST(patched.body == R"({"name":"sink","config":{"connection.password":"[hidden]","connector.class":)"
                             R"("FileStreamSink","file":"/tmp/y","name":"sink"},"tasks":[{"connector":"sink",)"
                             R"("task":0}],"type":"sink"})");
  auto invalid = api.client.request("PATCH", "/connectors/sink/config", R"({"connector.class":null})");
  BOOST_TEST(invalid.status == 400);
  BOOST_TEST(invalid.body.find("Missing required configuration") != std::string::npos);
  auto rename = api.client.request("PATCH", "/connectors/sink/config", R"({"name":"x"})");
  BOOST_TEST(rename.body == error(400, "Connector name configuration (x) doesn't match connector name in the URL (sink)"));
  BOOST_TEST(api.client.request("PATCH", "/connectors/nope/config", "{}").body ==
             error(404, "Connector nope not found"));
}

BOOST_AUTO_TEST_CASE(status_tasks_and_task_status) {
  Api api;
  api.client.request("POST", "/connectors", R"({"name":"sink","config":)" + sink_config.substr(0, sink_config.size() - 1) +
                                                R"(,"fail.task":"1"}})");
  auto status = api.client.request("GET", "/connectors/sink/status");
  BOOST_TEST(status.status == 200);
  BOOST_TEST(status.body == R"({"name":"sink","connector":{)" + running_task + R"(},"tasks":[{"id":0,)" +
                                running_task + R"(},{"id":1,"state":"FAILED","worker_id":"127.0.0.1:8083",)"
                                R"("trace":"java.lang.RuntimeException: boom in sink"}],"type":"sink"})");
  auto tasks = api.client.request("GET", "/connectors/sink/tasks");
  BOOST_TEST(tasks.status == 200);
  BOOST_TEST(tasks.body == R"([{"id":{"connector":"sink","task":0},"config":{"connection.password":"[hidden]",)"
                           R"("task.class":"FakeTask"}},{"id":{"connector":"sink","task":1},"config":{)"
                           R"("connection.password":"[hidden]","task.class":"FakeTask"}}])");
  auto task = api.client.request("GET", "/connectors/sink/tasks/0/status");
  BOOST_TEST(task.body == R"({"id":0,)" + running_task + "}");
  BOOST_TEST(api.client.request("GET", "/connectors/sink/tasks/5/status").body == error(404, "Task sink-5 not found"));
  auto not_a_number = api.client.request("GET", "/connectors/sink/tasks/x/status");
  BOOST_TEST(not_a_number.status == 404);
  BOOST_TEST(not_a_number.body == error(404, "HTTP 404 Not Found: task id x is not an integer"));
  BOOST_TEST(api.client.request("GET", "/connectors/nope/status").body == error(404, "Connector nope not found"));
}

BOOST_AUTO_TEST_CASE(restarts) {
  Api api;
  api.client.request("POST", "/connectors", R"({"name":"sink","config":)" + sink_config.substr(0, sink_config.size() - 1) +
                                                R"(,"fail.task":"1"}})");
  auto plain = api.client.request("POST", "/connectors/sink/restart");
  BOOST_TEST(plain.status == 204);
  BOOST_TEST(plain.body.empty());
  BOOST_TEST(!plain.header("content-length"));

  auto failed = api.client.request("POST", "/connectors/sink/restart?includeTasks=true&onlyFailed=true");
  BOOST_TEST(failed.status == 202);
  BOOST_TEST(failed.body == R"({"name":"sink","connector":{)" + running_task + R"(},"tasks":[{"id":0,)" +
                                running_task + R"(},{"id":1,"state":"RESTARTING","worker_id":"127.0.0.1:8083"}],)"
                                R"("type":"sink"})");
  auto all = api.client.request("POST", "/connectors/sink/restart?includeTasks=TRUE");
  BOOST_TEST(all.status == 202);
  BOOST_TEST(all.body.find(R"("connector":{"state":"RESTARTING")") != std::string::npos);

  auto task = api.client.request("POST", "/connectors/sink/tasks/1/restart");
  BOOST_TEST(task.status == 204);
  BOOST_TEST(api.client.request("POST", "/connectors/sink/tasks/7/restart").body == error(404, "Task sink-7 not found"));
  BOOST_TEST(api.client.request("POST", "/connectors/nope/restart").body == error(404, "Connector nope not found"));
  // Kafka Connect's forward parameter: only "false" refuses a further hop.
  BOOST_TEST(api.client.request("POST", "/connectors/sink/tasks/0/restart?forward=false").status == 204);
  BOOST_TEST(api.client.request("POST", "/connectors/sink/tasks/0/restart?forward=true").status == 204);
  BOOST_TEST(api.herder.restarted() == (std::vector<std::string>{"sink", "sink+tasks+onlyFailed", "sink+tasks", "sink-1",
                                                                 "sink-0+forward=false", "sink-0"}));
}

BOOST_AUTO_TEST_CASE(pause_resume_stop_delete) {
  Api api;
  api.create_sink();
  auto pause = api.client.request("PUT", "/connectors/sink/pause");
  BOOST_TEST(pause.status == 202);
  BOOST_TEST(pause.body.empty());
  BOOST_TEST(*pause.header("content-length") == "0");
  BOOST_TEST(api.client.request("GET", "/connectors/sink/tasks/0/status").body.find("PAUSED") != std::string::npos);
  BOOST_TEST(api.client.request("PUT", "/connectors/sink/resume").status == 202);
  BOOST_TEST(api.client.request("GET", "/connectors/sink/tasks/0/status").body == R"({"id":0,)" + running_task + "}");
  BOOST_TEST(api.client.request("PUT", "/connectors/sink/stop").status == 204);
  BOOST_TEST(api.client.request("GET", "/connectors/sink/status").body ==
             R"({"name":"sink","connector":{"state":"STOPPED","worker_id":"127.0.0.1:8083"},"tasks":[],"type":"sink"})");
  BOOST_TEST(api.client.request("PUT", "/connectors/nope/pause").body == error(404, "Connector nope not found"));

  auto deleted = api.client.request("DELETE", "/connectors/sink");
  BOOST_TEST(deleted.status == 204);
  BOOST_TEST(api.client.request("GET", "/connectors/sink").status == 404);
  BOOST_TEST(api.client.request("DELETE", "/connectors/sink").body == error(404, "Connector sink not found"));
}

BOOST_AUTO_TEST_CASE(offsets) {
  Api api;
  api.create_sink();
  BOOST_TEST(api.client.request("GET", "/connectors/sink/offsets").body == R"({"offsets":[]})");
  const std::string alter =
      R"({"offsets": [{"partition": {"kafka_topic": "t", "kafka_partition": 0}, "offset": {"kafka_offset": 10}},)"
      R"( {"partition": {"kafka_topic": "t", "kafka_partition": 1}, "offset": null}]})";
  auto running = api.client.request("PATCH", "/connectors/sink/offsets", alter);
  BOOST_TEST(running.status == 400);
  BOOST_TEST(running.body == error(400, "Connectors must be in the STOPPED state before their offsets can be modified. "
                                        "This can be done for the specified connector by issuing a 'PUT' request to "
                                        "the '/connectors/sink/stop' endpoint"));
  api.client.request("PUT", "/connectors/sink/stop");
  auto altered = api.client.request("PATCH", "/connectors/sink/offsets", alter);
  BOOST_TEST(altered.status == 200);
  BOOST_TEST(altered.body == R"({"message":"The offsets for this connector have been altered successfully"})");
  BOOST_TEST(api.client.request("GET", "/connectors/sink/offsets").body ==
             R"({"offsets":[{"partition":{"kafka_topic":"t","kafka_partition":0},"offset":{"kafka_offset":10}},)"
             R"({"partition":{"kafka_topic":"t","kafka_partition":1},"offset":null}]})");

  const std::string none = error(400, "Partitions / offsets need to be provided for an alter offsets request");
  BOOST_TEST(api.client.request("PATCH", "/connectors/sink/offsets", R"({"offsets":[]})").body == none);
  BOOST_TEST(api.client.request("PATCH", "/connectors/sink/offsets", "{}").body == none);
  BOOST_TEST(api.client.request("PATCH", "/connectors/sink/offsets", R"({"offsets":[{"partition":1,"offset":null}]})").body ==
             error(400, R"(A \"partition\" must be a JSON object)"));

  auto reset = api.client.request("DELETE", "/connectors/sink/offsets");
  BOOST_TEST(reset.status == 200);
  BOOST_TEST(reset.body == R"({"message":"The offsets for this connector have been reset successfully"})");
  BOOST_TEST(api.client.request("GET", "/connectors/sink/offsets").body == R"({"offsets":[]})");
  BOOST_TEST(api.client.request("GET", "/connectors/nope/offsets").body == error(404, "Connector nope not found"));
}

BOOST_AUTO_TEST_CASE(active_topics) {
  Api api;
  api.create_sink();
  auto topics = api.client.request("GET", "/connectors/sink/topics");
  BOOST_TEST(topics.status == 200);
  BOOST_TEST(topics.body == R"({"sink":{"topics":[]}})");
  BOOST_TEST(api.client.request("PUT", "/connectors/sink/topics/reset").status == 202);
  BOOST_TEST(api.client.request("GET", "/connectors/nope/topics").status == 404);

  Api disabled{{.topic_tracking_enable = false}};
  auto forbidden = disabled.client.request("GET", "/connectors/sink/topics");
  BOOST_TEST(forbidden.status == 403);
  BOOST_TEST(forbidden.body == error(403, "Topic tracking is disabled."));
  Api no_reset{{.topic_tracking_allow_reset = false}};
  BOOST_TEST(no_reset.client.request("PUT", "/connectors/sink/topics/reset").body ==
             error(403, "Topic tracking reset is disabled."));
}

BOOST_AUTO_TEST_CASE(connector_plugins) {
  Api api;
  const std::string connectors =
      R"({"class":"org.apache.kafka.connect.file.FileStreamSinkConnector","type":"sink","version":"4.1.1"},)"
      R"({"class":"org.apache.kafka.connect.file.FileStreamSourceConnector","type":"source","version":"4.1.1"})";
  BOOST_TEST(api.client.request("GET", "/connector-plugins").body == "[" + connectors + "]");
  BOOST_TEST(api.client.request("GET", "/connector-plugins?connectorsOnly=true").body == "[" + connectors + "]");
  BOOST_TEST(api.client.request("GET", "/connector-plugins?connectorsOnly=false").body ==
             "[" + connectors +
                 R"(,{"class":"org.apache.kafka.connect.transforms.InsertField$Value","type":"transformation",)"
                 R"("version":"4.1.1"},{"class":"org.apache.kafka.connect.transforms.predicates.TopicNameMatches",)"
                 R"("type":"predicate"},{"class":"org.apache.kafka.connect.json.JsonConverter","type":"converter",)"
                 R"("version":"4.1.1"}])");

  auto config = api.client.request("GET", "/connector-plugins/FileStreamSink/config");
  BOOST_TEST(config.status == 200);
  BOOST_TEST(config.body == R"([{"name":"file","type":"STRING","required":true,"default_value":null,)"
                            R"("importance":"HIGH","documentation":"Destination filename.","group":null,)"
                            R"("width":"NONE","display_name":"file","dependents":[],"order":-1}])");
  BOOST_TEST(api.client.request("GET", "/connector-plugins/Nope/config").body == error(404, "Unknown plugin Nope."));
}

BOOST_AUTO_TEST_CASE(validate_config) {
  Api api;
  auto valid = api.client.request(
      "PUT", "/connector-plugins/FileStreamSink/config/validate",
      R"({"connector.class":"org.apache.kafka.connect.file.FileStreamSinkConnector","connection.password":"pw"})");
  BOOST_TEST(valid.status == 200);
  BOOST_TEST(valid.body ==
             R"({"name":"org.apache.kafka.connect.file.FileStreamSinkConnector","error_count":1,"groups":["Common"],)"
             R"("configs":[{"definition":{"name":"file","type":"STRING","required":true,"default_value":null,)"
             R"("importance":"HIGH","documentation":"Destination filename.","group":null,"width":"NONE",)"
             R"("display_name":"file","dependents":[],"order":-1},"value":{"name":"file","value":null,)"
             R"("recommended_values":[],"errors":["Missing required configuration \"file\" which has no default )"
             R"(value."],"visible":true}},{"definition":{"name":"connection.password","type":"PASSWORD",)"
             R"("required":false,"default_value":"[hidden]","importance":"HIGH","documentation":"",)"
             R"("group":"Common","width":"NONE","display_name":"connection.password","dependents":[],"order":1},)"
             R"("value":{"name":"connection.password","value":"[hidden]","recommended_values":[],"errors":[],)"
             R"("visible":true}}]})");
  auto mismatch = api.client.request("PUT", "/connector-plugins/FileStreamSink/config/validate",
                                     R"({"connector.class":"FileStreamSource"})");
  BOOST_TEST(mismatch.status == 400);
  BOOST_TEST(mismatch.body ==
             error(400, "Included connector type FileStreamSource does not match request type FileStreamSink"));
  BOOST_TEST(api.client.request("PUT", "/connector-plugins/FileStreamSink/config/validate", "{").status == 400);
}

BOOST_AUTO_TEST_CASE(loggers) {
  Api api;
  BOOST_TEST(api.client.request("GET", "/admin/loggers").body == R"({"root":{"level":"INFO","last_modified":null}})");
  BOOST_TEST(api.client.request("GET", "/admin/loggers/root").body == R"({"level":"INFO","last_modified":null})");
  BOOST_TEST(api.client.request("GET", "/admin/loggers/weir.x").body == error(404, "Logger weir.x not found."));

  auto set = api.client.request("PUT", "/admin/loggers/org.apache.kafka", R"({"level":"debug"})");
  BOOST_TEST(set.status == 200);
  BOOST_TEST(set.body == R"(["org.apache.kafka"])");
  BOOST_TEST(api.client.request("GET", "/admin/loggers/org.apache.kafka").body ==
             R"({"level":"DEBUG","last_modified":1700000000000})");
  auto cluster = api.client.request("PUT", "/admin/loggers/weir?scope=cluster", R"({"level":"WARN"})");
  BOOST_TEST(cluster.status == 204);
  BOOST_TEST(api.client.request("GET", "/admin/loggers/weir").body == R"({"level":"WARN","last_modified":1700000000001})");

  BOOST_TEST(api.client.request("PUT", "/admin/loggers/weir", R"({"lvl":"WARN"})").body ==
             error(400, "Desired 'level' parameter was not specified in request."));
  BOOST_TEST(api.client.request("PUT", "/admin/loggers/weir", R"({"level":"LOUD"})").body ==
             error(404, "invalid log level 'LOUD'."));
  BOOST_TEST(api.client.request("PUT", "/admin/loggers", R"({"level":"WARN"})").status == 405);
}

BOOST_AUTO_TEST_CASE(unknown_paths_and_methods) {
  Api api;
  auto missing = api.client.request("GET", "/connectors/a/nothing");
  BOOST_TEST(missing.status == 404);
  BOOST_TEST(missing.body == error(404, "HTTP 404 Not Found"));
  auto wrong = api.client.request("DELETE", "/connectors");
  BOOST_TEST(wrong.status == 405);
  BOOST_TEST(wrong.body == error(405, "HTTP 405 Method Not Allowed"));
  BOOST_TEST(*wrong.header("allow") == "GET, POST");
}

BOOST_AUTO_TEST_CASE(a_herder_that_cannot_answer_in_time_times_out_naming_what_it_waited_for) {
  Api api{{.request_timeout = std::chrono::milliseconds(100)}};
  api.client.request("POST", "/connectors", R"({"name":"stuck","config":{"connector.class":"FileStreamSink"}})");
  auto response = api.client.request("GET", "/connectors/stuck/status");
  BOOST_TEST(response.status == 500);
  BOOST_TEST(response.body == error(500, "Request timed out. The worker is currently waiting for connector stuck's "
                                         "actor to answer a status request"));
  // The plain listing still answers; an expansion that needs the stuck connector
  // times out the same way.
  BOOST_TEST(api.client.request("GET", "/connectors").body == R"(["stuck"])");
  BOOST_TEST(api.client.request("GET", "/connectors?expand=status").status == 500);
}

BOOST_AUTO_TEST_CASE(bearer_token_on_every_endpoint) {
  HttpServerOptions http = loopback();
  http.bearer_token = "t0ken";
  Api api{{}, http};
  BOOST_TEST(api.client.request("GET", "/").status == 401);
  BOOST_TEST(api.client.request("GET", "/health").status == 401);
  BOOST_TEST(api.client.request("GET", "/connectors").status == 401);
  auto allowed = api.client.request("GET", "/connectors", "", "Authorization: Bearer t0ken\r\n");
  BOOST_TEST(allowed.status == 200);
  BOOST_TEST(allowed.body == "[]");
}

BOOST_AUTO_TEST_CASE(config_patch_semantics) {
  ConfigMap patched = apply_config_patch({{"a", "1"}, {"b", "2"}}, {{"a", std::nullopt}, {"c", "3"}, {"b", "4"}});
  BOOST_TEST((patched == ConfigMap{{"b", "4"}, {"c", "3"}}));
}

BOOST_AUTO_TEST_SUITE_END()
