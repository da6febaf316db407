// `weir standalone WORKER.properties CONNECTOR...`: sink and source connectors in one
// process, the way connect-standalone runs them. State (connector configs, status
// and source offsets) lives in the SQLite file named by offset.storage.file.filename.
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
#include "actors/source_task.hpp"
#include "cli/commands.hpp"
#include "connectors/registry.hpp"
#include "runtime/config/connector_json.hpp"
#include "runtime/config/properties.hpp"
#include "runtime/config/providers.hpp"
#include "runtime/kafka/admin.hpp"
#include "runtime/metrics/registry.hpp"
#include "runtime/kafka/producer.hpp"
#include "runtime/pipeline/connector_config.hpp"
#include "runtime/pipeline/source_config.hpp"
#include "runtime/pipeline/source_offsets_topic.hpp"
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
             "REST API listeners.");
    return d;
  }();
  return def;
}

/// One task's actors, poller/consumer first; a source task also has its offsets.
struct Task {
  std::vector<caf::actor> stages; ///< empty when the task could not start
  std::shared_ptr<runtime::pipeline::SourceOffsets> offsets;
  std::string failure; ///< why it could not start
  std::string last_stage; ///< name of the stage that reports done (producer or sink)
  bool done = false;      ///< that stage finished (a source ran to its end, or drained)
  caf::actor source() const { return stages.front(); }
};

struct Connector {
  std::string name;
  std::map<std::string, std::string> config;
  const connectors::SinkPlugin* plugin = nullptr;
  const connectors::SourcePlugin* source_plugin = nullptr;
  int tasks_max = 1;
  bool exactly_once = false; ///< a source whose tasks are transactional
  std::string offsets_topic;
  std::vector<Task> tasks;
  uint64_t last_written = 0;
  int32_t partitions = -1; ///< of its topics, when known at start (not for topics.regex)
};

bool lower_equals(std::string v, std::string_view want) {
  for (auto& ch : v)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return v == want;
}

/// The source half of load_connector: common keys, the plugin's, exactly-once.
void load_source(Connector& c, const std::map<std::string, std::string>& worker) {
  // The connector's own keys first: a typo there gets its "did you mean".
  for (const auto& issue : c.source_plugin->validate(c.config))
    throw ConfigError(issue.name, issue.errors.front());
  auto settings = runtime::pipeline::parse_source_settings(c.config, c.source_plugin->definition());
  c.tasks_max = settings.tasks_max;
  c.exactly_once = lower_equals(worker.at("exactly.once.source.support"), "enabled");
  c.offsets_topic = settings.offsets_topic.empty() ? worker.at("offset.storage.topic")
                                                   : settings.offsets_topic;
  if (c.exactly_once) {
    // The worker owns these when it runs the task transactionally (Kafka Connect
    // rejects the same overrides).
    if (c.config.count("producer.override.transactional.id"))
      throw ConfigError("producer.override.transactional.id",
                        "Invalid value for configuration producer.override.transactional.id: "
                        "with exactly.once.source.support=enabled the worker sets it");
    auto idem = c.config.find("producer.override.enable.idempotence");
    if (idem != c.config.end() && !lower_equals(idem->second, "true"))
      throw ConfigError("producer.override.enable.idempotence",
                        "Invalid value " + idem->second
                          + " for configuration producer.override.enable.idempotence: "
                            "exactly-once source tasks need an idempotent producer");
  }
  if (!settings.exactly_once_required)
    return;
  if (!c.exactly_once)
    throw ConfigError("exactly.once.support",
                      "Invalid value required for configuration exactly.once.support: this "
                      "worker has exactly.once.source.support="
                        + worker.at("exactly.once.source.support") + " (set it to enabled)");
  if (!c.source_plugin->exactly_once)
    throw ConfigError("exactly.once.support",
                      "Invalid value required for configuration exactly.once.support: the "
                      "connector " + std::string{c.source_plugin->class_name}
                        + " does not support exactly-once semantics");
}

/// Loads, resolves and validates one connector file; every problem names its key.
Connector load_connector(const std::string& path, const std::map<std::string, std::string>& worker) {
  auto loaded = runtime::load_connector_file(path);
  auto resolved = runtime::resolve_providers(loaded.config);
  Connector c;
  c.name = loaded.name;
  c.config = resolved.values;
  auto cls = c.config.count("connector.class") ? c.config.at("connector.class") : "";
  c.plugin = connectors::find_sink(cls);
  c.source_plugin = c.plugin ? nullptr : connectors::find_source(cls);
  if (c.source_plugin) {
    load_source(c, worker);
    return c;
  }
  if (!c.plugin)
    throw ConfigError("connector.class",
                      cls.empty() ? "Missing required configuration \"connector.class\" which "
                                    "has no default value."
                                  : "Invalid value " + cls
                                      + " for configuration connector.class: no sink or source "
                                        "connector of that class or alias is available");
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

/// A task's figures from its stages' published statistics, never from the actors
/// themselves: a stage that is busy or blocked (a sink writing into a stalled
/// database) must not stall the progress line, and still shows its last figures.
struct TaskFigures {
  std::string state = "RUNNING"; ///< FAILED when a stage failed, FINISHED when all did
  std::string trace;
  uint64_t written = 0; ///< by the sink writer, or produced by a source task
  uint64_t errors = 0;
  int64_t lag = -1;
  int32_t partitions = -1;
};

TaskFigures task_figures(const Task& task, int id,
                         const std::vector<runtime::metrics::StageSnapshot>& stages) {
  using runtime::metrics::StageRole;
  TaskFigures f;
  if (task.stages.empty()) {
    f.state = "FAILED";
    f.trace = task.failure;
    return f;
  }
  bool finished = true;
  for (const auto& s : stages) {
    if (s.key.task != id)
      continue;
    f.errors += s.stats.errors;
    finished = finished && s.stats.state == "FINISHED";
    if (s.stats.state == "FAILED" && f.state != "FAILED") {
      f.state = "FAILED";
      f.trace = s.stats.last_error;
    }
    if (s.role == StageRole::sink_writer || s.role == StageRole::source_writer)
      f.written = s.stats.records_out;
    if (s.role == StageRole::sink_reader) {
      f.lag = s.stats.lag;
      f.partitions = s.stats.partitions;
    }
  }
  if (f.state == "RUNNING" && finished)
    f.state = "FINISHED";
  return f;
}

/// Records every task's status and prints the connector's progress line.
void report(const runtime::metrics::MetricsRegistry& metrics, Connector& c,
            runtime::state::StandaloneStore& state, double interval, bool quiet) {
  uint64_t written = 0, errors = 0;
  int64_t lag = 0;
  int idle = 0, failed = 0, finished = 0;
  auto stages = metrics.snapshot(c.name);
  for (size_t t = 0; t < c.tasks.size(); ++t) {
    auto f = task_figures(c.tasks[t], static_cast<int>(t), stages);
    written += f.written;
    errors += f.errors;
    if (f.lag > 0)
      lag += f.lag;
    if (!c.source_plugin && f.state == "RUNNING" && f.partitions == 0) {
      ++idle;
      f.trace = c.partitions >= 0
                  ? "idle: no partition assigned (tasks.max=" + std::to_string(c.tasks_max)
                      + " but the topics have " + std::to_string(c.partitions) + " partition(s))"
                  : "idle: no partition assigned (tasks.max is above the topics' partition count)";
    }
    failed += f.state == "FAILED";
    finished += f.state == "FINISHED";
    state.set_task_status(c.name, static_cast<int>(t), f.state, f.trace);
  }
  written = std::max(written, c.last_written);
  double rate = (written - c.last_written) / (interval > 0 ? interval : 1);
  c.last_written = written;
  if (quiet) {
  } else if (c.source_plugin) {
    std::printf("[%s] %.0f records/s | records produced %llu | errors %llu | tasks %zu "
                "(%d finished, %d failed)\n",
                c.name.c_str(), rate, static_cast<unsigned long long>(written),
                static_cast<unsigned long long>(errors), c.tasks.size(), finished, failed);
  } else {
    std::printf("[%s] %.0f records/s | consumer lag %lld | records written %llu | errors %llu | "
                "tasks %zu (%d idle, %d failed)\n",
                c.name.c_str(), rate, static_cast<long long>(lag),
                static_cast<unsigned long long>(written), static_cast<unsigned long long>(errors),
                c.tasks.size(), idle, failed);
  }
  std::fflush(stdout);
}

/// Marks the task whose last stage sent `stats` (with its done) as finished.
void on_done(std::vector<Connector>& connectors, const actors::StageStats& stats) {
  for (auto& c : connectors)
    for (auto& t : c.tasks)
      if (!t.done && t.last_stage == stats.name) {
        t.done = true;
        return;
      }
}

/// Takes the done reports that arrived (sources that ran to their end).
void take_done(caf::scoped_actor& self, std::vector<Connector>& connectors) {
  bool more = true;
  while (more)
    self->receive([&](actors::done_atom, const actors::StageStats& s) { on_done(connectors, s); },
                  caf::after(std::chrono::seconds{0}) >> [&] { more = false; });
}

/// Writes every source offset that became committable since the last flush.
void flush_offsets(std::vector<Connector>& connectors, runtime::state::StandaloneStore& state) {
  for (auto& c : connectors)
    for (auto& t : c.tasks)
      if (t.offsets)
        state.put_source_offsets(c.name, t.offsets->take_changes());
}

/// The offsets a source connector resumes from. With exactly-once, each task's
/// transactional id is fenced first (which aborts a dead predecessor's open
/// transaction), then the offsets topic, read committed, is the truth: it holds
/// exactly the offsets of the records that were committed. The state file only
/// fills in partitions the topic has never seen.
runtime::pipeline::OffsetMap resume_offsets(const Connector& c,
                                            const std::map<std::string, std::string>& worker,
                                            runtime::state::StandaloneStore& state,
                                            const std::vector<std::string>& transactional_ids) {
  auto stored = state.source_offsets(c.name);
  if (!c.exactly_once)
    return stored;
  auto props = runtime::pipeline::task_client_props(c.config, worker, "producer");
  runtime::kafka::create_topics(props, {{c.offsets_topic, 1, -1}});
  for (const auto& id : transactional_ids) {
    auto p = props;
    p["transactional.id"] = id;
    runtime::kafka::Producer fence{p, {}};
    fence.init_transactions(60s);
  }
  auto committed = runtime::pipeline::read_offsets_topic(props, c.offsets_topic, c.name);
  for (auto& [partition, offset] : committed)
    stored.insert_or_assign(partition, offset);
  return stored;
}

void start_source(caf::actor_system& sys, caf::scoped_actor& self, Connector& c,
                  const std::map<std::string, std::string>& worker,
                  runtime::state::StandaloneStore& state,
                  runtime::metrics::MetricsRegistry& metrics) {
  auto configs = c.source_plugin->task_configs(c.config, c.tasks_max);
  std::vector<std::string> ids;
  for (size_t t = 0; t < configs.size(); ++t)
    if (c.exactly_once) // Kafka Connect's naming: ${group.id}-${connector}-${task}
      ids.push_back(worker.at("group.id") + "-" + c.name + "-" + std::to_string(t));
  auto stored = resume_offsets(c, worker, state, ids);
  for (size_t t = 0; t < configs.size(); ++t) {
    actors::SourceTaskSpec spec{c.name, static_cast<int>(t), c.source_plugin, configs[t], worker,
                                stored, {4, 8u << 20}, self,
                                c.exactly_once ? ids[t] : std::string{},
                                c.exactly_once ? c.offsets_topic : std::string{}};
    spec.metrics = &metrics;
    // A task that cannot start (a missing table, an unreadable file) fails alone,
    // with the reason in its status; the process and the other tasks run on.
    try {
      auto task = actors::spawn_source_task(sys, spec);
      auto last_stage = c.name + "-" + std::to_string(t) + "/producer";
      c.tasks.push_back({std::move(task.stages), task.offsets, {}, last_stage});
      state.set_task_status(c.name, static_cast<int>(t), "RUNNING", "");
    } catch (const std::exception& e) {
      spdlog::error("connector {} task {} failed to start: {}", c.name, t, e.what());
      c.tasks.push_back({{}, nullptr, e.what(), {}});
      state.set_task_status(c.name, static_cast<int>(t), "FAILED", e.what());
    }
  }
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
    connectors.push_back(load_connector(path, worker));

  runtime::state::StandaloneStore state{worker_config.get_string("offset.storage.file.filename")};
  std::signal(SIGTERM, on_signal);
  std::signal(SIGINT, on_signal);

  // Stages publish their statistics here; it outlives the actors.
  runtime::metrics::MetricsRegistry metrics;
  caf::actor_system_config cfg;
  actors::announce_types(cfg);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};

  for (auto& c : connectors) {
    state.put_connector(c.name, c.config);
    if (c.source_plugin) {
      start_source(sys, self, c, worker, state, metrics);
    } else {
      warn_about_idle_tasks(c, worker);
      for (int t = 0; t < c.tasks_max; ++t) {
        actors::SinkTaskSpec spec{c.name, t, c.plugin, c.config, worker, {4, 8u << 20}, self};
        spec.metrics = &metrics;
        auto task = actors::spawn_sink_task(sys, spec);
        c.tasks.push_back({std::move(task.stages), nullptr, {}, c.name + "-" + std::to_string(t) + "/sink"});
        state.set_task_status(c.name, t, "RUNNING", "");
      }
    }
    state.set_connector_status(c.name, "RUNNING");
    spdlog::info("connector {} started with {} task(s)", c.name, c.tasks.size());
  }

  const auto flush_interval = std::chrono::milliseconds{worker_config.get_long("offset.flush.interval.ms")};
  auto last = Clock::now();
  auto last_flush = last;
  while (!stop_requested) {
    std::this_thread::sleep_for(100ms);
    take_done(self, connectors);
    auto now = Clock::now();
    if (now - last_flush >= flush_interval) {
      last_flush = now;
      flush_offsets(connectors, state);
    }
    if (now - last >= std::chrono::seconds{opt.progress_seconds}) {
      double interval = std::chrono::duration<double>(now - last).count();
      last = now;
      for (auto& c : connectors)
        report(metrics, c, state, interval, opt.quiet);
    }
  }

  // Clean shutdown: sources stop reading, in-flight batches drain into the sinks,
  // the sinks' durable offsets are committed, then everything exits.
  spdlog::info("stopping: draining in-flight batches and committing offsets");
  // A FAILED task has nothing to drain: its failed stage holds the batch it failed
  // on (nothing past it may be committed), so it would never report done. Its
  // actors just exit below; the consumer then commits what was durable.
  size_t running = 0;
  for (auto& c : connectors) {
    auto stages = metrics.snapshot(c.name);
    for (size_t i = 0; i < c.tasks.size(); ++i) {
      auto& t = c.tasks[i];
      // Nothing to drain: never started, already finished, or failed.
      if (t.stages.empty() || t.done
          || task_figures(t, static_cast<int>(i), stages).state == "FAILED")
        continue;
      self->send(t.source(), actors::stop_atom::value);
      ++running;
    }
  }
  auto deadline = Clock::now() + 30s;
  while (running > 0 && Clock::now() < deadline)
    self->receive(
      [&](actors::done_atom, const actors::StageStats& s) {
        on_done(connectors, s);
        --running;
      },
      caf::after(500ms) >> [] {});
  // Every drained source task reported its last delivery before its done.
  flush_offsets(connectors, state);
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
