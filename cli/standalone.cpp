// `weir standalone WORKER.properties CONNECTOR...`: connectors in one process, the
// way connect-standalone runs them. State (connector configs and status) lives in
// the SQLite file named by offset.storage.file.filename.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/after.hpp>
#include <caf/scoped_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"
#include "actors/sink_task.hpp"
#include "cli/commands.hpp"
#include "connectors/registry.hpp"
#include "runtime/config/connector_json.hpp"
#include "runtime/config/properties.hpp"
#include "runtime/config/providers.hpp"
#include "runtime/kafka/admin.hpp"
#include "runtime/pipeline/connector_config.hpp"
#include "runtime/state/standalone_store.hpp"

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
             "offsets as soon as each batch is durable; this bounds source offset flushes.",
             validators::range(0, std::nullopt));
    d.define("plugin.path", ConfigType::List, "", Importance::Low,
             "Directories with plugin shared libraries.");
    d.define("listeners", ConfigType::List, "http://127.0.0.1:8083", Importance::Low,
             "REST API listeners.");
    return d;
  }();
  return def;
}

struct Connector {
  std::string name;
  std::map<std::string, std::string> config;
  const connectors::SinkPlugin* plugin = nullptr;
  int tasks_max = 1;
  std::vector<actors::SinkTask> tasks;
  std::vector<actors::StageStats> source_stats, sink_stats;
  uint64_t last_written = 0;
  int32_t partitions = -1; ///< of its topics, when known at start (not for topics.regex)
};

/// Loads, resolves and validates one connector file; every problem names its key.
Connector load_connector(const std::string& path) {
  auto loaded = runtime::load_connector_file(path);
  auto resolved = runtime::resolve_providers(loaded.config);
  Connector c;
  c.name = loaded.name;
  c.config = resolved.values;
  auto cls = c.config.count("connector.class") ? c.config.at("connector.class") : "";
  c.plugin = connectors::find_sink(cls);
  if (!c.plugin)
    throw ConfigError("connector.class",
                      cls.empty() ? "Missing required configuration \"connector.class\" which "
                                    "has no default value."
                                  : "Invalid value " + cls
                                      + " for configuration connector.class: no sink connector "
                                        "of that class or alias is available");
  auto settings = runtime::pipeline::parse_sink_settings(c.config, c.plugin->definition());
  for (const auto& issue : c.plugin->validate(c.config))
    throw ConfigError(issue.name, issue.errors.front());
  c.tasks_max = settings.tasks_max;
  return c;
}

/// The seed lesson's partition bottleneck, said up front: a sink cannot use more
/// tasks than its topics have partitions.
void warn_about_idle_tasks(Connector& c, const std::map<std::string, std::string>& worker) {
  auto topics = runtime::pipeline::parse_sink_settings(c.config, c.plugin->definition()).topics;
  if (topics.size() == 1 && topics[0].starts_with("^"))
    return;
  int32_t partitions = 0;
  for (const auto& t : topics) {
    auto n = runtime::kafka::partition_count({{"bootstrap.servers", worker.at("bootstrap.servers")}},
                                             t, 5s);
    if (!n)
      return; // not created yet: nothing to say
    partitions += *n;
  }
  c.partitions = partitions;
  if (c.tasks_max > partitions)
    spdlog::warn("connector {}: tasks.max={} but its topics have {} partition(s): {} task(s) "
                 "will be idle. Set tasks.max <= {}.",
                 c.name, c.tasks_max, partitions, c.tasks_max - partitions, partitions);
}

actors::StageStats ask(caf::scoped_actor& self, const caf::actor& who) {
  actors::StageStats s;
  self->request(who, 2s, actors::stats_atom::value)
    .receive([&](const actors::StageStats& x) { s = x; },
             [&](const caf::error&) { s.state = "STOPPED"; });
  return s;
}

/// Polls every task's stages, records status, prints the progress line.
void report(caf::scoped_actor& self, Connector& c, runtime::state::StandaloneStore& state, double interval, bool quiet) {
  uint64_t written = 0, errors = 0;
  int64_t lag = 0;
  int idle = 0, failed = 0;
  for (size_t t = 0; t < c.tasks.size(); ++t) {
    auto src = ask(self, c.tasks[t].source());
    auto snk = ask(self, c.tasks[t].sink());
    written += snk.records_out;
    errors += src.errors + snk.errors;
    if (src.lag > 0)
      lag += src.lag;
    std::string task_state = "RUNNING", trace;
    for (const auto& stage : c.tasks[t].stages) {
      auto s = ask(self, stage);
      if (s.state == "FAILED") {
        task_state = "FAILED";
        trace = s.last_error;
      }
    }
    if (task_state == "FAILED")
      ++failed;
    else if (src.partitions == 0) {
      ++idle;
      trace = c.partitions >= 0
                ? "idle: no partition assigned (tasks.max=" + std::to_string(c.tasks_max)
                    + " but the topics have " + std::to_string(c.partitions) + " partition(s))"
                : "idle: no partition assigned (tasks.max is above the topics' partition count)";
    }
    state.set_task_status(c.name, static_cast<int>(t), task_state, trace);
  }
  double rate = (written - c.last_written) / (interval > 0 ? interval : 1);
  c.last_written = written;
  if (!quiet)
    std::printf("[%s] %.0f records/s | consumer lag %lld | records written %llu | errors %llu | "
                "tasks %zu (%d idle, %d failed)\n",
                c.name.c_str(), rate, static_cast<long long>(lag),
                static_cast<unsigned long long>(written), static_cast<unsigned long long>(errors),
                c.tasks.size(), idle, failed);
  std::fflush(stdout);
}

int run_standalone(const Options& opt) {
  auto worker = runtime::resolve_providers(runtime::load_properties_file(opt.worker)).values;
  ParseOptions worker_passthrough;
  worker_passthrough.passthrough_prefixes = {"key.converter.", "value.converter.", "consumer.",
                                             "producer.", "admin.", "config.providers"};
  auto worker_config = worker_def().parse(worker, worker_passthrough);
  for (const auto& key : worker_def().keys())
    worker.try_emplace(key.name, to_string(worker_config.get(key.name)));

  std::vector<Connector> connectors;
  for (const auto& path : opt.connectors)
    connectors.push_back(load_connector(path));

  runtime::state::StandaloneStore state{worker_config.get_string("offset.storage.file.filename")};
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);

  caf::actor_system_config cfg;
  actors::announce_types(cfg);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};

  for (auto& c : connectors) {
    state.put_connector(c.name, c.config);
    warn_about_idle_tasks(c, worker);
    for (int t = 0; t < c.tasks_max; ++t) {
      actors::SinkTaskSpec spec{c.name, t, c.plugin, c.config, worker, {4, 8u << 20}, self};
      c.tasks.push_back(actors::spawn_sink_task(sys, spec));
      state.set_task_status(c.name, t, "RUNNING", "");
    }
    state.set_connector_status(c.name, "RUNNING");
    spdlog::info("connector {} started with {} task(s)", c.name, c.tasks_max);
  }

  auto last = Clock::now();
  while (!stop_requested) {
    std::this_thread::sleep_for(100ms);
    auto now = Clock::now();
    if (now - last >= std::chrono::seconds{opt.progress_seconds}) {
      double interval = std::chrono::duration<double>(now - last).count();
      last = now;
      for (auto& c : connectors)
        report(self, c, state, interval, opt.quiet);
    }
  }

  // Clean shutdown: sources stop reading, in-flight batches drain into the sinks,
  // the sinks' durable offsets are committed, then everything exits.
  spdlog::info("stopping: draining in-flight batches and committing offsets");
  // A FAILED task has nothing to drain: its failed stage holds the batch it failed
  // on (nothing past it may be committed), so it would never report done. Its
  // actors just exit below; the consumer then commits what was durable.
  size_t running = 0;
  for (auto& c : connectors)
    for (auto& t : c.tasks) {
      bool failed = false;
      for (const auto& stage : t.stages)
        failed = failed || ask(self, stage).state == "FAILED";
      if (failed)
        continue;
      self->send(t.source(), actors::stop_atom::value);
      ++running;
    }
  auto deadline = Clock::now() + 30s;
  while (running > 0 && Clock::now() < deadline)
    self->receive([&](actors::done_atom, const actors::StageStats&) { --running; },
                  caf::after(500ms) >> [] {});
  for (auto& c : connectors) {
    for (size_t t = 0; t < c.tasks.size(); ++t) {
      state.set_task_status(c.name, static_cast<int>(t), "UNASSIGNED", "");
      for (auto& stage : c.tasks[t].stages)
        self->send_exit(stage, caf::exit_reason::user_shutdown);
    }
    state.set_connector_status(c.name, "UNASSIGNED");
  }
  // Actor handles keep detached actors' threads alive: drop them before the actor
  // system waits for those threads.
  for (auto& c : connectors)
    c.tasks.clear();
  if (running > 0) {
    std::fprintf(stderr, "weir standalone: %zu task(s) did not drain within 30 s\n", running);
    return 1;
  }
  spdlog::info("stopped cleanly");
  return 0;
}

} // namespace

Runner add_standalone(CLI::App& app) {
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
    "standalone", "Run connectors in one process: WORKER.properties CONNECTOR.properties|.json...");
  sub->add_option("worker", opt->worker, "Worker properties file")->required()->check(CLI::ExistingFile);
  sub->add_option("connectors", opt->connectors, "Connector configs (.properties or .json)")
    ->required()
    ->check(CLI::ExistingFile);
  sub->add_flag("--quiet", opt->quiet, "No progress lines");
  sub->add_option("--progress-interval", opt->progress_seconds, "Seconds between progress lines")
    ->capture_default_str();
  return [opt] { return run_standalone(*opt); };
}

} // namespace weir::cli
