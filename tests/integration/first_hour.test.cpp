// A Kafka Connect user's first hour with `weir standalone` (issue 19), against the
// real broker: what they get wrong on purpose is refused at once with a message that
// names the file and the key, said once; what Kafka Connect tolerates is tolerated;
// what weir reports (GET /, idle reasons, DEBUG logging) is true.
#include "tests/support/rest_worker.hpp"

#include <boost/test/unit_test.hpp>

#include <simdjson.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>

#include "runtime/kafka/admin.hpp"

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

size_t count_of(const std::string& text, const std::string& part) {
  size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size()))
    ++n;
  return n;
}

/// Runs `weir standalone` to its end (it must end within 60 s) and returns its output.
std::string run_to_exit(const TempDir& dir, std::map<std::string, std::string> extra,
                        const std::vector<std::string>& connectors, int& code) {
  auto config = worker_config(dir.path() + "/state.db");
  for (auto& [k, v] : extra)
    config[k] = v;
  write_properties(dir.path() + "/worker.properties", config);
  auto weir = start_standalone(dir.path() + "/worker.properties", connectors, dir.path() + "/exit.log");
  auto status = weir->wait(60s);
  BOOST_REQUIRE_MESSAGE(status, "weir standalone did not stop within 60 s:\n" << weir->output());
  code = status->exited ? status->code : -1;
  return weir->output();
}

std::string file_sink_json(const std::string& name, const std::string& topic, const std::string& file,
                           const std::string& extra = {}) {
  return R"({"name":")" + name + R"(","config":{"connector.class":"FileStreamSink","topics":")" + topic
         + R"(","file":")" + file + "\"" + extra + "}}";
}

/// A task's status trace, or "" when it has none.
std::string task_trace(RestWorker& w, const std::string& connector, int task) {
  auto body = w.call("GET", "/connectors/" + connector + "/tasks/" + std::to_string(task) + "/status").body;
  static const std::regex trace(R"re("trace":"([^"]*)")re");
  std::smatch m;
  return std::regex_search(body, m, trace) ? std::string{m[1]} : std::string{};
}

/// A stage and its task, as GET /weir/tree shows them.
struct TreeStage {
  std::string task_state, state;
  uint64_t records_in = 0, records_out = 0;
  double in_per_sec = 0;
};

/// Stage `stage` of task 0 of `connector` in `w`'s tree; nullopt when not shown.
std::optional<TreeStage> tree_stage(RestWorker& w, const std::string& connector, const std::string& stage) {
  weir::runtime::rest::test::TestClient client{w.port};
  auto body = client.request("GET", "/weir/tree/" + connector).body;
  simdjson::dom::parser parser;
  simdjson::dom::element tree;
  if (parser.parse(body).get(tree))
    return std::nullopt;
  for (auto node : tree["nodes"].get_array())
    for (auto c : node["connectors"].get_array())
      for (auto task : c["tasks"].get_array()) {
        if (int64_t(task["id"]) != 0)
          continue;
        for (auto s : task["stages"].get_array())
          if (std::string_view(s["name"]) == stage)
            return TreeStage{std::string{std::string_view(task["state"])}, std::string{std::string_view(s["state"])},
                             uint64_t(s["records_in"]), uint64_t(s["records_out"]), double(s["records_in_per_sec"])};
      }
  return std::nullopt;
}

} // namespace

BOOST_AUTO_TEST_SUITE(first_hour)

BOOST_AUTO_TEST_CASE(a_second_worker_on_a_port_in_use_says_so_once) {
  TempDir first_dir{"weir-first"}, second_dir{"weir-second"};
  auto first = start_worker(first_dir);
  int code = 0;
  auto listener = "http://127.0.0.1:" + std::to_string(first.port);
  auto out = run_to_exit(second_dir, {{"listeners", listener}}, {}, code);
  BOOST_TEST(code == 1);
  BOOST_TEST(out.find("cannot listen on " + listener + ": Address already in use") != std::string::npos, out);
  BOOST_TEST(count_of(out, "cannot listen on") == 1u, out);
  stop_cleanly(*first.process);
}

BOOST_AUTO_TEST_CASE(a_plugin_path_folder_that_does_not_exist_is_warned_about_and_skipped) {
  TempDir dir{"weir-plugins"};
  auto absent = dir.path() + "/no-such-plugins";
  auto w = start_worker(dir, {{"plugin.path", absent + "," + dir.path()}});
  BOOST_TEST(w.call("GET", "/connectors").status == 200);
  BOOST_TEST(w.process->output().find("plugin.path: " + absent + " does not exist; ignoring it") != std::string::npos,
             w.process->output());
  stop_cleanly(*w.process);
}

BOOST_AUTO_TEST_CASE(a_mistyped_converter_class_is_refused_at_once_naming_the_key) {
  const std::string typo = "org.apache.kafka.connect.json.JsonConverterr";
  const std::string expected = "Invalid value " + typo + " for configuration value.converter: Class " + typo
                               + " could not be found.";
  TempDir dir{"weir-converter"};
  auto topic = unique_name("converter");
  auto file = dir.path() + "/out.txt";
  auto w = start_worker(dir);

  auto validated = w.call("PUT", "/connector-plugins/FileStreamSink/config/validate",
                          R"({"connector.class":"FileStreamSink","name":"c","topics":")" + topic
                            + R"(","value.converter":")" + typo + R"("})");
  BOOST_TEST(validated.status == 200);
  BOOST_TEST(has(validated, R"("error_count":1)"));
  BOOST_TEST(has(validated, expected));

  auto created = w.call("POST", "/connectors", file_sink_json("c", topic, file, R"(,"value.converter":")" + typo + "\""));
  BOOST_TEST(created.status == 400);
  BOOST_TEST(has(created, expected));
  BOOST_TEST(w.call("GET", "/connectors/c").status == 404);

  auto put = w.call("PUT", "/connectors/c/config",
                    R"({"connector.class":"FileStreamSink","topics":")" + topic + R"(","file":")" + file
                      + R"(","value.converter":")" + typo + R"("})");
  BOOST_TEST(put.status == 400);
  BOOST_TEST(has(put, expected));
  BOOST_TEST(w.call("GET", "/connectors/c").status == 404);
  stop_cleanly(*w.process);

  // A worker's key.converter alike, before anything starts.
  TempDir worker_dir{"weir-converter-worker"};
  int code = 0;
  auto out = run_to_exit(worker_dir, {{"key.converter", "StringConverterr"}}, {}, code);
  BOOST_TEST(code == 1);
  BOOST_TEST(out.find("Invalid value StringConverterr for configuration key.converter: Class StringConverterr "
                      "could not be found.")
               != std::string::npos,
             out);
}

BOOST_AUTO_TEST_CASE(connector_files_report_every_problem_with_file_and_key) {
  TempDir dir{"weir-files"};
  auto topic = unique_name("files");
  auto a = dir.path() + "/a.properties";
  write_properties(a, {{"name", "a"}, {"connector.class", "FileStreamSink"}, {"topics", topic},
                       {"tasks.max", "two"}, {"value.converter", "Jsn"}, {"flie", "x"}});
  auto b = dir.path() + "/b.json";
  std::ofstream(b) << "{\"name\": \"b\",\n \"config\": {\"connector.class\": \"FileStreamSink\" \"topics\": \"t\"}}\n";
  auto c = dir.path() + "/c.properties";
  auto d = dir.path() + "/d.properties";
  for (const auto& path : {c, d})
    write_properties(path, {{"name", "same"}, {"connector.class", "FileStreamSink"}, {"topics", topic}});
  int code = 0;
  auto out = run_to_exit(dir, {}, {a, b, c, d}, code);
  BOOST_TEST(code == 1);
  BOOST_TEST(out.find("5 problems in the connector files:") != std::string::npos, out);
  BOOST_TEST(out.find(a + ": Invalid value two for configuration tasks.max: Not a number of type INT") != std::string::npos, out);
  BOOST_TEST(out.find(a + ": Invalid value Jsn for configuration value.converter: Class Jsn could not be found.")
               != std::string::npos, out);
  BOOST_TEST(out.find(a + ": Unknown configuration \"flie\"; did you mean \"file\"?") != std::string::npos, out);
  // A JSON syntax error says where, and what was expected.
  BOOST_TEST(out.find(b + ": Invalid connector JSON: line 2, column 49 (byte 62): expected ',' or '}' after an "
                          "object member, found '\"'")
               != std::string::npos, out);
  BOOST_TEST(out.find(d + ": name: connector same is also defined in " + c) != std::string::npos, out);
}

BOOST_AUTO_TEST_CASE(get_root_names_the_build_commit_and_the_kafka_cluster) {
  TempDir dir{"weir-root"};
  auto w = start_worker(dir);
  auto root = w.call("GET", "/");
  BOOST_TEST(root.status == 200);
  static const std::regex commit(R"re("commit":"([0-9a-f]{16}|unknown)")re");
  BOOST_TEST(std::regex_search(root.body, commit), root.body);
  auto id = weir::runtime::kafka::cluster_id(broker(), 10s);
  BOOST_TEST(!id.empty());
  BOOST_TEST(has(root, R"("kafka_cluster_id":")" + id + "\""), root.body);
  stop_cleanly(*w.process);
}

BOOST_AUTO_TEST_CASE(setting_root_to_debug_brings_debug_lines) {
  TempDir dir{"weir-debug"};
  auto w = start_worker(dir);
  w.call("GET", "/connectors");
  BOOST_TEST(w.process->output().find("REST GET /connectors ->") == std::string::npos);
  BOOST_TEST(w.call("PUT", "/admin/loggers/root", R"({"level":"DEBUG"})").status == 200);
  w.call("GET", "/connectors?expand=status");
  BOOST_TEST(eventually([&] { return w.process->output().find("[debug] REST GET /connectors?expand=status -> 200")
                                       != std::string::npos; },
                        10s),
             w.process->output());
  BOOST_TEST(w.call("PUT", "/admin/loggers/root", R"({"level":"INFO"})").status == 200);
  w.call("GET", "/connector-plugins");
  stop_cleanly(*w.process);
  BOOST_TEST(w.process->output().find("REST GET /connector-plugins") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_idle_task_says_why_truly) {
  TempDir dir{"weir-idle"};
  auto one = unique_name("idle-one");
  create_topic(one, 1);
  auto missing = unique_name("idle-missing");
  auto w = start_worker(dir);

  // Two tasks on one partition: one is idle because of tasks.max, the other reads.
  // While the group is still assigning, they never both claim that reason.
  BOOST_REQUIRE(w.call("POST", "/connectors",
                       file_sink_json("two", one, dir.path() + "/two.txt", R"(,"tasks.max":"2")")).status == 201);
  std::vector<std::string> traces;
  bool settled = eventually(
    [&] {
      auto t0 = task_trace(w, "two", 0), t1 = task_trace(w, "two", 1);
      traces.push_back(t0 + " | " + t1);
      BOOST_TEST(!(t0.find("tasks.max") != std::string::npos && t1.find("tasks.max") != std::string::npos),
                 traces.back());
      return (t0.empty() && t1.find("tasks.max=2 but the topics have 1 partition(s)") != std::string::npos)
             || (t1.empty() && t0.find("tasks.max=2 but the topics have 1 partition(s)") != std::string::npos);
    },
    60s);
  BOOST_TEST(settled, traces.back());

  // A topic that does not exist says so.
  BOOST_REQUIRE(w.call("POST", "/connectors", file_sink_json("lost", missing, dir.path() + "/lost.txt")).status == 201);
  std::string trace;
  BOOST_TEST(eventually(
               [&] {
                 trace = task_trace(w, "lost", 0);
                 BOOST_TEST(trace.find("tasks.max") == std::string::npos, trace);
                 return trace == "idle: no partition assigned (topic " + missing + " does not exist)";
               },
               60s),
             trace);

  // Tasks that failed and wait for their automatic restart say so, never "idle":
  // their file's folder does not exist, so every start fails. (Task 1 of two on one
  // partition read "idle: ... tasks.max=2 but the topics have 1 partition(s)".)
  BOOST_REQUIRE(w.call("POST", "/connectors",
                       file_sink_json("failing", one, dir.path() + "/absent/failing.txt", R"(,"tasks.max":"2")"))
                  .status == 201);
  std::string failing;
  BOOST_TEST(eventually(
               [&] {
                 failing = task_trace(w, "failing", 1);
                 BOOST_TEST(failing.find("idle:") == std::string::npos, failing);
                 BOOST_TEST(failing.find("tasks.max") == std::string::npos, failing);
                 return failing.find("automatic restart") != std::string::npos;
               },
               30s),
             failing);
  // Gone before the stop: a SIGTERM during an automatic restart ends weir with 1.
  BOOST_TEST(w.call("DELETE", "/connectors/failing").status == 204);
  stop_cleanly(*w.process);
}

// Item 17: top's figures are true. A file source follows a file that grows for a few
// seconds, a file sink reads its topic back: the sink's consumer counts what it
// polled from Kafka (it showed "in 0.0/s" for good), and a source task's producer
// shows its task's state, also after a pause and resume left nothing new to send
// (it showed the FINISHED of the drained run while its task was RUNNING).
BOOST_AUTO_TEST_CASE(the_consumer_counts_what_it_polls_and_the_producer_shows_its_tasks_state) {
  TempDir dir{"weir-top"};
  auto topic = unique_name("top");
  create_topic(topic, 1);
  auto w = start_worker(dir);
  const std::string in = dir.path() + "/in.txt", out = dir.path() + "/out.txt";
  std::ofstream{in}.close();
  BOOST_REQUIRE(w.call("POST", "/connectors",
                       R"({"name":"lines","config":{"connector.class":"FileStreamSource","file":")" + in
                         + R"(","topic":")" + topic + R"("}})").status == 201);
  BOOST_REQUIRE(w.call("POST", "/connectors", file_sink_json("copy", topic, out)).status == 201);

  // 40 lines every 50 ms for 6 s, while the tree is read.
  constexpr size_t per_tick = 40, ticks = 120, total = per_tick * ticks;
  std::thread writer([&] {
    std::ofstream file{in, std::ios::app};
    for (size_t t = 0, n = 0; t < ticks; ++t) {
      for (size_t i = 0; i < per_tick; ++i)
        file << "line " << n++ << '\n';
      file.flush();
      std::this_thread::sleep_for(50ms);
    }
  });
  std::optional<TreeStage> consumer;
  bool flowing = eventually(
    [&] {
      consumer = tree_stage(w, "copy", "consumer");
      return consumer && consumer->records_in > 0 && consumer->in_per_sec > 0;
    },
    30s);
  writer.join();
  BOOST_TEST(flowing, "the consumer's figures while records flow: in "
                        << (consumer ? std::to_string(consumer->records_in) : "?") << ", in/s "
                        << (consumer ? std::to_string(consumer->in_per_sec) : "?"));
  auto lines_out = [&] {
    std::ifstream file{out};
    return static_cast<size_t>(std::count(std::istreambuf_iterator<char>{file}, {}, '\n'));
  };
  BOOST_REQUIRE_MESSAGE(eventually([&] { return lines_out() >= total; }, 60s),
                        "the sink wrote " << lines_out() << " of " << total << " lines");
  // Every count is what passed: the consumer polled each record once, the poller read each line once.
  BOOST_TEST(eventually([&] { consumer = tree_stage(w, "copy", "consumer"); return consumer && consumer->records_in == total; }, 10s),
             "consumer records_in " << (consumer ? consumer->records_in : 0) << " of " << total);
  BOOST_TEST(consumer->records_out == total);
  // A reader publishes its figures at most five times a second: the last may come a moment later.
  std::optional<TreeStage> poller, producer;
  BOOST_TEST(eventually([&] { poller = tree_stage(w, "lines", "poller"); return poller && poller->records_in == total; }, 10s),
             "poller records_in " << (poller ? poller->records_in : 0) << " of " << total);
  BOOST_TEST(eventually([&] { producer = tree_stage(w, "lines", "producer"); return producer && producer->records_out == total; }, 10s),
             "producer records_out " << (producer ? producer->records_out : 0) << " of " << total);
  BOOST_TEST(producer->state == producer->task_state);

  // Pause drains the task (its producer ends FINISHED); resume starts it again with
  // nothing new to read: the new producer is RUNNING, as its task is.
  BOOST_REQUIRE(w.call("PUT", "/connectors/lines/pause").status == 202);
  BOOST_REQUIRE(eventually([&] { return has(w.call("GET", "/connectors/lines/status"), R"("tasks":[{"id":0,"state":"PAUSED")"); }, 30s));
  BOOST_REQUIRE(w.call("PUT", "/connectors/lines/resume").status == 202);
  BOOST_REQUIRE(eventually([&] {
    producer = tree_stage(w, "lines", "producer");
    return producer && producer->task_state == "RUNNING";
  }, 30s));
  // Read for a while: nothing flows, so nothing else would correct a stale state.
  for (int i = 0; i < 20; ++i) {
    producer = tree_stage(w, "lines", "producer");
    BOOST_REQUIRE(producer);
    BOOST_TEST(producer->state == producer->task_state, "the producer " << producer->state << ", its task "
                                                                        << producer->task_state);
    std::this_thread::sleep_for(100ms);
  }
  stop_cleanly(*w.process);
}

BOOST_AUTO_TEST_SUITE_END()
