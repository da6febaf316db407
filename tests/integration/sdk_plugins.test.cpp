// The plugin SDK end to end (issue 9, "What it must show"), against the real broker:
//
//  1. weir is installed (`meson install --destdir`) into a temporary directory, the
//     out-of-tree example examples/jsonl-sink is built against that installation
//     with pkg-config only, and the installed weir runs it in a pipeline: every
//     record produced arrives in the plugin's rotated JSON-lines files;
//  2. a plugin built against another SDK version is refused at start-up, naming both
//     versions and the file; weir exits 1 before anything runs;
//  3. a plugin that throws inside put() fails its own task only: FAILED with the
//     reason in the state file, nothing past the failure committed, while another
//     connector of the same plugin and a built-in one in the same process deliver
//     every record; a non-standard exception (an int) is reported the same way, and
//     so is a throwing open() (that task fails to start). The
//     status is read from the state file and from the REST API.
// And the SDK's record-error reporting: records a plugin rejects reach the
// dead-letter topic with Kafka Connect's context headers. For sources (issue 25):
// examples/source-plugin built the same way resumes from its committed offsets
// after kill -9, and a source plugin of another SDK version is refused at start.
#include "tests/support/sdk_install.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace weir::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {




std::string user_key(size_t i) { return "user-" + std::to_string(i); }
std::string user_json(size_t i) {
  return R"({"id":)" + std::to_string(i) + R"(,"name":"user-)" + std::to_string(i) + R"("})";
}

/// DIR/plugins holding a copy of the test plugin `env` names (as `file`); returns it.
std::string plugin_dir(const TempDir& dir, const char* env, const std::string& file) {
  auto plugins = dir / "plugins";
  fs::create_directories(plugins);
  fs::copy_file(env_path(env), plugins + "/" + file);
  return plugins;
}







/// What the JSON-lines files of the example hold.
struct JsonLines {
  std::vector<uint32_t> count;        ///< per id
  std::set<std::pair<int32_t, int64_t>> positions; ///< (partition, offset) seen
  size_t lines = 0, files = 0, max_lines_per_file = 0, malformed = 0;
  std::string first_malformed;
  size_t missing() const { return static_cast<size_t>(std::count(count.begin(), count.end(), 0u)); }
};

JsonLines scan_jsonl(const fs::path& dir, const std::string& topic, size_t n) {
  JsonLines s;
  s.count.assign(n, 0);
  // {"topic":"T","partition":P,"offset":O,"timestamp":TS,"key":"user-I","value":{"id":I,"name":"user-I"}}
  std::regex line_re(R"re(^\{"topic":"([^"]*)","partition":(\d+),"offset":(\d+),"timestamp":(-?\d+),"key":"user-(\d+)","value":\{"id":(\d+),"name":"user-(\d+)"\}\}$)re");
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".jsonl")
      continue;
    ++s.files;
    auto text = read_file(e.path());
    size_t in_file = 0;
    std::string_view rest = text;
    while (!rest.empty()) {
      auto nl = rest.find('\n');
      if (nl == std::string_view::npos)
        break; // being written
      std::string line{rest.substr(0, nl)};
      rest.remove_prefix(nl + 1);
      ++s.lines;
      ++in_file;
      std::smatch m;
      bool ok = std::regex_match(line, m, line_re) && m[1] == topic && m[5] == m[6] && m[6] == m[7];
      size_t id = ok ? std::stoul(m[6]) : n;
      if (!ok || id >= n) {
        if (s.malformed++ == 0)
          s.first_malformed = line;
        continue;
      }
      ++s.count[id];
      s.positions.insert({std::stoi(m[2]), std::stoll(m[3])});
    }
    s.max_lines_per_file = std::max(s.max_lines_per_file, in_file);
  }
  return s;
}


/// The committed source offsets of `connector` in the standalone state file:
/// partition JSON -> offset JSON.
std::map<std::string, std::string> stored_offsets(const std::string& state_db, const std::string& connector) {
  std::map<std::string, std::string> out;
  if (!fs::exists(state_db))
    return out;
  Sqlite db{state_db};
  std::vector<std::vector<std::string>> rows;
  db.try_query("SELECT partition, offset FROM source_offsets WHERE connector = '" + connector + "'", rows);
  for (const auto& row : rows)
    out[row.at(0)] = row.at(1);
  return out;
}

/// The `n` of a SequenceSource offset ({"n":N}); 0 when there is none.
int64_t offset_n(const std::map<std::string, std::string>& offsets, const std::string& stream) {
  auto it = offsets.find(R"({"stream":")" + stream + R"("})");
  if (it == offsets.end())
    return 0;
  static const std::regex n_re(R"(^\{"n":([0-9]+)\}$)");
  std::smatch m;
  BOOST_REQUIRE_MESSAGE(std::regex_match(it->second, m, n_re), "stored offset " << it->second);
  return std::stoll(m[1]);
}

} // namespace

BOOST_AUTO_TEST_SUITE(sdk_plugins)

// Must-show 1: install, build the example out of tree, run it against the broker.
BOOST_AUTO_TEST_CASE(the_example_built_against_an_installed_weir_receives_every_record) {
  const size_t n = 5000;
  const int rotate = 400;
  TempDir dir{"weir-itest-sdk"};
  auto keep_on_failure = [&] {
    if (current_test_failing())
      dir.keep();
  };
  auto log = dir / "commands.log";
  std::string installed;
  {
    // The installation is removed even when the test fails (it is large and the
    // logs say what happened).
    TempDir root{"weir-itest-sdk-install"};
    installed = root.path();
    auto weir_install = install_weir(root.path(), log);
    const auto& bin = weir_install.bin;
    BOOST_TEST_MESSAGE("installed: " << bin << ", " << weir_install.pkgconfig_dir);

    // pkg-config resolves into the temporary installation (weir.pc is relocatable).
    auto pkg_log = dir / "pkg-config.out";
    run({"pkg-config", "--cflags", "--libs", "weir"}, {"PKG_CONFIG_PATH=" + weir_install.pkgconfig_dir},
        pkg_log, 30s);
    auto flags = read_file(pkg_log);
    BOOST_TEST_MESSAGE("pkg-config weir: " << flags);
    BOOST_TEST(flags.find("-I" + root.path()) != std::string::npos, flags);
    BOOST_TEST(flags.find("-lweir_sdk") != std::string::npos, flags);

    // The example, out of tree: it sees weir only through pkg-config.
    auto library = build_example(weir_install, "jsonl-sink", dir / "example-build", "libweir-jsonl-sink.so", log);
    auto plugins = dir / "plugins";
    fs::create_directories(plugins + "/jsonl-sink");
    fs::copy_file(library,
                  plugins + "/jsonl-sink/libweir-jsonl-sink.so");

    auto topic = unique_name("weir-itest-sdk");
    create_topic(topic, 3);
    produce(topic, n, [&](size_t i) {
      return OutRecord{static_cast<int32_t>(i % 3), user_key(i), user_json(i)};
    });
    auto out = dir / "out";
    auto worker = write_worker(dir, plugins);
    auto name = unique_name("jsonl");
    auto connector = write_connector(dir, name, {{"connector.class", "JsonLinesSink"},
                                                 {"tasks.max", "2"},
                                                 {"topics", topic},
                                                 {"directory", out},
                                                 {"rotate.max.records", std::to_string(rotate)}});
    auto weir = start_weir(bin, worker, {connector}, dir / "weir.log");
    auto t0 = Clock::now();
    // Listed like a built-in, with its version (Kafka Connect's JSON shape).
    auto listed = http_get(rest_port(*weir), "/connector-plugins");
    BOOST_TEST(listed.find(R"({"class":"org.weir.examples.JsonLinesSinkConnector","type":"sink",)"
                           R"("version":"1.0.0"})")
                 != std::string::npos,
               listed);
    JsonLines scan;
    bool complete = wait_until(120s, 500ms, [&] {
      if (!weir->running())
        return true;
      scan = scan_jsonl(out, topic, n);
      return scan.missing() == 0;
    });
    BOOST_REQUIRE_MESSAGE(weir->running(), "weir ended early: "
                                             << (weir->status() ? weir->status()->describe() : "")
                                             << "\n" << tail_lines(weir->output()));
    BOOST_TEST_MESSAGE("after " << seconds_since(t0) << " s: " << scan.lines << " lines in "
                                << scan.files << " files, " << n - scan.missing() << " of " << n
                                << " records, " << scan.malformed << " malformed");
    BOOST_TEST(complete);
    BOOST_TEST(scan.missing() == 0u, scan.missing() << " of " << n << " records missing");
    BOOST_TEST(scan.malformed == 0u, "malformed line: " << scan.first_malformed);
    BOOST_TEST(scan.positions.size() == n, "distinct (partition, offset): " << scan.positions.size());
    BOOST_TEST(scan.lines == n, "duplicates: " << scan.lines - scan.positions.size());
    // Rotation: no file above the limit, so at least n / rotate files.
    BOOST_TEST(scan.max_lines_per_file <= static_cast<size_t>(rotate));
    BOOST_TEST(scan.files >= n / rotate);

    // The installed weir runs on the installed SDK library, and loaded the plugin.
    auto lib = mapped(weir->pid(), "libweir_sdk.so");
    BOOST_TEST_MESSAGE("libweir_sdk mapped from " << lib);
    BOOST_TEST(lib.rfind(root.path(), 0) == 0, "the installed weir uses " << lib);
    BOOST_TEST(!mapped(weir->pid(), "libweir-jsonl-sink.so").empty());
    auto output = weir->output();
    BOOST_TEST(output.find("loaded sink connector plugin org.weir.examples.JsonLinesSinkConnector "
                           "version 1.0.0")
                 != std::string::npos,
               tail_lines(output));
    stop_cleanly(*weir);
    keep_on_failure();
  }
  BOOST_TEST(!fs::exists(installed), "the temporary installation " << installed << " is left");
}

// Must-show 2: another SDK version is refused with both versions named, at start-up.
BOOST_AUTO_TEST_CASE(a_plugin_for_another_sdk_version_stops_weir_at_start_naming_both) {
  TempDir dir{"weir-itest-sdk-version"};
  auto plugins = plugin_dir(dir, "WEIR_FUTURE_SDK_SINK", "libfuture.so");
  auto plugin = plugins + "/libfuture.so";
  auto worker = write_worker(dir, plugins);
  auto connector = write_connector(dir, "file", {{"connector.class", "FileStreamSink"},
                                                 {"topics", "unused"},
                                                 {"file", dir / "out.txt"}});
  auto weir = start_weir(weir_binary(), worker, {connector}, dir / "weir.log");
  auto status = weir->wait(30s);
  BOOST_REQUIRE_MESSAGE(status.has_value(), "weir still runs with a refused plugin:\n"
                                              << tail_lines(weir->output()));
  auto output = weir->output();
  BOOST_TEST_MESSAGE(status->describe() << ": " << output);
  BOOST_TEST(status->exited);
  BOOST_TEST(status->code == 1);
  BOOST_TEST(output.find(plugin) != std::string::npos, output);
  auto theirs = "built against weir SDK version " + std::to_string(WEIR_SDK_VERSION + 1);
  auto ours = "this weir provides SDK version " + std::to_string(WEIR_SDK_VERSION);
  BOOST_TEST(output.find(theirs) != std::string::npos, output);
  BOOST_TEST(output.find(ours) != std::string::npos, output);
  BOOST_TEST(!fs::exists(dir / "out.txt"), "a connector started");
  if (current_test_failing())
    dir.keep();
}

// Must-show 3: a throwing put() fails its own task, and nothing else.
BOOST_AUTO_TEST_CASE(a_throwing_put_fails_its_own_task_and_nothing_else) {
  const size_t n = 3000, poison = 1200;
  TempDir dir{"weir-itest-sdk-fail"};
  auto plugins = plugin_dir(dir, "WEIR_THROWING_SINK", "libthrowing.so");

  // One partition each, so "nothing past the failure" is an offset comparison.
  auto bad_topic = unique_name("weir-itest-sdk-bad");
  auto odd_topic = unique_name("weir-itest-sdk-odd");
  auto good_topic = unique_name("weir-itest-sdk-good");
  for (const auto& t : {bad_topic, odd_topic, good_topic})
    create_topic(t, 1);
  auto make = [&](bool poisoned) {
    return [=](size_t i) {
      return OutRecord{0, user_key(i), poisoned && i == poison ? std::string{R"("poison")"} : user_json(i)};
    };
  };
  produce(bad_topic, n, make(true));
  produce(odd_topic, n, make(true));
  produce(good_topic, n, make(false));

  auto worker_props = worker_config(dir / "state.db");
  worker_props["plugin.path"] = plugins;
  // No automatic restart (Kafka Connect's behaviour): the status stays FAILED for the
  // checks instead of cycling through restarts that fail the same way.
  worker_props["task.restart.max.attempts"] = "0";
  auto worker = dir / "worker.properties";
  write_properties(worker, worker_props);
  auto bad = unique_name("bad"), odd = unique_name("odd"), good = unique_name("good"),
       builtin = unique_name("builtin"), unopened = unique_name("unopened");
  std::vector<std::string> connectors{
    write_connector(dir, bad, {{"connector.class", "ThrowingSink"}, {"topics", bad_topic},
                               {"file", dir / "bad.txt"}}),
    write_connector(dir, odd, {{"connector.class", "org.weir.test.ThrowingSinkConnector"},
                               {"topics", odd_topic}, {"file", dir / "odd.txt"},
                               {"throw.kind", "other"}}),
    write_connector(dir, good, {{"connector.class", "ThrowingSink"}, {"topics", good_topic},
                                {"file", dir / "good.txt"}}),
    write_connector(dir, builtin, {{"connector.class", "FileStreamSink"}, {"topics", good_topic},
                                   {"file", dir / "builtin.txt"}}),
    // open() throws (its file's directory does not exist): that task fails to start.
    write_connector(dir, unopened, {{"connector.class", "ThrowingSink"}, {"topics", good_topic},
                                    {"file", dir / "no-such-dir/out.txt"}}),
  };
  auto weir = start_weir(weir_binary(), worker, connectors, dir / "weir.log");
  auto state = dir / "state.db";
  auto lines = [&](const std::string& f) { return count_lines(dir / f); };
  auto status_of = [&](const std::string& name) {
    auto s = task_statuses(state, name);
    return s.empty() ? TaskStatus{} : s.front();
  };
  bool settled = wait_until(120s, 500ms, [&] {
    return !weir->running()
           || (status_of(bad).state == "FAILED" && status_of(odd).state == "FAILED"
               && lines("good.txt") >= n && lines("builtin.txt") >= n);
  });
  BOOST_REQUIRE_MESSAGE(weir->running(), "weir ended: "
                                           << (weir->status() ? weir->status()->describe() : "")
                                           << "\n" << tail_lines(weir->output()));
  auto s_bad = status_of(bad), s_odd = status_of(odd), s_good = status_of(good),
       s_builtin = status_of(builtin);
  BOOST_TEST_MESSAGE("status: bad " << s_bad.state << " (" << s_bad.trace << "); odd "
                                    << s_odd.state << " (" << s_odd.trace << "); good "
                                    << s_good.state << "; builtin " << s_builtin.state
                                    << "; lines bad " << lines("bad.txt") << ", odd "
                                    << lines("odd.txt") << ", good " << lines("good.txt")
                                    << ", builtin " << lines("builtin.txt"));
  BOOST_TEST(settled);
  BOOST_TEST(s_bad.state == "FAILED");
  BOOST_TEST(s_bad.trace.find("refuses offset " + std::to_string(poison)) != std::string::npos,
             s_bad.trace);
  BOOST_TEST(s_odd.state == "FAILED");
  BOOST_TEST(s_odd.trace.find("non-standard exception from put()") != std::string::npos, s_odd.trace);
  // The REST API reports the same.
  auto port = rest_port(*weir);
  auto bad_status = http_get(port, "/connectors/" + bad + "/status");
  BOOST_TEST(bad_status.find(R"("state":"FAILED")") != std::string::npos, bad_status);
  BOOST_TEST(bad_status.find("refuses offset " + std::to_string(poison)) != std::string::npos,
             bad_status);
  auto good_status = http_get(port, "/connectors/" + good + "/status");
  BOOST_TEST(good_status.find("FAILED") == std::string::npos, good_status);
  auto s_unopened = status_of(unopened);
  BOOST_TEST(s_unopened.state == "FAILED");
  BOOST_TEST(s_unopened.trace.find("ThrowingSink: cannot open") != std::string::npos,
             s_unopened.trace);
  BOOST_TEST(s_good.state == "RUNNING", s_good.trace);
  BOOST_TEST(s_builtin.state == "RUNNING", s_builtin.trace);
  BOOST_TEST(lines("good.txt") == n);
  BOOST_TEST(lines("builtin.txt") == n);
  // Nothing at or past the poison record was written for the failed tasks.
  BOOST_TEST(lines("bad.txt") <= poison);
  BOOST_TEST(lines("odd.txt") <= poison);

  // The process still runs and stops cleanly (committing what was written).
  BOOST_TEST(weir->running());
  stop_cleanly(*weir);
  auto committed = committed_offsets("connect-" + bad, bad_topic, 1);
  BOOST_TEST_MESSAGE("committed offsets: bad " << committed[0] << ", good "
                                               << committed_offsets("connect-" + good, good_topic, 1)[0]);
  BOOST_TEST(committed[0] <= static_cast<int64_t>(poison), "committed past the failure");
  BOOST_TEST(committed_offsets("connect-" + good, good_topic, 1)[0] == static_cast<int64_t>(n));
  if (current_test_failing())
    dir.keep();
}

// The SDK's record-error reporting: records a plugin rejects with SinkBatch::fail go
// to the dead-letter topic with Kafka Connect's context headers (stage TASK_PUT, the
// plugin's class, its reason) under errors.tolerance=all; every other record is written.
BOOST_AUTO_TEST_CASE(records_a_plugin_rejects_go_to_the_dead_letter_topic) {
  const size_t n = 2000;
  auto rejected = [](size_t i) { return i % 100 == 7; }; // 20 records
  TempDir dir{"weir-itest-sdk-dlq"};
  auto plugins = plugin_dir(dir, "WEIR_THROWING_SINK", "libthrowing.so");
  auto topic = unique_name("weir-itest-sdk-rejects");
  auto dlq = unique_name("weir-itest-sdk-dlq");
  create_topic(topic, 2);
  produce(topic, n, [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 2), user_key(i),
                     rejected(i) ? R"("reject )" + std::to_string(i) + R"(")" : user_json(i)};
  });
  auto name = unique_name("rejects");
  auto connector = write_connector(dir, name, {{"connector.class", "ThrowingSink"},
                                               {"topics", topic},
                                               {"file", dir / "out.txt"},
                                               {"errors.tolerance", "all"},
                                               {"errors.deadletterqueue.topic.name", dlq},
                                               {"errors.deadletterqueue.topic.replication.factor", "1"},
                                               {"errors.deadletterqueue.context.headers.enable", "true"}});
  auto weir = start_weir(weir_binary(), write_worker(dir, plugins), {connector}, dir / "weir.log");
  const size_t good = n - n / 100;
  auto lines = [&] { return count_lines(dir / "out.txt"); };
  bool written = wait_until(120s, 500ms, [&] { return !weir->running() || lines() >= good; });
  BOOST_REQUIRE_MESSAGE(weir->running(), "weir ended: " << tail_lines(weir->output()));
  BOOST_TEST(written, lines() << " of " << good << " records written");
  auto dead = read_topic(dlq, n / 100, 60s);
  BOOST_TEST_MESSAGE("file: " << lines() << " lines; dead-letter topic: " << dead.size() << " records");
  BOOST_TEST(lines() == good);
  BOOST_TEST(read_file(dir / "out.txt").find("reject") == std::string::npos);
  BOOST_REQUIRE_EQUAL(dead.size(), n / 100);
  std::set<std::string> values;
  for (const auto& r : dead) {
    values.insert(r.value.value_or("<null>"));
    BOOST_TEST(r.header("__connect.errors.stage") == "TASK_PUT");
    BOOST_TEST(r.header("__connect.errors.class.name") == "org.weir.test.ThrowingSinkConnector");
    BOOST_TEST(r.header("__connect.errors.connector.name") == name);
    auto message = r.header("__connect.errors.exception.message");
    BOOST_TEST(message.find("rejected by ThrowingSink") != std::string::npos, message);
  }
  for (size_t i = 0; i < n; ++i)
    if (rejected(i))
      BOOST_TEST(values.count(R"("reject )" + std::to_string(i) + R"(")") == 1u, "record " << i);
  BOOST_TEST(task_statuses(dir / "state.db", name).front().state == "RUNNING");
  stop_cleanly(*weir);
  if (current_test_failing())
    dir.keep();
}

// The source kind end to end: examples/source-plugin, built out of tree against an
// installed weir, counts two streams into a real topic; weir is killed with SIGKILL
// mid-stream and started again. Each stream then resumes after the offset weir had
// committed (the standalone state file) when it died: the topic holds every number
// 1..N of each stream with no gap, and a number appears twice only if it is after
// that committed offset (at-least-once: what was polled after the last commit is
// polled again).
BOOST_AUTO_TEST_CASE(the_source_example_resumes_from_its_committed_offsets_after_kill_9) {
  const int64_t n = 5000;
  TempDir dir{"weir-itest-sdk-source"};
  TempDir root{"weir-itest-sdk-source-install"};
  auto installed = install_weir(root.path(), dir / "commands.log");
  auto library = build_example(installed, "source-plugin", dir / "example-build", "libweir-sequence-source.so",
                               dir / "commands.log");
  auto plugins = dir / "plugins";
  fs::create_directories(plugins + "/sequence");
  fs::copy_file(library, plugins + "/sequence/libweir-sequence-source.so");

  auto topic = unique_name("weir-itest-sdk-seq");
  create_topic(topic, 1);
  auto state = dir / "state.db";
  auto worker_props = worker_config(state);
  worker_props["plugin.path"] = plugins;
  worker_props["offset.flush.interval.ms"] = "200";
  auto worker = dir / "worker.properties";
  write_properties(worker, worker_props);
  auto name = unique_name("sequence");
  // ~1000 records/s per stream: the first run is killed well before the end.
  auto connector = write_connector(dir, name, {{"connector.class", "SequenceSource"},
                                               {"tasks.max", "2"},
                                               {"topic", topic},
                                               {"streams", "a,b"},
                                               {"max.n", std::to_string(n)},
                                               {"batch.size", "20"},
                                               {"poll.interval.ms", "20"},
                                               {"value.converter", "org.apache.kafka.connect.json.JsonConverter"},
                                               {"value.converter.schemas.enable", "true"}});
  auto weir = start_weir(installed.bin, worker, {connector}, dir / "weir.log");
  auto port = rest_port(*weir);
  // Listed like a built-in source, with the plugin's version (Kafka Connect's shape).
  auto listed = http_get(port, "/connector-plugins");
  BOOST_TEST(listed.find(R"({"class":"org.weir.examples.SequenceSourceConnector","type":"source",)"
                         R"("version":"1.0.0"})")
               != std::string::npos,
             listed);
  // A bad value of one of its own keys is reported on that key.
  weir::runtime::rest::test::TestClient client{port};
  auto validated = client.request("PUT", "/connector-plugins/SequenceSource/config/validate",
                                  R"({"connector.class":"SequenceSource","name":"v","topic":"t","max.n":"-3"})");
  BOOST_TEST_MESSAGE("validate -> " << validated.status << " " << validated.body);
  BOOST_TEST(validated.status == 200);
  BOOST_TEST(validated.body.find(R"("error_count":1)") != std::string::npos, validated.body);
  BOOST_TEST(validated.body.find("Invalid value -3 for configuration max.n") != std::string::npos, validated.body);

  int64_t killed_a = 0, killed_b = 0;
  kill_9_when(*weir, 60s, [&] {
    auto stored = stored_offsets(state, name);
    return offset_n(stored, "a") >= 1000 && offset_n(stored, "b") >= 1000;
  }, "1000 committed records per stream");
  {
    auto stored = stored_offsets(state, name);
    killed_a = offset_n(stored, "a");
    killed_b = offset_n(stored, "b");
  }
  BOOST_TEST_MESSAGE("killed with committed offsets a=" << killed_a << " b=" << killed_b);
  BOOST_TEST(killed_a < n);
  BOOST_TEST(killed_b < n);

  weir = start_weir(installed.bin, worker, {connector}, dir / "weir-2.log");
  bool finished = wait_until(90s, 200ms, [&] {
    auto stored = stored_offsets(state, name);
    return !weir->running() || (offset_n(stored, "a") == n && offset_n(stored, "b") == n);
  });
  BOOST_REQUIRE_MESSAGE(weir->running(), "weir ended: " << tail_lines(weir->output()));
  BOOST_TEST(finished, "the streams did not reach " << n << " after the restart");
  BOOST_TEST(weir->output().find("loaded source connector plugin org.weir.examples.SequenceSourceConnector "
                                 "version 1.0.0")
               != std::string::npos);
  stop_cleanly(*weir);

  // An independent consumer reads what the broker holds.
  auto records = read_topic(topic, static_cast<size_t>(2 * n), 60s);
  static const std::regex value_re(
    R"re(^\{"schema":\{.*"name":"org\.weir\.examples\.Sequence".*\},"payload":\{"stream":"([ab])","n":([0-9]+)\}\}$)re");
  std::map<std::string, std::vector<int64_t>> seen; // per stream, in topic order
  size_t malformed = 0;
  for (const auto& r : records) {
    std::smatch m;
    if (!r.value || !std::regex_match(*r.value, m, value_re) || r.key != std::optional<std::string>{m[1].str()}) {
      if (malformed++ == 0)
        BOOST_TEST_MESSAGE("malformed: key " << r.key.value_or("<null>") << " value " << r.value.value_or("<null>"));
      continue;
    }
    seen[m[1]].push_back(std::stoll(m[2]));
  }
  BOOST_TEST(malformed == 0u);
  for (auto [stream, committed] : {std::pair{"a", killed_a}, std::pair{"b", killed_b}}) {
    const auto& ns = seen[stream];
    std::vector<int64_t> count(static_cast<size_t>(n) + 1, 0);
    size_t gaps = 0, early_duplicates = 0;
    int64_t restart_at = 0;
    for (size_t i = 0; i < ns.size(); ++i) {
      BOOST_REQUIRE(ns[i] >= 1 && ns[i] <= n);
      ++count[static_cast<size_t>(ns[i])];
      if (i > 0 && ns[i] != ns[i - 1] + 1)
        restart_at = ns[i]; // the second run's first number
    }
    for (int64_t k = 1; k <= n; ++k) {
      gaps += count[static_cast<size_t>(k)] == 0;
      early_duplicates += count[static_cast<size_t>(k)] > 1 && k <= committed;
    }
    BOOST_TEST_MESSAGE("stream " << stream << ": " << ns.size() << " records, killed at committed " << committed
                                 << ", second run started at " << restart_at);
    BOOST_TEST(gaps == 0u, "stream " << stream << ": " << gaps << " numbers missing");
    BOOST_TEST(early_duplicates == 0u, "stream " << stream << ": numbers up to the committed offset repeated");
    // The restart continued right after the committed offset (not from 1, not later).
    if (restart_at != 0)
      BOOST_TEST(restart_at == committed + 1, "stream " << stream);
    BOOST_TEST(ns.size() <= static_cast<size_t>(n) + 1000u, "more duplicates than one poll backlog");
  }
  if (current_test_failing())
    dir.keep();
}

// The version check holds for a source plugin too: refused at start, both versions named.
BOOST_AUTO_TEST_CASE(a_source_plugin_for_another_sdk_version_stops_weir_at_start_naming_both) {
  TempDir dir{"weir-itest-sdk-source-version"};
  auto plugins = plugin_dir(dir, "WEIR_FUTURE_SDK_SOURCE", "libfuture-source.so");
  auto worker = write_worker(dir, plugins);
  auto connector = write_connector(dir, "file", {{"connector.class", "FileStreamSink"},
                                                 {"topics", "unused"},
                                                 {"file", dir / "out.txt"}});
  auto weir = start_weir(weir_binary(), worker, {connector}, dir / "weir.log");
  auto status = weir->wait(30s);
  BOOST_REQUIRE_MESSAGE(status.has_value(), "weir still runs with a refused plugin:\n" << tail_lines(weir->output()));
  auto output = weir->output();
  BOOST_TEST(status->exited);
  BOOST_TEST(status->code == 1);
  BOOST_TEST(output.find(plugins + "/libfuture-source.so") != std::string::npos, output);
  BOOST_TEST(output.find("built against weir SDK version " + std::to_string(WEIR_SDK_VERSION + 1)) != std::string::npos,
             output);
  BOOST_TEST(output.find("this weir provides SDK version " + std::to_string(WEIR_SDK_VERSION)) != std::string::npos,
             output);
  // Its registration (a name clash with a built-in) never ran.
  BOOST_TEST(output.find("already") == std::string::npos, output);
  BOOST_TEST(!fs::exists(dir / "out.txt"), "a connector started");
  if (current_test_failing())
    dir.keep();
}

BOOST_AUTO_TEST_SUITE_END()
