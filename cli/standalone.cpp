// `weir standalone WORKER.properties [CONNECTOR...]`: sink and source connectors in
// one process, the way connect-standalone runs them, with Kafka Connect's REST API
// on `listeners` to manage them. State (connector configs, status and source
// offsets) lives in the SQLite file named by offset.storage.file.filename.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"
#include "actors/worker.hpp"
#include "cli/commands.hpp"
#include "runtime/config/connector_json.hpp"
#include "runtime/config/properties.hpp"
#include "runtime/config/providers.hpp"
#include "runtime/metrics/registry.hpp"
#include "runtime/rest/connect_api.hpp"
#include "runtime/state/standalone_store.hpp"
#include "runtime/worker/catalog.hpp"

namespace weir::cli {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

std::atomic<bool> stop_requested{false};

extern "C" void on_signal(int) { stop_requested = true; }

struct Options {
  std::string worker;
  std::vector<std::string> connectors;
  bool quiet = false;
  int progress_seconds = 5;
};

const ConfigDef& worker_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("bootstrap.servers", ConfigType::List, "localhost:9092", Importance::High,
             "Kafka brokers; 'embedded' starts the in-process mock cluster (development only).");
    d.define("key.converter", ConfigType::Class, "org.apache.kafka.connect.json.JsonConverter",
             Importance::High, "Converter class for record keys.");
    d.define("value.converter", ConfigType::Class,
             "org.apache.kafka.connect.json.JsonConverter", Importance::High,
             "Converter class for record values.");
    d.define("offset.storage.file.filename", ConfigType::String, Importance::High,
             "File to store connector state (configs, status, source offsets) in: an SQLite "
             "database in weir.");
    d.define("offset.flush.interval.ms", ConfigType::Long, "10000", Importance::Low,
             "Interval at which to try committing offsets for tasks. weir commits sink "
             "offsets as soon as each batch is durable; source offsets are written to the "
             "state file this often, and at shutdown.",
             validators::range(0, std::nullopt));
    d.define("exactly.once.source.support", ConfigType::String, "disabled", Importance::High,
             "Whether to enable exactly-once support for source connectors by using "
             "transactions to write source records and their source offsets (enabled), or "
             "not (disabled). preparing is accepted and means disabled in standalone mode.",
             validators::one_of({"disabled", "preparing", "enabled"}, true));
    d.define("group.id", ConfigType::String, "connect-standalone", Importance::Medium,
             "Names this worker's cluster: exactly-once source tasks use the transactional "
             "id GROUP-CONNECTOR-TASK, as Kafka Connect does.");
    d.define("offset.storage.topic", ConfigType::String, "connect-offsets", Importance::Medium,
             "With exactly-once source support: the topic each transaction writes its "
             "source offsets to (a connector's offsets.storage.topic overrides it).");
    d.define("plugin.path", ConfigType::List, "", Importance::Low,
             "Directories with plugin shared libraries.");
    d.define("listeners", ConfigType::List, "http://127.0.0.1:8083", Importance::Low,
             "REST API listener, http://HOST:PORT (weir listens on loopback unless told "
             "otherwise; port 0 picks a free port, printed at start).");
    d.define("rest.auth.token", ConfigType::Password, "", Importance::Medium,
             "weir: a bearer token every REST request must carry (Authorization: Bearer "
             "TOKEN); take it from a file or the environment with a config provider, e.g. "
             "${env:WEIR_TOKEN}. Empty: no authentication, as in Kafka Connect.");
    d.define("task.shutdown.graceful.timeout.ms", ConfigType::Long, "5000", Importance::Low,
             "How long a stopping task may take to write and commit what it holds before "
             "its actors are ended anyway (its uncommitted records are delivered again).",
             validators::range(0, std::nullopt));
    d.define("task.restart.max.attempts", ConfigType::Int, "3", Importance::Low,
             "weir: how many times in a row a FAILED task is restarted automatically "
             "(0: never, as in Kafka Connect). A restart through the REST API resets the count.",
             validators::range(0, std::nullopt));
    d.define("task.restart.backoff.ms", ConfigType::Long, "1000", Importance::Low,
             "weir: the wait before the first automatic restart of a failed task; each next "
             "one waits twice as long.",
             validators::range(0, std::nullopt));
    d.define("task.restart.backoff.max.ms", ConfigType::Long, "60000", Importance::Low,
             "weir: the longest wait between automatic restarts.",
             validators::range(0, std::nullopt));
    return d;
  }();
  return def;
}

int run_standalone(const Options& opt) {
  auto worker = runtime::resolve_providers(runtime::load_properties_file(opt.worker)).values;
  ParseOptions worker_passthrough;
  worker_passthrough.passthrough_prefixes = {"key.converter.", "value.converter.", "consumer.",
                                             "producer.", "admin.", "config.providers"};
  auto worker_config = worker_def().parse(worker, worker_passthrough);
  for (const auto& key : worker_def().keys())
    worker.try_emplace(key.name, to_string(worker_config.get(key.name)));
  const auto& listeners = worker_config.get_list("listeners");
  if (listeners.size() != 1)
    throw ConfigError("listeners", "Invalid value for configuration listeners: weir serves one "
                                   "REST listener (got " + std::to_string(listeners.size()) + ")");
  runtime::rest::parse_listener(listeners.front()); // names `listeners` when wrong

  // Every connector file is checked before anything starts: a bad one names its key.
  std::vector<runtime::ConnectorConfig> files;
  for (const auto& path : opt.connectors) {
    files.push_back(runtime::load_connector_file(path));
    runtime::worker::plan_connector(files.back().name, files.back().config, worker);
  }

  runtime::state::StandaloneStore state{worker_config.get_string("offset.storage.file.filename")};
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);

  // Stages publish their statistics here; it outlives the actors.
  runtime::metrics::MetricsRegistry metrics;
  caf::actor_system_config cfg;
  actors::announce_types(cfg);
  caf::actor_system sys{cfg};

  runtime::rest::HttpServerOptions http;
  http.listener = listeners.front();
  http.bearer_token = worker_config.get_password("rest.auth.token").value();
  actors::WorkerOptions options;
  options.config = worker;
  options.graceful_timeout =
    std::chrono::milliseconds{worker_config.get_long("task.shutdown.graceful.timeout.ms")};
  options.restart_max_attempts = worker_config.get_int("task.restart.max.attempts");
  options.restart_backoff = std::chrono::milliseconds{worker_config.get_long("task.restart.backoff.ms")};
  options.restart_backoff_max =
    std::chrono::milliseconds{worker_config.get_long("task.restart.backoff.max.ms")};
  auto listener = runtime::rest::parse_listener(http.listener);
  options.worker_id = (listener.host.empty() ? std::string{"0.0.0.0"} : listener.host) + ":"
                      + std::to_string(listener.port);
  actors::Worker herder{sys, state, metrics, options};
  std::optional<runtime::rest::ConnectRestServer> rest;
  try {
    rest.emplace(herder, http);
  } catch (const std::system_error& e) {
    throw ConfigError("listeners", "cannot listen on " + http.listener + ": " + e.what());
  }
  spdlog::info("REST API on http://{}:{}", listener.host.empty() ? "0.0.0.0" : listener.host,
               rest->port());

  const auto forever = runtime::rest::Deadline::max();
  for (auto& file : files)
    herder.put_connector_config(file.name, file.config, std::nullopt, false, forever);
  herder.mark_ready();

  auto last = Clock::now();
  while (!stop_requested) {
    std::this_thread::sleep_for(100ms);
    herder.tick();
    auto now = Clock::now();
    if (now - last >= std::chrono::seconds{opt.progress_seconds}) {
      double interval = std::chrono::duration<double>(now - last).count();
      last = now;
      for (const auto& line : herder.progress(interval))
        if (!opt.quiet)
          std::printf("%s\n", line.c_str());
      std::fflush(stdout);
    }
  }

  // Clean shutdown: the REST API stops taking requests, sources stop reading,
  // in-flight batches drain into the sinks, the sinks' durable offsets are
  // committed, then everything exits.
  spdlog::info("stopping: draining in-flight batches and committing offsets");
  rest.reset();
  auto late = herder.shutdown(30s);
  if (late > 0) {
    std::fprintf(stderr, "weir standalone: %zu task(s) did not drain within 30 s\n", late);
    return 1;
  }
  spdlog::info("stopped cleanly");
  return 0;
}

} // namespace

Runner add_standalone(CLI::App& app) {
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
    "standalone",
    "Run connectors in one process: WORKER.properties [CONNECTOR.properties|.json...]; more "
    "are created through the REST API");
  sub->add_option("worker", opt->worker, "Worker properties file")->required()->check(CLI::ExistingFile);
  sub->add_option("connectors", opt->connectors, "Connector configs (.properties or .json)")
    ->check(CLI::ExistingFile);
  sub->add_flag("--quiet", opt->quiet, "No progress lines");
  sub->add_option("--progress-interval", opt->progress_seconds, "Seconds between progress lines")
    ->capture_default_str();
  return [opt] { return run_standalone(*opt); };
}

} // namespace weir::cli
