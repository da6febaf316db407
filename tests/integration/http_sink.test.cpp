// Asynchronous plugin sinks end to end (issue 25), against the real broker: the
// out-of-tree example examples/http-sink, built against an installed weir with
// pkg-config, POSTs batches to an HTTP server this test runs on 127.0.0.1
// (cpp-httplib, in this process), which can answer slowly, fail with 500 for a
// while, and reject chosen records with 400.
//
//  (a) 16 batches in flight and a slow server: the server never sees more than 16
//      requests at once (and does see several: the sink pipelines), and weir's RSS
//      stays bounded while most of the topic waits;
//  (b) 500 for the first seconds: weir retries the batches; every record arrives;
//  (c) 400 for some records (a rejection list in the body): those land in the
//      dead-letter topic with `__connect.errors.*` headers, read by an independent
//      consumer; every other record arrives.
#include "tests/support/sdk_install.hpp"

#include <httplib.h>

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace weir::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

/// The example, built once per run against weir installed into a temporary
/// directory: a plugin directory holding libweir-http-sink.so.
const std::string& http_sink_plugins() {
  static TempDir dir{"weir-itest-http-sink-build"};
  static std::string plugins;
  if (!plugins.empty())
    return plugins;
  auto log = dir / "commands.log";
  auto installed = install_weir(dir / "install", log);
  auto library = build_example(installed, "http-sink", dir / "example-build", "libweir-http-sink.so", log);
  fs::create_directories(dir / "plugins");
  fs::copy_file(library, dir / "plugins/libweir-http-sink.so");
  plugins = dir / "plugins";
  return plugins;
}

/// The test's HTTP server: records what arrives, answers as told.
class Server {
public:
  std::chrono::milliseconds delay{0};               ///< before each answer
  std::atomic<Clock::time_point> fail_until{Clock::time_point{}}; ///< 500 before then
  std::function<bool(size_t id)> reject = [](size_t) { return false; };

  Server() {
    // More handler threads than requests in flight, so every request the sink has
    // out is counted as in flight here (none waits in the server's own queue).
    http_.new_task_queue = [] { return new httplib::ThreadPool(40); };
    http_.Post("/ingest", [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); });
    port_ = http_.bind_to_any_port("127.0.0.1");
    // bind_to_any_port also listens: connections queue until the loop accepts them.
    thread_ = std::thread([this] { http_.listen_after_bind(); });
  }
  ~Server() {
    http_.stop();
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/ingest"; }
  int max_in_flight() const { return max_in_flight_; }
  size_t requests() const { return requests_; }
  size_t failed_requests() const { return failed_; }
  size_t unique() {
    std::lock_guard lock{sync_};
    return ids_.size();
  }
  size_t deliveries() {
    std::lock_guard lock{sync_};
    return deliveries_;
  }
  std::set<size_t> ids() {
    std::lock_guard lock{sync_};
    return ids_;
  }

private:
  void handle(const httplib::Request& req, httplib::Response& res) {
    int now = ++in_flight_;
    for (int seen = max_in_flight_; now > seen && !max_in_flight_.compare_exchange_weak(seen, now);) {
    }
    ++requests_;
    std::this_thread::sleep_for(delay);
    if (Clock::now() < fail_until.load()) {
      ++failed_;
      res.status = 500;
      res.set_content("try again", "text/plain");
      --in_flight_;
      return;
    }
    // One record per object: ..."value":{"id":I,...
    static const std::regex id_re(R"("value":\{"id":(\d+))");
    std::vector<size_t> batch;
    for (std::sregex_iterator it(req.body.begin(), req.body.end(), id_re), end; it != end; ++it)
      batch.push_back(std::stoul((*it)[1]));
    std::string rejected;
    {
      std::lock_guard lock{sync_};
      for (size_t i = 0; i < batch.size(); ++i) {
        if (reject(batch[i])) {
          rejected += (rejected.empty() ? "" : ",") + std::string(R"({"index":)") + std::to_string(i)
                      + R"(,"error":"record )" + std::to_string(batch[i]) + R"( is not welcome"})";
          continue;
        }
        ++deliveries_;
        ids_.insert(batch[i]);
      }
    }
    if (rejected.empty()) {
      res.status = 200;
    } else {
      res.status = 400;
      res.set_content(R"({"rejected":[)" + rejected + "]}", "application/json");
    }
    --in_flight_;
  }

  httplib::Server http_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> in_flight_{0}, max_in_flight_{0};
  std::atomic<size_t> requests_{0}, failed_{0};
  std::mutex sync_;
  std::set<size_t> ids_;
  size_t deliveries_ = 0;
};

std::string padded_json(size_t i, size_t pad) {
  return R"({"id":)" + std::to_string(i) + R"(,"pad":")" + std::string(pad, 'x') + R"("})";
}

/// weir standalone with the example on its plugin.path and one HttpSink connector.
struct Run {
  TempDir dir{"weir-itest-http-sink"};
  std::string name = unique_name("http");
  std::unique_ptr<ChildProcess> weir;

  Run(const std::string& topic, const std::string& url, std::map<std::string, std::string> extra) {
    auto worker = worker_config(dir / "state.db");
    worker["plugin.path"] = http_sink_plugins();
    write_properties(dir / "worker.properties", worker);
    std::map<std::string, std::string> c{{"name", name}, {"connector.class", "HttpSink"},
                                         {"topics", topic}, {"http.url", url}};
    for (auto& [k, v] : extra)
      c[k] = v;
    write_properties(dir / "connector.properties", c);
    weir = start_standalone(dir / "worker.properties", {dir / "connector.properties"}, dir / "weir.log");
  }
  ~Run() {
    if (current_test_failing())
      dir.keep();
  }
};

/// Resident set size of `pid` in KiB (VmRSS), 0 when unknown.
long rss_kib(pid_t pid) {
  auto status = read_file("/proc/" + std::to_string(pid) + "/status");
  auto at = status.find("VmRSS:");
  return at == std::string::npos ? 0 : std::stol(status.substr(at + 6));
}

} // namespace

BOOST_AUTO_TEST_SUITE(http_sink)

// (a) The credit bounds the batches out: never more than max.in.flight.batches
// requests at the server, and the memory of what waits upstream stays bounded.
BOOST_AUTO_TEST_CASE(a_slow_server_sees_at_most_the_bound_in_flight_and_memory_stays_bounded) {
  const size_t n = 20000, pad = 1500; // ~30 MB of values
  const int bound = 16;
  Server server;
  server.delay = 150ms;
  auto topic = unique_name("weir-itest-http-slow");
  create_topic(topic, 2);
  produce(topic, n, [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 2), "user-" + std::to_string(i), padded_json(i, pad)};
  });
  Run run{topic, server.url(),
          {{"max.in.flight.batches", std::to_string(bound)},
           // Small batches, so that the bound is reached long before the topic is read,
           // and a small consumer prefetch, so that what weir holds is what credit allows.
           {"consumer.override.max.poll.records", "50"},
           {"consumer.override.queued.min.messages", "1000"}}};
  auto pid = run.weir->pid();
  long first = 0, peak = 0;
  bool done = wait_until(240s, 100ms, [&] {
    if (!run.weir->running())
      return true;
    long rss = rss_kib(pid);
    if (first == 0 && server.unique() > 0)
      first = rss; // running, first batch answered
    peak = std::max(peak, rss);
    return server.unique() >= n;
  });
  BOOST_REQUIRE_MESSAGE(run.weir->running(), "weir ended: " << tail_lines(run.weir->output()));
  BOOST_TEST_MESSAGE("requests " << server.requests() << ", max in flight at the server "
                                 << server.max_in_flight() << " (bound " << bound << "); RSS at the first answer "
                                 << first / 1024 << " MiB, peak " << peak / 1024 << " MiB; data "
                                 << n * pad / (1 << 20) << " MiB");
  BOOST_TEST(done, server.unique() << " of " << n << " records arrived");
  BOOST_TEST(server.unique() == n);
  BOOST_TEST(server.max_in_flight() <= bound);
  BOOST_TEST(server.max_in_flight() > bound / 2, "the sink did not pipeline its requests");
  // The topic's values alone are ~28 MiB: holding them would show.
  BOOST_TEST(peak - first < 20 * 1024, "RSS grew by " << (peak - first) / 1024 << " MiB");
  stop_cleanly(*run.weir);
}

// (b) A server that fails for a while loses nothing: the failed batches are sent again.
BOOST_AUTO_TEST_CASE(a_server_failing_for_a_while_gets_every_record_eventually) {
  const size_t n = 5000;
  Server server;
  server.fail_until = Clock::now() + 4s;
  auto topic = unique_name("weir-itest-http-500");
  create_topic(topic, 2);
  produce(topic, n, [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 2), "user-" + std::to_string(i), padded_json(i, 10)};
  });
  Run run{topic, server.url(),
          {{"max.in.flight.batches", "8"},
           {"consumer.override.max.poll.records", "200"},
           {"errors.retry.timeout", "60000"},
           {"errors.retry.delay.max.ms", "1000"}}};
  bool done = wait_until(120s, 100ms, [&] { return !run.weir->running() || server.unique() >= n; });
  BOOST_REQUIRE_MESSAGE(run.weir->running(), "weir ended: " << tail_lines(run.weir->output()));
  BOOST_TEST_MESSAGE(server.failed_requests() << " requests answered 500; " << server.deliveries()
                                              << " records delivered, " << server.unique() << " unique");
  BOOST_TEST(done);
  BOOST_TEST(server.failed_requests() > 0u, "the server never failed: the test shows nothing");
  BOOST_TEST(server.unique() == n);
  auto ids = server.ids();
  BOOST_TEST((ids.empty() || *ids.rbegin() == n - 1));
  BOOST_TEST(task_statuses(run.dir / "state.db", run.name).front().state == "RUNNING");
  stop_cleanly(*run.weir);
}

// (c) Records the server rejects with 400 go to the dead-letter topic with Kafka
// Connect's context headers; every other record is delivered.
BOOST_AUTO_TEST_CASE(records_the_server_rejects_land_in_the_dead_letter_topic) {
  const size_t n = 3000;
  auto rejected = [](size_t i) { return i % 100 == 7; }; // 30 records
  Server server;
  server.reject = rejected;
  auto topic = unique_name("weir-itest-http-400");
  auto dlq = unique_name("weir-itest-http-dlq");
  create_topic(topic, 2);
  produce(topic, n, [&](size_t i) {
    return OutRecord{static_cast<int32_t>(i % 2), "user-" + std::to_string(i), padded_json(i, 10)};
  });
  Run run{topic, server.url(),
          {{"max.in.flight.batches", "4"},
           {"errors.tolerance", "all"},
           {"errors.deadletterqueue.topic.name", dlq},
           {"errors.deadletterqueue.topic.replication.factor", "1"},
           {"errors.deadletterqueue.context.headers.enable", "true"}}};
  const size_t good = n - n / 100;
  bool done = wait_until(120s, 100ms, [&] { return !run.weir->running() || server.unique() >= good; });
  BOOST_REQUIRE_MESSAGE(run.weir->running(), "weir ended: " << tail_lines(run.weir->output()));
  BOOST_TEST(done, server.unique() << " of " << good << " records delivered");
  auto dead = read_topic(dlq, n / 100, 60s);
  BOOST_TEST_MESSAGE(server.unique() << " records delivered; dead-letter topic: " << dead.size() << " records");
  BOOST_TEST(server.unique() == good);
  for (size_t id : server.ids())
    BOOST_TEST(!rejected(id), "rejected record " << id << " was delivered");
  BOOST_REQUIRE_EQUAL(dead.size(), n / 100);
  std::set<size_t> dead_ids;
  static const std::regex id_re(R"(^\{"id":(\d+))");
  for (const auto& r : dead) {
    std::smatch m;
    auto value = r.value.value_or("");
    if (std::regex_search(value, m, id_re))
      dead_ids.insert(std::stoul(m[1]));
    BOOST_TEST(r.header("__connect.errors.stage") == "TASK_PUT");
    BOOST_TEST(r.header("__connect.errors.class.name") == "org.weir.examples.HttpSinkConnector");
    BOOST_TEST(r.header("__connect.errors.connector.name") == run.name);
    BOOST_TEST(r.header("__connect.errors.topic") == topic);
    auto message = r.header("__connect.errors.exception.message");
    BOOST_TEST(message.find("HTTP 400: record") != std::string::npos, message);
  }
  for (size_t i = 0; i < n; ++i)
    if (rejected(i))
      BOOST_TEST(dead_ids.count(i) == 1u, "record " << i << " is not in the dead-letter topic");
  BOOST_TEST(task_statuses(run.dir / "state.db", run.name).front().state == "RUNNING");
  stop_cleanly(*run.weir);
}

BOOST_AUTO_TEST_SUITE_END()
