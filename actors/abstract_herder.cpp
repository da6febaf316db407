#include "actors/abstract_herder.hpp"

#include <algorithm>
#include <cstdio>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/after.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"
#include "engine/pipeline/connector_config.hpp"
#include "engine/pipeline/source_config.hpp"
#include "engine/worker/build_info.hpp"
#include "runtime/kafka/admin.hpp"
#include "runtime/rest/config_info.hpp"
#include "runtime/rest/connect_json.hpp"

namespace weir::actors {

namespace rest = runtime::rest;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

OwnedActor& OwnedActor::operator=(OwnedActor&& other) noexcept {
  end();
  actor_ = std::exchange(other.actor_, {});
  return *this;
}

void OwnedActor::end() {
  if (actor_)
    caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
  actor_ = {};
}

/// New task configs connector actors reported (watching their work), for tick().
struct AbstractHerder::Reconfigurations {
  std::mutex mutex;
  /// By connector: the instance that reported them and the configs.
  std::map<std::string, std::pair<uint64_t, std::vector<StringMap>>> pending;
};

AbstractHerder::AbstractHerder(caf::actor_system& sys, runtime::state::StandaloneStore& state,
                               runtime::metrics::MetricsRegistry& metrics, TaskRunnerOptions options)
    : sys_(sys), state_(state), runner_(sys, state_, metrics, std::move(options)),
      reconfigurations_(std::make_shared<Reconfigurations>()) {}

AbstractHerder::~AbstractHerder() = default;

void AbstractHerder::set_worker_id(std::string id) {
  std::lock_guard lock{mutex_};
  worker_id_ = std::move(id);
}

std::string AbstractHerder::worker_id() const {
  std::lock_guard lock{mutex_};
  return worker_id_;
}

void AbstractHerder::doing(std::string what) {
  std::lock_guard lock{mutex_};
  doing_ = std::move(what);
}

AbstractHerder::Connector& AbstractHerder::get(const std::string& name) {
  auto it = connectors_.find(name);
  if (it == connectors_.end())
    throw rest::not_found("Connector " + name + " not found");
  return *it->second;
}

namespace {

/// The partition count of a sink's topics, warning when tasks.max is above it
/// (the seed lesson's partition bottleneck); -1 when unknown (a regex, a topic not
/// created yet).
int32_t check_partitions(const engine::worker::ConnectorPlan& plan, const StringMap& worker,
                         runtime::kafka::PartitionCounter& counter) {
  auto topics = engine::pipeline::parse_sink_settings(plan.config, plan.sink->definition()).topics;
  if (topics.size() == 1 && topics[0].starts_with("^"))
    return -1;
  auto props = engine::pipeline::task_client_props(plan.config, worker, "admin");
  int32_t partitions = 0;
  for (const auto& t : topics) {
    auto n = counter.count(props, t, 5s);
    if (!n) {
      spdlog::warn("connector {}: topic {} does not exist (yet): its tasks stay idle until it does", plan.name, t);
      return -1;
    }
    partitions += *n;
  }
  if (plan.tasks_max > partitions)
    spdlog::warn("connector {}: tasks.max={} but its topics have {} partition(s): {} task(s) "
                 "will be idle. Set tasks.max <= {}.",
                 plan.name, plan.tasks_max, partitions, plan.tasks_max - partitions, partitions);
  return partitions;
}

} // namespace

bool AbstractHerder::prepare(Connector& c) {
  const auto& plan = c.plan;
  std::optional<std::vector<StringMap>> configs;
  int32_t partitions = -1;
  std::string failure = c.plan_error;
  if (failure.empty()) {
    try {
      if (plan.sink)
        partitions = check_partitions(plan, runner_.options().config, partition_counter_);
      configs = make_task_configs(c);
    } catch (const std::exception& e) {
      failure = plan.scrub(e.what());
      spdlog::error("connector {} cannot make its tasks: {}", plan.name, failure);
    }
  }
  std::lock_guard lock{mutex_};
  if (configs)
    c.task_configs = std::move(*configs);
  c.partitions = partitions;
  c.failure = failure;
  c.topics_reset = false;
  state_.with([&](auto& s) { s.set_connector_status(plan.name, failure.empty() ? c.target : "FAILED"); });
  return failure.empty();
}

void AbstractHerder::start_tasks(Connector& c, const std::vector<size_t>& ids) {
  runner_.start(c.plan, c.task_configs, ids, c.partitions);
}

std::set<size_t> AbstractHerder::use_task_configs(Connector& c, std::vector<StringMap> next) {
  std::set<size_t> changed; // running tasks whose config changed or is gone
  for (auto t : runner_.tasks_of(c.plan.name))
    if (t >= next.size() || t >= c.task_configs.size() || next[t] != c.task_configs[t])
      changed.insert(t);
  if (!changed.empty()) {
    spdlog::info("connector {}: {} task(s) restart with new task configs", c.plan.name, changed.size());
    drain_tasks(c, changed);
  }
  std::lock_guard lock{mutex_};
  c.task_configs = std::move(next);
  return changed;
}

void AbstractHerder::spawn_instance(Connector& c) {
  uint64_t instance = 0;
  {
    std::lock_guard lock{mutex_};
    instance = ++c.instances;
  }
  auto actor = spawn_connector_actor(
    sys_, std::make_shared<const engine::worker::ConnectorPlan>(c.plan),
    [board = reconfigurations_, name = c.plan.name, instance](std::vector<StringMap> configs) {
      std::lock_guard lock{board->mutex};
      board->pending.insert_or_assign(name, std::pair{instance, std::move(configs)});
    });
  std::lock_guard lock{mutex_};
  c.instance = OwnedActor{std::move(actor)};
}

MadeTasks AbstractHerder::make_tasks(Connector& c) {
  if (!c.instance)
    spawn_instance(c);
  MadeTasks made;
  caf::scoped_actor self{sys_};
  self->request(c.instance.get(), std::chrono::seconds{60}, make_atom::value)
    .receive([&](MadeTasks& m) { made = std::move(m); },
             [&](const caf::error& e) {
               made.failure = "the connector did not make its task configs: " + sys_.render(e);
             });
  return made;
}

void AbstractHerder::drain_tasks(Connector& c, const std::optional<std::set<size_t>>& only) {
  // A request that waits behind this change says which stages hold it up.
  runner_.drain(c.plan.name, only, [this](const std::string& stages) {
    std::lock_guard lock{mutex_};
    doing_ += " (waiting for " + stages + " to write what they hold and commit)";
  });
}

void AbstractHerder::remove(const std::string& name) {
  drain_tasks(get(name));
  runner_.forget(name);
  std::lock_guard lock{mutex_};
  connectors_.erase(name);
  spdlog::info("connector {} deleted", name);
}

void AbstractHerder::apply_reconfigurations() {
  decltype(reconfigurations_->pending) pending;
  {
    std::lock_guard lock{reconfigurations_->mutex};
    pending.swap(reconfigurations_->pending);
  }
  for (auto& [name, reported] : pending) {
    auto it = connectors_.find(name);
    if (it == connectors_.end() || it->second->instances != reported.first)
      continue; // deleted, or an instance that has ended since
    doing("reconfiguring the tasks of connector " + name);
    reconfigured(*it->second, std::move(reported.second));
  }
}

// --- upkeep

void AbstractHerder::tick() {
  runner_.tick();
  std::unique_lock changes{changes_, std::try_to_lock};
  if (!changes)
    return; // a change is in progress: next tick
  doing("restarting failed tasks");
  runner_.restart_due();
  apply_reconfigurations();
}

std::vector<std::string> AbstractHerder::progress(double interval) {
  std::vector<std::string> lines;
  std::lock_guard lock{mutex_};
  for (auto& [name, cp] : connectors_) {
    auto& c = *cp;
    if (c.target != "RUNNING") {
      state_.with([&](auto& s) { s.set_connector_status(name, c.target); });
      continue;
    }
    uint64_t written = 0, errors = 0;
    int64_t lag = 0;
    int idle = 0, failed = 0, finished = 0, waiting = 0;
    std::string waiting_since; // the earliest task's "waiting for the broker since ..."
    auto status = status_of(c);
    auto figures = runner_.figures(name);
    for (const auto& [t, f] : figures) {
      written += f.written;
      errors += f.errors;
      lag += std::max<int64_t>(f.lag, 0);
      idle += c.plan.sink && f.state == "RUNNING" && f.partitions == 0;
      failed += f.state == "FAILED";
      finished += f.state == "FINISHED";
      if (f.state == "RUNNING" && !f.waiting.empty()) {
        ++waiting;
        if (waiting_since.empty() || f.waiting < waiting_since)
          waiting_since = f.waiting;
      }
    }
    state_.with([&](auto& s) {
      for (const auto& shown : status.tasks)
        s.set_task_status(name, shown.id, shown.state.state, shown.state.trace);
      s.set_connector_status(name, status.connector.state);
    });
    written = std::max(written, c.last_written);
    double rate = static_cast<double>(written - c.last_written) / (interval > 0 ? interval : 1);
    c.last_written = written;
    char line[512];
    if (c.plan.source)
      std::snprintf(line, sizeof line,
                    "[%s] %.0f records/s | records produced %llu | errors %llu | tasks %zu "
                    "(%d finished, %d failed)",
                    name.c_str(), rate, static_cast<unsigned long long>(written),
                    static_cast<unsigned long long>(errors), figures.size(), finished, failed);
    else
      std::snprintf(line, sizeof line,
                    "[%s] %.0f records/s | consumer lag %lld | records written %llu | errors %llu | "
                    "tasks %zu (%d idle, %d failed)",
                    name.c_str(), rate, static_cast<long long>(lag),
                    static_cast<unsigned long long>(written), static_cast<unsigned long long>(errors),
                    figures.size(), idle, failed);
    lines.emplace_back(line);
    // Lines of their own, so the progress line keeps its shape for scripts reading it.
    std::map<std::string, std::string> verdict_tasks; // verdict → "0,1"
    for (const auto& shown : status.tasks)
      if (!shown.bottleneck.empty()) {
        auto& ids = verdict_tasks[shown.bottleneck];
        ids += (ids.empty() ? "" : ",") + std::to_string(shown.id);
      }
    for (const auto& [verdict, ids] : verdict_tasks)
      lines.push_back("[" + name + "] task " + ids + ": " + verdict);
    if (waiting > 0)
      lines.push_back("[" + name + "] " + waiting_since + " (" + std::to_string(waiting) + " of "
                      + std::to_string(figures.size()) + " task(s))");
  }
  return lines;
}

size_t AbstractHerder::shutdown(std::chrono::milliseconds timeout) {
  std::lock_guard changes{changes_};
  doing("stopping");
  auto late = runner_.shutdown(timeout);
  std::lock_guard lock{mutex_};
  state_.with([&](auto& s) {
    for (auto& [name, c] : connectors_)
      s.set_connector_status(name, "UNASSIGNED");
  });
  return late;
}

// --- status

rest::ConnectorStatus AbstractHerder::status_of(const Connector& c) const {
  rest::ConnectorStatus status;
  status.name = c.plan.name;
  status.type = c.plan.type();
  status.connector = {c.failure.empty() ? c.target : "FAILED", worker_id_, c.failure};
  if (c.target == "STOPPED")
    return status; // Kafka Connect lists no tasks of a stopped connector
  if (c.target == "PAUSED") {
    for (size_t t = 0; t < c.task_configs.size(); ++t)
      status.tasks.push_back({static_cast<int>(t), {"PAUSED", worker_id_, ""}});
    return status;
  }
  status.tasks = runner_.statuses(c.plan, c.partitions, worker_id_);
  return status;
}

rest::ServerInfo AbstractHerder::server_info(Deadline deadline) {
  return {WEIR_VERSION, std::string{engine::worker::build_commit()}, kafka_cluster_id(deadline)};
}

std::string AbstractHerder::kafka_cluster_id(Deadline deadline) {
  std::lock_guard lock{cluster_id_mutex_};
  if (!cluster_id_.empty())
    return cluster_id_; // a cluster's id never changes: asked once
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  try {
    cluster_id_ = runtime::kafka::cluster_id(
      engine::pipeline::task_client_props({}, runner_.options().config, "admin"), std::clamp(left, 0ms, 5000ms));
  } catch (const std::exception& e) {
    spdlog::warn("GET /: no kafka_cluster_id yet: {}", e.what());
  }
  return cluster_id_;
}

void AbstractHerder::health_check(Deadline deadline) {
  while (!ready_) {
    if (Clock::now() >= deadline)
      throw rest::RequestTimeout("starting up");
    std::this_thread::sleep_for(10ms);
  }
  serialized("checking health", deadline, [] {});
}

std::vector<std::string> AbstractHerder::connectors(Deadline) {
  std::lock_guard lock{mutex_};
  std::vector<std::string> names;
  for (const auto& [name, c] : connectors_)
    names.push_back(name);
  return names;
}

rest::ConnectorInfo AbstractHerder::connector_info(const std::string& name, Deadline) {
  std::lock_guard lock{mutex_};
  const auto& c = get(name);
  // As written: provider references are shown raw, literal passwords hidden.
  rest::ConnectorInfo info{name, c.plan.raw, {}, c.plan.type(), c.plan.password_keys};
  if (c.target != "STOPPED")
    for (size_t t = 0; t < c.task_configs.size(); ++t)
      info.tasks.push_back({name, static_cast<int>(t)});
  return info;
}

rest::ConnectorStatus AbstractHerder::connector_status(const std::string& name, Deadline) {
  std::lock_guard lock{mutex_};
  return status_of(get(name));
}

rest::TaskState AbstractHerder::task_status(const rest::TaskId& id, Deadline) {
  std::lock_guard lock{mutex_};
  auto status = status_of(get(id.connector));
  for (const auto& t : status.tasks)
    if (t.id == id.task)
      return t;
  throw rest::not_found("Task " + task_name(id.connector, static_cast<size_t>(id.task)) + " not found");
}

std::vector<rest::TaskInfo> AbstractHerder::task_configs(const std::string& name, Deadline) {
  std::lock_guard lock{mutex_};
  const auto& c = get(name);
  std::vector<rest::TaskInfo> out;
  if (c.target == "STOPPED")
    return out;
  for (size_t t = 0; t < c.task_configs.size(); ++t) {
    auto [config, secret_keys] = c.plan.shown_task_config(c.task_configs[t]);
    out.push_back({{name, static_cast<int>(t)}, std::move(config), std::move(secret_keys)});
  }
  return out;
}

// --- restarts

void AbstractHerder::restart_connector(const std::string& name, Deadline deadline) {
  serialized("restarting connector " + name, deadline, [&] {
    Connector* c = nullptr;
    {
      std::lock_guard lock{mutex_};
      c = &get(name);
    }
    restart_instance(*c);
  });
}

rest::ConnectorStatus AbstractHerder::restart_connector_and_tasks(const rest::RestartRequest& request,
                                                                  Deadline deadline) {
  return serialized("restarting connector " + request.connector, deadline, [&] {
    Connector* c = nullptr;
    rest::ConnectorStatus status;
    std::vector<size_t> restart;
    bool instance = false;
    {
      std::lock_guard lock{mutex_};
      c = &get(request.connector);
      status = status_of(*c);
      instance = !request.only_failed || status.connector.state == "FAILED";
      if (instance)
        status.connector.state = "RESTARTING";
      auto here = runner_.tasks_of(request.connector);
      for (auto& t : status.tasks)
        if (request.include_tasks && (!request.only_failed || t.state.state == "FAILED")) {
          t.state.state = "RESTARTING";
          t.state.trace.clear();
          if (c->target == "RUNNING" && here.count(static_cast<size_t>(t.id)))
            restart.push_back(static_cast<size_t>(t.id));
        }
    }
    // A task the connector's restart started already (its config changed, or the
    // connector had failed) is not restarted twice.
    auto fresh = instance ? restart_instance(*c) : std::set<size_t>{};
    for (auto i : restart)
      if (!fresh.count(i))
        runner_.restart(request.connector, i, true); // a task stopped since is skipped
    return status;
  });
}

void AbstractHerder::restart_task(const rest::TaskId& id, rest::Forward, Deadline deadline) {
  serialized("restarting task " + task_name(id.connector, static_cast<size_t>(id.task)), deadline, [&] {
    {
      std::lock_guard lock{mutex_};
      get(id.connector);
    }
    if (id.task < 0 || !runner_.tasks_of(id.connector).count(static_cast<size_t>(id.task)))
      throw rest::not_found("Task " + task_name(id.connector, static_cast<size_t>(id.task)) + " not found");
    runner_.restart(id.connector, static_cast<size_t>(id.task), true);
  });
}

// --- offsets

std::vector<rest::ConnectorOffset> AbstractHerder::connector_offsets(const std::string& name, Deadline deadline) {
  engine::worker::ConnectorPlan plan;
  {
    std::lock_guard lock{mutex_};
    plan = get(name).plan;
  }
  if (plan.source) {
    std::vector<rest::ConnectorOffset> out;
    for (const auto& [partition, offset] : runner_.stored_offsets(name))
      out.push_back({partition, offset});
    return out;
  }
  // A sink's offsets are its consumer group's, asked of the cluster without a lock.
  auto props = engine::pipeline::task_client_props(plan.config, runner_.options().config, "admin");
  auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  std::vector<rest::ConnectorOffset> out;
  for (const auto& o : runtime::kafka::group_offsets(props, "connect-" + name, std::min(timeout, 30000ms)))
    out.push_back(rest::sink_offset_entry(o));
  return out;
}
namespace {

/// Runs `change` on a stopped sink's consumer group, again while the group still
/// has members on their way out: a task's consumer that was still joining when the
/// connector stopped lingers in the group up to its session timeout.
template <class F>
void while_group_settles(F change, Deadline deadline) {
  auto until = std::min(deadline, Clock::now() + 60s);
  for (;;) {
    try {
      return change();
    } catch (const runtime::kafka::KafkaError& e) {
      auto code = e.code();
      bool settling = code == RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID
                      || code == RD_KAFKA_RESP_ERR_GROUP_SUBSCRIBED_TO_TOPIC
                      || code == RD_KAFKA_RESP_ERR_NON_EMPTY_GROUP
                      || code == RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS;
      if (!settling || Clock::now() + 500ms > until)
        throw;
      std::this_thread::sleep_for(500ms);
    }
  }
}

[[noreturn]] void throw_not_stopped(const std::string& name) {
  throw rest::bad_request("Connectors must be in the STOPPED state before their offsets can be "
                          "modified. This can be done for the specified connector by issuing a "
                          "'PUT' request to the '/connectors/" + name + "/stop' endpoint");
}
} // namespace

std::string AbstractHerder::alter_connector_offsets(const std::string& name,
                                            const std::vector<rest::ConnectorOffset>& offsets,
                                            Deadline deadline) {
  return serialized("altering the offsets of connector " + name, deadline, [&] {
    const std::string done = "The offsets for this connector have been altered successfully";
    std::map<std::string, std::string> config;
    {
      std::lock_guard lock{mutex_};
      const auto& c = get(name);
      if (c.target != "STOPPED")
        throw_not_stopped(name);
      if (c.plan.source) {
        std::map<std::string, std::string> put;
        std::vector<std::string> erase;
        for (const auto& o : offsets)
          if (o.offset == "null")
            erase.push_back(o.partition);
          else
            put[o.partition] = o.offset;
        runner_.store_offsets(c.plan, put, erase, true);
        return done;
      }
      config = c.plan.config;
    }
    // A sink's offsets are its consumer group's: changed in the cluster, unlocked.
    std::vector<runtime::kafka::TopicPartitionOffset> commit;
    std::vector<runtime::kafka::TopicPartition> forget;
    for (const auto& entry : offsets) {
      auto o = rest::parse_sink_offset(entry);
      if (o.offset < 0)
        forget.push_back({o.topic, o.partition});
      else
        commit.push_back(o);
    }
    auto props = engine::pipeline::task_client_props(config, runner_.options().config, "admin");
    while_group_settles([&] {
      runtime::kafka::alter_group_offsets(props, "connect-" + name, commit, 30s);
      runtime::kafka::delete_group_offsets(props, "connect-" + name, forget, 30s);
    }, deadline);
    return done;
  });
}

std::string AbstractHerder::reset_connector_offsets(const std::string& name, Deadline deadline) {
  return serialized("resetting the offsets of connector " + name, deadline, [&] {
    const std::string done = "The offsets for this connector have been reset successfully";
    std::map<std::string, std::string> config;
    engine::worker::ConnectorPlan plan;
    {
      std::lock_guard lock{mutex_};
      const auto& c = get(name);
      if (c.target != "STOPPED")
        throw_not_stopped(name);
      config = c.plan.config;
      if (c.plan.source)
        plan = c.plan;
    }
    if (plan.source) {
      std::vector<std::string> all;
      for (const auto& [partition, offset] : runner_.stored_offsets(name))
        all.push_back(partition);
      runner_.store_offsets(plan, {}, all, true);
      return done;
    }
    auto props = engine::pipeline::task_client_props(config, runner_.options().config, "admin");
    while_group_settles([&] {
      std::vector<runtime::kafka::TopicPartition> all;
      for (const auto& o : runtime::kafka::group_offsets(props, "connect-" + name, 30s))
        all.push_back({o.topic, o.partition});
      runtime::kafka::delete_group_offsets(props, "connect-" + name, all, 30s);
    }, deadline);
    return done;
  });
}

std::vector<std::string> AbstractHerder::connector_active_topics(const std::string& name, Deadline) {
  std::lock_guard lock{mutex_};
  const auto& c = get(name);
  if (c.topics_reset || c.target != "RUNNING" || !c.plan.sink)
    return {};
  auto topics = engine::pipeline::parse_sink_settings(c.plan.config, c.plan.sink->definition()).topics;
  if (topics.size() == 1 && topics[0].starts_with("^"))
    return {};
  return topics;
}

void AbstractHerder::reset_connector_active_topics(const std::string& name, Deadline) {
  std::lock_guard lock{mutex_};
  get(name).topics_reset = true;
}

// --- plugins, loggers

std::vector<rest::PluginInfo> AbstractHerder::plugins(Deadline) { return engine::worker::plugin_infos(); }

std::vector<rest::ConfigKeyInfo> AbstractHerder::plugin_config(const std::string& plugin, Deadline) {
  return engine::worker::plugin_config(plugin);
}

rest::ConfigInfos AbstractHerder::validate_connector_config(const rest::ConfigMap& config, Deadline) {
  return engine::worker::validate_connector(config, runner_.options().config);
}

std::map<std::string, rest::LoggerLevel> AbstractHerder::logger_levels(Deadline) { return loggers_.all(); }

std::optional<rest::LoggerLevel> AbstractHerder::logger_level(const std::string& name, Deadline) {
  return loggers_.get(name);
}

std::vector<std::string> AbstractHerder::set_worker_logger_level(const std::string& name,
                                                         const std::string& level, Deadline) {
  return loggers_.set(name, level);
}

void AbstractHerder::set_cluster_logger_level(const std::string& name, const std::string& level, Deadline) {
  loggers_.set(name, level); // one worker is the whole cluster
}

// --- weir's own

rest::ActorTree AbstractHerder::actor_tree(const std::optional<std::string>& connector, Deadline) {
  std::lock_guard lock{mutex_};
  rest::TreeNode node{worker_id_, true, {}, runner_.node_figures()};
  for (const auto& [name, c] : connectors_) {
    if (connector && name != *connector)
      continue;
    auto status = status_of(*c);
    rest::TreeConnector tc{name, c->plan.type(), status.connector, {}};
    if (c->instance)
      tc.instance = rest::TreeInstance{c->instance.get().id(), c->instances - 1};
    tc.actor = runner_.supervisor_id(name);
    for (const auto& ts : status.tasks) {
      rest::TreeTask task{ts.id, ts.state, {}};
      runner_.fill_tree(c->plan, task);
      tc.tasks.push_back(std::move(task));
    }
    node.connectors.push_back(std::move(tc));
  }
  if (connector && node.connectors.empty())
    throw rest::not_found("Connector " + *connector + " not found");
  return {{std::move(node)}};
}

std::string AbstractHerder::metrics_text(Deadline) {
  auto text = runner_.metrics_text();
  runtime::metrics::WorkerFigures worker;
  {
    std::lock_guard lock{mutex_};
    worker.connectors = connectors_.size();
    assignment_figures(worker);
  }
  worker.tasks = runner_.task_count();
  return text + runtime::metrics::render_worker_metrics(worker);
}

void AbstractHerder::tap(const rest::TaskId& id, const std::string& stage, int count, rest::Forward,
                         Deadline deadline, rest::TapSink& sink) {
  caf::actor target;
  {
    std::lock_guard lock{mutex_};
    const auto& c = get(id.connector);
    if (id.task < 0 || !runner_.tasks_of(id.connector).count(static_cast<size_t>(id.task)))
      throw rest::not_found("Task " + task_name(id.connector, static_cast<size_t>(std::max(id.task, 0)))
                            + " not found"
                            + (c.target != "RUNNING" ? " (the connector is " + c.target + ")" : std::string{}));
    target = runner_.tap_target(c.plan, id.task, stage);
  }
  caf::scoped_actor self{sys_};
  self->send(target, tap_atom::value, static_cast<int32_t>(count), caf::actor{self});
  int passed = 0;
  bool reader_gone = false;
  // Waits in slices, so a reader that has gone is noticed while no record passes.
  while (passed < count && !reader_gone) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left <= 0ms)
      break;
    self->receive(
      [&](tap_atom, std::vector<std::string>& more) {
        for (auto& line : more)
          if (passed < count && !reader_gone) {
            reader_gone = !sink.record(line);
            passed += reader_gone ? 0 : 1;
          }
      },
      caf::after(std::min(left, std::chrono::milliseconds{100})) >> [&] { reader_gone = sink.gone(); });
  }
  if (passed < count) // cancel what is left
    self->send(target, tap_atom::value, int32_t{0}, caf::actor{self});
  if (reader_gone)
    spdlog::info("tap of stage {} of task {} ended after {} record(s): its reader has gone", stage,
                 task_name(id.connector, static_cast<size_t>(id.task)), passed);
}

} // namespace weir::actors
