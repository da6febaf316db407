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
#include "actors/scheduler.hpp"
#include "actors/standalone_herder.hpp"
#include "cli/commands.hpp"
#include "cli/worker_config.hpp"
#include "runtime/config/connector_json.hpp"
#include "runtime/config/properties.hpp"
#include "runtime/metrics/metrics_registry.hpp"
#include "runtime/rest/connect_api.hpp"
#include "runtime/state/standalone_store.hpp"
#include "engine/worker/catalog.hpp"

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

/// Every connector file, checked before anything starts. Throws one ConfigError
/// listing every problem of every file, each line with its file and key (as
/// /config/validate lists them), and a connector name given twice with both files.
std::vector<runtime::ConnectorConfig> load_connector_files(const std::vector<std::string>& paths,
                                                           const std::map<std::string, std::string>& worker) {
  std::vector<runtime::ConnectorConfig> files;
  std::vector<std::string> problems;
  std::map<std::string, std::string> file_of; // connector name -> the file that named it first
  for (const auto& path : paths) {
    try {
      auto file = runtime::load_connector_file(path); // unreadable or malformed: one problem, named
      for (const auto& problem : engine::worker::connector_problems(file.config, worker))
        problems.push_back(path + ": " + problem);
      if (auto [first, fresh] = file_of.emplace(file.name, path); !fresh)
        problems.push_back(path + ": name: connector " + file.name + " is also defined in " + first->second);
      files.push_back(std::move(file));
    } catch (const ConfigError& e) {
      problems.push_back(e.what());
    }
  }
  if (problems.size() == 1)
    throw ConfigError("", problems.front());
  if (!problems.empty()) {
    std::string message = std::to_string(problems.size()) + " problems in the connector files:";
    for (const auto& p : problems)
      message += "\n  " + p;
    throw ConfigError("", message);
  }
  for (const auto& file : files)
    engine::worker::plan_connector(file.name, file.config, worker); // what validation may not cover
  return files;
}

int run_standalone(const Options& opt) {
  // First of all: a SIGTERM while weir starts ends it cleanly once it has started,
  // instead of by the signal's default action.
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);
  auto setup = load_worker(opt.worker, false);
  const auto& worker = setup.options.config;

  auto files = load_connector_files(opt.connectors, worker);

  runtime::state::StandaloneStore state{worker.at("offset.storage.file.filename")};

  // Stages publish their statistics here; it outlives the actors.
  runtime::metrics::MetricsRegistry metrics;
  caf::actor_system_config cfg;
  actors::announce_types(cfg);
  actors::tune_scheduler(cfg, std::stoul(worker.at("scheduler.threads")));
  caf::actor_system sys{cfg};

  actors::StandaloneHerder herder{sys, state, metrics, setup.options};
  auto rest = serve_rest(herder, setup.http);
  herder.set_worker_id(rest_address(setup.http, rest->port()));

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
