#include "actors/worker.hpp"

#include "actors/connector_actor.hpp"

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <numeric>
#include <set>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/after.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"
#include "actors/scheduler.hpp"
#include "actors/sink_task_actor.hpp"
#include "actors/source_task_actor.hpp"
#include "runtime/kafka/admin.hpp"
#include "runtime/kafka/producer.hpp"
#include "engine/pipeline/connector_config.hpp"
#include "engine/pipeline/source_config.hpp"
#include "engine/pipeline/source_offsets_topic.hpp"
#include "runtime/rest/config_info.hpp"
#include "runtime/rest/connect_json.hpp"
#include "engine/worker/build_info.hpp"

namespace weir::actors {

namespace rest = runtime::rest;
using runtime::metrics::StageRole;
using runtime::metrics::StageSnapshot;
using engine::worker::StringMap;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

/// One task's actors and its history of automatic restarts.
struct Task {
  std::vector<caf::actor> stages; ///< reader first; empty when it could not start
  std::vector<std::string> names; ///< the stages' names, in the same order
  std::shared_ptr<runtime::connector_api::SourceOffsets> offsets; ///< a source task's
  std::string failure;    ///< why it could not start
  std::string last_stage; ///< the StageStats name of the stage that reports done
  int restarts = 0;       ///< automatic restarts in a row
  std::optional<Clock::time_point> restart_at;
  bool gave_up = false;
};

/// A task's figures from its stages' published statistics.
struct TaskFigures {
  std::string state = "RUNNING"; ///< FAILED when a stage failed, FINISHED when all did
  std::string trace;
  uint64_t written = 0; ///< by the sink writer, or produced by a source task
  uint64_t errors = 0;
  int64_t lag = -1;
  int32_t partitions = -1;
  std::string idle_reason; ///< the consumer's, when it has no partition; a source task's, when it has no work
  std::string waiting;     ///< its Kafka client's, while it cannot work ("waiting for the broker since ...")
};

TaskFigures task_figures(const Task& task, int id, const std::vector<StageSnapshot>& stages) {
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
    if (s.role == StageRole::source_writer)
      f.waiting = s.stats.waiting;
    if (s.role == StageRole::source_reader)
      f.idle_reason = s.stats.idle_reason;
    if (s.role == StageRole::sink_reader) {
      f.lag = s.stats.lag;
      f.partitions = s.stats.partitions;
      f.idle_reason = s.stats.idle_reason;
      f.waiting = s.stats.waiting;
    }
  }
  if (f.state == "RUNNING" && finished)
    f.state = "FINISHED";
  return f;
}

/// Why a running sink task has no partition, as far as is known: what its consumer
/// says (no such topic, not assigned yet), else more tasks than partitions or a
/// rebalance under way (partitions lost to a session timeout, say).
std::string idle_trace(int tasks_max, int32_t partitions, const TaskFigures& f) {
  if (!f.idle_reason.empty())
    return "idle: no partition assigned (" + f.idle_reason + ")";
  if (partitions >= 0 && tasks_max > partitions)
    return "idle: no partition assigned (tasks.max=" + std::to_string(tasks_max) + " but the topics have "
           + std::to_string(partitions) + " partition(s))";
  return "idle: no partition assigned (the group gave this task none: more tasks than partitions, or a "
         "rebalance under way)";
}

std::string role_name(StageRole role) {
  switch (role) {
  case StageRole::transform: return "transform";
  case StageRole::sink_reader: return "sink_reader";
  case StageRole::sink_writer: return "sink_writer";
  case StageRole::source_reader: return "source_reader";
  case StageRole::source_writer: return "source_writer";
  }
  return "transform";
}

std::string short_class(const std::string& name) {
  auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

/// What a verdict calls a stage: an SMT's class, the sink's connector class and
/// its database, "Kafka" for the clients of the broker.
std::string kind_in_words(const engine::worker::ConnectorPlan& plan, StageRole role, const std::string& stage) {
  auto get = [&](const std::string& key) {
    auto it = plan.config.find(key);
    return it == plan.config.end() ? std::string{} : it->second;
  };
  switch (role) {
  case StageRole::transform: return short_class(get("transforms." + stage + ".type"));
  case StageRole::sink_reader:
  case StageRole::source_writer: return "Kafka";
  case StageRole::source_reader: return short_class(get("connector.class"));
  case StageRole::sink_writer: {
    auto kind = short_class(get("connector.class"));
    auto url = get("connection.url");
    if (url.starts_with("jdbc:sqlite")) kind += ", SQLite";
    if (url.starts_with("jdbc:postgresql")) kind += ", PostgreSQL";
    return kind;
  }
  }
  return {};
}

std::string task_name(const std::string& connector, size_t task) {
  return connector + "-" + std::to_string(task);
}

} // namespace

namespace {

/// A connector actor that ends with its owner.
class OwnedActor {
public:
  OwnedActor() = default;
  explicit OwnedActor(caf::actor actor) : actor_(std::move(actor)) {}
  OwnedActor(OwnedActor&& other) noexcept : actor_(std::exchange(other.actor_, {})) {}
  OwnedActor& operator=(OwnedActor&& other) noexcept {
    end();
    actor_ = std::exchange(other.actor_, {});
    return *this;
  }
  ~OwnedActor() { end(); }
  const caf::actor& get() const { return actor_; }
  explicit operator bool() const { return static_cast<bool>(actor_); }

private:
  void end() {
    if (actor_)
      caf::anon_send_exit(actor_, caf::exit_reason::user_shutdown);
    actor_ = {};
  }
  caf::actor actor_;
};

} // namespace

/// New task configs connector actors reported (watching their work), for tick().
struct Worker::Reconfigurations {
  std::mutex mutex;
  /// By connector: the instance that reported them and the configs.
  std::map<std::string, std::pair<uint64_t, std::vector<StringMap>>> pending;
};

struct Worker::Connector {
  engine::worker::ConnectorPlan plan;
  /// Its connector actor (Kafka Connect's Connector instance), while it has one: in
  /// standalone from its start, in a cluster on the leader.
  OwnedActor instance;
  uint64_t instances = 0; ///< connector actors spawned for it: 1 + its restarts
  std::string target = "RUNNING"; ///< RUNNING, PAUSED or STOPPED
  std::map<size_t, Task> tasks;   ///< by task id: those running here while RUNNING
  /// What its tasks run with (its tasks shown PAUSED while paused): made here in
  /// standalone, the leader's from the config topic in a cluster.
  std::vector<StringMap> task_configs;
  /// Cluster mode: its config changed after its task configs were stored; no task
  /// of it starts until the leader stores the next ones.
  bool awaiting = false;
  /// Cluster mode, on the leader: the task configs its connector made for its
  /// current config (until a restart makes them again).
  std::optional<std::vector<StringMap>> made;
  std::string failure; ///< why its tasks could not be made (connector FAILED)
  std::string plan_error; ///< cluster mode: why its config was refused (connector FAILED)
  int32_t partitions = -1;
  uint64_t last_written = 0;
  bool topics_reset = false;
};

/// The drained tasks' done reports, from the observer actor to whoever waits.
struct Worker::DoneBoard {
  std::mutex mutex;
  std::condition_variable changed;
  std::set<std::string> done;

  void mark(const std::string& stage) {
    {
      std::lock_guard lock{mutex};
      done.insert(stage);
    }
    changed.notify_all();
  }
  void forget(const std::string& stage) {
    std::lock_guard lock{mutex};
    done.erase(stage);
  }
  bool has(const std::string& stage) {
    std::lock_guard lock{mutex};
    return done.count(stage) > 0;
  }
  /// Waits until every one of `stages` reported done, or `until`; returns those
  /// that did not.
  std::vector<std::string> wait(const std::vector<std::string>& stages, Clock::time_point until) {
    std::unique_lock lock{mutex};
    auto missing = [&] {
      std::vector<std::string> out;
      for (const auto& s : stages)
        if (!done.count(s))
          out.push_back(s);
      return out;
    };
    changed.wait_until(lock, until, [&] { return missing().empty(); });
    return missing();
  }
};

Worker::Worker(caf::actor_system& sys, runtime::state::StandaloneStore& state,
               runtime::metrics::MetricsRegistry& metrics, WorkerOptions options)
    : sys_(sys), state_(state), metrics_(metrics), options_(std::move(options)),
      done_(std::make_shared<DoneBoard>()), reconfigurations_(std::make_shared<Reconfigurations>()),
      node_sampler_(scheduler_meter(sys)), last_flush_(Clock::now()) {
  observer_ = sys_.spawn([board = done_](caf::event_based_actor*) -> caf::behavior {
    return {[board](done_atom, const StageStats& stats) { board->mark(stats.name); }};
  });
}

Worker::~Worker() {
  for (auto& [name, c] : connectors_)
    for (auto& [id, t] : c->tasks)
      for (auto& stage : t.stages)
        caf::anon_send_exit(stage, caf::exit_reason::user_shutdown);
  connectors_.clear();
  caf::anon_send_exit(observer_, caf::exit_reason::user_shutdown);
}

template <class F>
auto Worker::serialized(const std::string& doing, Deadline deadline, F change) {
  std::unique_lock changes{changes_, std::defer_lock};
  if (!changes.try_lock_until(deadline)) {
    std::lock_guard lock{mutex_};
    throw rest::RequestTimeout(doing_);
  }
  {
    std::lock_guard lock{mutex_};
    doing_ = doing;
  }
  return change();
}

Worker::Connector& Worker::get(const std::string& name) {
  auto it = connectors_.find(name);
  if (it == connectors_.end())
    throw rest::not_found("Connector " + name + " not found");
  return *it->second;
}

namespace {

/// The offsets a source connector resumes from. With exactly-once, each task's
/// transactional id is fenced first (which aborts a dead predecessor's open
/// transaction), then the offsets topic, read committed, is the truth: it holds
/// exactly the offsets of the records that were committed. The state file only
/// fills in partitions the topic has never seen.
runtime::connector_api::OffsetMap resume_offsets(const engine::worker::ConnectorPlan& plan,
                                            const StringMap& worker,
                                            runtime::connector_api::OffsetMap stored,
                                            const std::vector<std::string>& transactional_ids) {
  if (!plan.exactly_once)
    return stored;
  auto props = engine::pipeline::task_client_props(plan.config, worker, "producer");
  runtime::kafka::create_topics(props, {{plan.offsets_topic, std::stoi(worker.at("offset.storage.partitions")),
                                         static_cast<int16_t>(std::stoi(worker.at("offset.storage.replication.factor")))}});
  for (const auto& id : transactional_ids) {
    auto p = props;
    p["transactional.id"] = id;
    runtime::kafka::Producer fence{p, {}};
    fence.init_transactions(60s);
  }
  auto committed = engine::pipeline::read_offsets_topic(props, plan.offsets_topic, plan.name);
  for (auto& [partition, offset] : committed)
    stored.insert_or_assign(partition, offset);
  return stored;
}

/// A task's id towards Kafka in a cluster, the same on every node: its producer's
/// transactional.id (Kafka Connect's naming, ${group.id}-${connector}-${task}) and its
/// consumer's group.instance.id.
std::string task_client_id(const StringMap& worker, const std::string& connector, size_t task) {
  return worker.at("group.id") + "-" + task_name(connector, task);
}

/// The partition count of a sink's topics, warning when tasks.max is above it
/// (the seed lesson's partition bottleneck); -1 when unknown (a regex, a topic not
/// created yet).
int32_t check_partitions(const engine::worker::ConnectorPlan& plan, const StringMap& worker) {
  auto topics = engine::pipeline::parse_sink_settings(plan.config, plan.sink->definition()).topics;
  if (topics.size() == 1 && topics[0].starts_with("^"))
    return -1;
  int32_t partitions = 0;
  for (const auto& t : topics) {
    auto n = runtime::kafka::partition_count({{"bootstrap.servers", worker.at("bootstrap.servers")}},
                                             t, 5s);
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

namespace {

/// Spawns one task; a task that cannot start (a missing table, an unreadable
/// file) is returned with its failure instead, and fails alone.
Task spawn_task(caf::actor_system& sys, const engine::worker::ConnectorPlan& plan, size_t t,
                const StringMap& task_config, const StringMap& worker,
                const runtime::connector_api::OffsetMap& stored, caf::actor observer,
                runtime::metrics::MetricsRegistry& metrics, bool cluster,
                std::shared_ptr<engine::pipeline::JoinGate> join_gate = nullptr) {
  Task task;
  auto id = static_cast<int>(t);
  try {
    if (plan.sink) {
      SinkTaskSpec spec{.connector = plan.name, .task = id, .plugin = plan.sink, .config = plan.config,
                        .worker_config = worker, .tasks = plan.tasks_max, .observer = observer};
      spec.metrics = &metrics;
      if (cluster) // one node runs each task: the cluster, not the group, decides who
        spec.group_instance_id = task_client_id(worker, plan.name, t);
      spec.join_gate = std::move(join_gate);
      auto spawned = spawn_sink_task(sys, spec);
      task.stages = std::move(spawned.stages);
      task.names = std::move(spawned.names);
      task.last_stage = task_name(plan.name, t) + "/sink";
    } else {
      SourceTaskSpec spec{plan.name, id, plan.source, task_config, worker, stored, {4, 8u << 20},
                          observer,
                          plan.exactly_once ? task_client_id(worker, plan.name, t) : std::string{},
                          plan.exactly_once ? plan.offsets_topic : std::string{}};
      spec.metrics = &metrics;
      auto spawned = spawn_source_task(sys, spec);
      task.stages = std::move(spawned.stages);
      task.names = std::move(spawned.names);
      task.offsets = spawned.offsets;
      task.last_stage = task_name(plan.name, t) + "/producer";
    }
  } catch (const std::exception& e) {
    task.failure = plan.scrub(e.what());
    spdlog::error("connector {} task {} failed to start: {}", plan.name, t, task.failure);
  }
  return task;
}

} // namespace

bool Worker::prepare(Connector& c) {
  const auto& plan = c.plan;
  std::vector<StringMap> configs;
  int32_t partitions = -1;
  std::string failure = c.plan_error;
  if (failure.empty()) {
    try {
      if (plan.sink)
        partitions = check_partitions(plan, options_.config);
      if (!options_.cluster) { // a cluster's leader makes them (task_configs_to_store)
        spawn_instance(c);
        auto made = make_tasks(c);
        if (!made.failure.empty())
          throw std::runtime_error(made.failure);
        configs = std::move(made.configs);
      }
    } catch (const std::exception& e) {
      failure = plan.scrub(e.what());
      spdlog::error("connector {} cannot make its tasks: {}", plan.name, failure);
    }
  }
  std::lock_guard lock{mutex_};
  if (!options_.cluster)
    c.task_configs = std::move(configs);
  c.partitions = partitions;
  c.failure = failure;
  c.topics_reset = false;
  state_.set_connector_status(plan.name, failure.empty() ? c.target : "FAILED");
  return failure.empty();
}

void Worker::start_tasks(Connector& c, const std::vector<size_t>& ids) {
  const auto& plan = c.plan;
  const auto& worker = options_.config;
  std::map<size_t, Task> started;
  std::string failure; // of them all: their stored offsets could not be read
  runtime::connector_api::OffsetMap stored;
  if (plan.source) {
    try {
      std::vector<std::string> transactional_ids;
      for (auto t : ids)
        if (plan.exactly_once)
          transactional_ids.push_back(task_client_id(worker, plan.name, t));
      stored = resume_offsets(plan, worker, stored_offsets(plan.name), transactional_ids);
    } catch (const std::exception& e) {
      failure = plan.scrub(e.what());
    }
  }
  auto join_gate = std::make_shared<engine::pipeline::JoinGate>(c.partitions);
  for (auto t : ids) {
    done_->forget(task_name(plan.name, t) + (plan.sink ? "/sink" : "/producer"));
    if (failure.empty())
      started[t] = spawn_task(sys_, plan, t, c.task_configs.at(t), worker, stored, observer_,
                              metrics_, options_.cluster, join_gate);
    else
      started[t].failure = failure;
  }
  std::lock_guard lock{mutex_};
  for (auto& [t, task] : started) {
    state_.set_task_status(plan.name, static_cast<int>(t), task.stages.empty() ? "FAILED" : "RUNNING",
                           task.failure);
    spdlog::info("task {} started (generation {})", task_name(plan.name, t), generation_);
    c.tasks[t] = std::move(task);
  }
}

void Worker::start_connector(Connector& c) {
  if (prepare(c)) {
    std::vector<size_t> all(c.task_configs.size());
    std::iota(all.begin(), all.end(), size_t{0});
    start_tasks(c, all);
  }
  spdlog::info("connector {} started with {} task(s)", c.plan.name, c.tasks.size());
}

void Worker::use_task_configs(Connector& c, std::vector<StringMap> next) {
  std::set<size_t> changed; // running tasks whose config changed or is gone
  for (const auto& [t, task] : c.tasks)
    if (t >= next.size() || t >= c.task_configs.size() || next[t] != c.task_configs[t])
      changed.insert(t);
  if (!changed.empty()) {
    spdlog::info("connector {}: {} task(s) restart with new task configs", c.plan.name, changed.size());
    drain_tasks(c, changed);
  }
  std::lock_guard lock{mutex_};
  c.task_configs = std::move(next);
}

void Worker::spawn_instance(Connector& c) {
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

MadeTasks Worker::make_tasks(Connector& c) {
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

void Worker::start_missing_tasks(Connector& c) {
  std::vector<size_t> start;
  for (size_t t = 0; t < c.task_configs.size(); ++t)
    if (!c.tasks.count(t))
      start.push_back(t);
  if (!start.empty())
    start_tasks(c, start);
}

void Worker::apply_reconfigurations() {
  {
    std::lock_guard lock{reconfigurations_->mutex};
    if (reconfigurations_->pending.empty())
      return;
  }
  std::unique_lock changes{changes_, std::try_to_lock};
  if (!changes)
    return; // a change is in progress: next tick
  decltype(reconfigurations_->pending) pending;
  {
    std::lock_guard lock{reconfigurations_->mutex};
    pending.swap(reconfigurations_->pending);
  }
  for (auto& [name, reported] : pending) {
    auto it = connectors_.find(name);
    if (it == connectors_.end() || it->second->instances != reported.first)
      continue; // deleted, or an instance that has ended since
    auto& c = *it->second;
    if (options_.cluster) { // the leader stores them (store_task_configs)
      std::lock_guard lock{mutex_};
      c.made = std::move(reported.second);
      reconfigured_ = true;
    } else if (c.target == "RUNNING" && c.failure.empty()) {
      {
        std::lock_guard lock{mutex_};
        doing_ = "reconfiguring the tasks of connector " + name;
      }
      use_task_configs(c, std::move(reported.second));
      start_missing_tasks(c);
    }
  }
}

void Worker::flush_offsets(Connector& c) {
  for (auto& [id, t] : c.tasks)
    if (t.offsets)
      store_offsets(c.plan, t.offsets->take_changes());
}

std::vector<std::string> Worker::ask_to_drain(Connector& c, const std::optional<std::set<size_t>>& only) {
  std::vector<std::string> waiting;
  auto stages = metrics_.snapshot(c.plan.name);
  for (auto& [i, t] : c.tasks) {
    // A task that never started, finished or failed has nothing to drain (a
    // failed stage holds the batch it failed on: nothing past it may be
    // committed). Its actors just end.
    if ((only && !only->count(i)) || t.stages.empty() || done_->has(t.last_stage)
        || task_figures(t, static_cast<int>(i), stages).state == "FAILED")
      continue;
    caf::anon_send(t.stages.front(), stop_atom::value);
    waiting.push_back(t.last_stage);
  }
  return waiting;
}

std::vector<caf::actor> Worker::end_tasks(Connector& c, const std::optional<std::set<size_t>>& only) {
  std::vector<caf::actor> ended;
  for (auto it = c.tasks.begin(); it != c.tasks.end();) {
    auto& [id, t] = *it;
    if (only && !only->count(id)) {
      ++it;
      continue;
    }
    // Every drained source task reported its last delivery before its done.
    if (t.offsets)
      store_offsets(c.plan, t.offsets->take_changes());
    for (auto& stage : t.stages) {
      caf::anon_send_exit(stage, caf::exit_reason::user_shutdown);
      ended.push_back(stage);
    }
    spdlog::info("task {} stopped (generation {})", task_name(c.plan.name, id), generation_);
    it = c.tasks.erase(it);
  }
  return ended;
}

void Worker::await_exit(std::vector<caf::actor> actors) {
  if (actors.empty())
    return;
  caf::scoped_actor self{sys_};
  for (const auto& a : actors)
    self->monitor(a);
  auto left = actors.size();
  // Handles keep detached actors' threads alive: drop ours before waiting.
  actors.clear();
  auto until = Clock::now() + 15s;
  while (left > 0 && Clock::now() < until)
    self->receive([&](const caf::down_msg&) { --left; },
                  caf::after(std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()))
                    >> [] {});
  if (left > 0)
    spdlog::warn("{} stage actor(s) still ending after 15 s", left);
}

void Worker::drain_tasks(Connector& c, const std::optional<std::set<size_t>>& only) {
  std::vector<std::string> waiting;
  {
    std::lock_guard lock{mutex_};
    waiting = ask_to_drain(c, only);
    // A request that waits behind this change says which stages hold it up.
    if (!waiting.empty()) {
      std::string stages;
      for (const auto& s : waiting)
        stages += (stages.empty() ? "" : ", ") + s;
      doing_ += " (waiting for " + stages + " to write what they hold and commit)";
    }
  }
  auto late = done_->wait(waiting, Clock::now() + options_.graceful_timeout);
  for (const auto& stage : late)
    spdlog::warn("connector {}: {} did not drain within {} ms (task.shutdown.graceful.timeout.ms); "
                 "ending it: records it had not committed will be delivered again",
                 c.plan.name, stage, options_.graceful_timeout.count());
  std::vector<caf::actor> ending;
  {
    std::lock_guard lock{mutex_};
    ending = end_tasks(c, only);
  }
  // Their consumers leave the group as the actors end: only then is a stopped
  // connector's group empty (its offsets can be altered) and its tasks' partitions
  // free for whoever takes them next.
  await_exit(std::move(ending));
}

void Worker::restart_one(Connector& c, size_t i) {
  const auto& plan = c.plan;
  std::vector<caf::actor> old;
  runtime::connector_api::OffsetMap stored;
  {
    std::lock_guard lock{mutex_};
    auto& t = c.tasks.at(i);
    if (t.offsets)
      store_offsets(plan, t.offsets->take_changes());
    old = t.stages;
    t.stages.clear();
    t.failure = "restarting";
  }
  if (plan.source)
    stored = stored_offsets(plan.name);
  for (auto& stage : old)
    caf::anon_send_exit(stage, caf::exit_reason::user_shutdown);
  old.clear();
  Task task;
  try {
    if (plan.source)
      stored = resume_offsets(plan, options_.config, std::move(stored),
                              plan.exactly_once
                                ? std::vector{task_client_id(options_.config, plan.name, i)}
                                : std::vector<std::string>{});
    // The new stages start from fresh statistics, not the failed ones.
    for (const auto& s : metrics_.snapshot(plan.name))
      if (s.key.task == static_cast<int>(i)) {
        StageStats fresh;
        fresh.name = s.stats.name;
        fresh.kind = s.stats.kind;
        fresh.state = "RUNNING";
        metrics_.cell(s.key, s.role)->publish(fresh);
      }
    done_->forget(c.tasks.at(i).last_stage);
    task = spawn_task(sys_, plan, i, c.task_configs[i], options_.config, stored, observer_,
                      metrics_, options_.cluster);
  } catch (const std::exception& e) {
    task.failure = e.what();
  }
  std::lock_guard lock{mutex_};
  auto& slot = c.tasks.at(i);
  task.restarts = slot.restarts;
  slot = std::move(task);
  state_.set_task_status(plan.name, static_cast<int>(i), slot.stages.empty() ? "FAILED" : "RUNNING",
                         slot.failure);
  spdlog::info("connector {} task {} restarted", plan.name, i);
}

// --- source offsets: in the state file, or in a node's offsets topic

runtime::kafka::Producer& Worker::offsets_producer() {
  if (!offsets_producer_) {
    auto props = engine::pipeline::task_client_props({}, options_.config, "producer");
    offsets_producer_ = std::make_unique<runtime::kafka::Producer>(
      props, [topic = options_.offsets_topic](uint64_t, size_t, size_t failed, const std::string& error) {
        if (failed > 0)
          spdlog::error("{} source offset(s) could not be written to {}: {}", failed, topic, error);
      });
  }
  return *offsets_producer_;
}

void Worker::store_offsets(const engine::worker::ConnectorPlan& plan,
                           const runtime::connector_api::OffsetMap& put,
                           const std::vector<std::string>& erase, bool by_request) {
  if (options_.offsets_topic.empty()) {
    state_.put_source_offsets(plan.name, put);
    if (!erase.empty())
      state_.delete_source_offsets(plan.name, erase);
    return;
  }
  // An exactly-once task writes its offsets in its own transactions.
  if ((plan.exactly_once && !by_request) || (put.empty() && erase.empty()))
    return;
  weir::Batch batch;
  for (const auto& [partition, offset] : put)
    batch.append(options_.offsets_topic, -1, -1, -1,
                 engine::pipeline::offset_record_key(plan.name, partition), offset);
  for (const auto& partition : erase)
    batch.append(options_.offsets_topic, -1, -1, -1,
                 engine::pipeline::offset_record_key(plan.name, partition), std::nullopt);
  offsets_producer().produce(batch, 0);
}

runtime::connector_api::OffsetMap Worker::stored_offsets(const std::string& connector) {
  if (options_.offsets_topic.empty()) {
    std::lock_guard lock{mutex_};
    return state_.source_offsets(connector);
  }
  {
    std::lock_guard lock{mutex_};
    if (offsets_producer_ && !offsets_producer_->flush(10s))
      spdlog::warn("source offsets of {} not all written to {} within 10 s", connector,
                   options_.offsets_topic);
  }
  auto props = engine::pipeline::task_client_props({}, options_.config, "consumer");
  return engine::pipeline::read_offsets_topic(props, options_.offsets_topic, connector);
}

// --- upkeep

void Worker::tick() {
  auto now = Clock::now();
  auto flush_every = std::chrono::milliseconds{std::stoll(options_.config.at("offset.flush.interval.ms"))};
  {
    std::lock_guard lock{mutex_};
    if (now - last_flush_ >= flush_every) {
      last_flush_ = now;
      for (auto& [name, c] : connectors_)
        flush_offsets(*c);
    }
    if (offsets_producer_)
      offsets_producer_->poll(0ms);
  }
  sample_rates();
  restart_failed_tasks();
  apply_reconfigurations();
}

void Worker::sample_rates() {
  std::lock_guard lock{mutex_};
  rates_.sample(metrics_.snapshot(), Clock::now(), runtime::metrics::SchedulerMeter::now_ns());
  if (node_sampler_.sample())
    judge_tasks();
}

void Worker::judge_tasks() {
  verdicts_.clear();
  const auto& scheduler = node_sampler_.figures().verdict;
  for (const auto& [name, c] : connectors_) {
    auto stages = metrics_.snapshot(name);
    for (const auto& [t, task] : c->tasks) {
      int id = static_cast<int>(t);
      std::vector<runtime::metrics::StageFigures> figures;
      for (const auto& stage_name : task.names)
        for (const auto& s : stages)
          if (s.key.task == id && s.key.stage == stage_name) {
            figures.push_back({stage_name, kind_in_words(c->plan, s.role, stage_name), s.role,
                               rates_.of(s.key), s.stats.lag});
          }
      verdicts_[{name, id}] = runtime::metrics::task_verdict(figures, scheduler);
    }
  }
}

// A task that gave up ends its stages, keeping the failure for its status: a sink
// task's consumer leaves the group, so its partitions go to the running tasks
// instead of waiting for a restart that may never come.
namespace {
void give_up(const std::string& connector, Task& t, int id, const std::vector<StageSnapshot>& stages) {
  t.failure = task_figures(t, id, stages).trace;
  for (auto& stage : t.stages)
    caf::anon_send_exit(stage, caf::exit_reason::user_shutdown);
  t.stages.clear();
  spdlog::info("task {} ended its stages after giving up: its partitions go to the running tasks",
               task_name(connector, static_cast<size_t>(id)));
}
} // namespace

void Worker::restart_failed_tasks() {
  std::unique_lock changes{changes_, std::try_to_lock};
  if (!changes)
    return; // a change is in progress: next tick
  std::vector<std::pair<Connector*, size_t>> due;
  auto now = Clock::now();
  {
    std::lock_guard lock{mutex_};
    doing_ = "restarting failed tasks";
    for (auto& [name, c] : connectors_) {
      if (c->target != "RUNNING")
        continue;
      auto stages = metrics_.snapshot(name);
      for (auto& [i, t] : c->tasks) {
        if (t.gave_up || task_figures(t, static_cast<int>(i), stages).state != "FAILED")
          continue;
        if (!t.restart_at) {
          if (t.restarts >= options_.restart_max_attempts) {
            t.gave_up = true;
            if (options_.restart_max_attempts > 0)
              spdlog::error("connector {} task {}: still FAILED after {} automatic restart(s); "
                            "restart it through the REST API once the cause is fixed",
                            name, i, t.restarts);
            give_up(name, t, static_cast<int>(i), stages);
            continue;
          }
          auto backoff = std::min(options_.restart_backoff * (1 << std::min(t.restarts, 20)),
                                  options_.restart_backoff_max);
          t.restart_at = now + backoff;
          spdlog::warn("connector {} task {} FAILED; automatic restart {} of {} in {} ms", name, i,
                       t.restarts + 1, options_.restart_max_attempts, backoff.count());
        } else if (now >= *t.restart_at) {
          due.emplace_back(c.get(), i);
        }
      }
    }
  }
  for (auto [c, i] : due) {
    restart_one(*c, i);
    std::lock_guard lock{mutex_};
    c->tasks.at(i).restarts += 1;
  }
}

std::vector<std::string> Worker::progress(double interval) {
  std::vector<std::string> lines;
  std::lock_guard lock{mutex_};
  for (auto& [name, cp] : connectors_) {
    auto& c = *cp;
    if (c.target != "RUNNING") {
      state_.set_connector_status(name, c.target);
      continue;
    }
    uint64_t written = 0, errors = 0;
    int64_t lag = 0;
    int idle = 0, failed = 0, finished = 0, waiting = 0;
    std::string waiting_since; // the earliest task's "waiting for the broker since ..."
    auto status = status_of(c);
    auto stages = metrics_.snapshot(name);
    for (const auto& [t, task] : c.tasks) {
      auto f = task_figures(task, static_cast<int>(t), stages);
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
    for (const auto& shown : status.tasks)
      state_.set_task_status(name, shown.id, shown.state.state, shown.state.trace);
    state_.set_connector_status(name, status.connector.state);
    written = std::max(written, c.last_written);
    double rate = static_cast<double>(written - c.last_written) / (interval > 0 ? interval : 1);
    c.last_written = written;
    char line[512];
    if (c.plan.source)
      std::snprintf(line, sizeof line,
                    "[%s] %.0f records/s | records produced %llu | errors %llu | tasks %zu "
                    "(%d finished, %d failed)",
                    name.c_str(), rate, static_cast<unsigned long long>(written),
                    static_cast<unsigned long long>(errors), c.tasks.size(), finished, failed);
    else
      std::snprintf(line, sizeof line,
                    "[%s] %.0f records/s | consumer lag %lld | records written %llu | errors %llu | "
                    "tasks %zu (%d idle, %d failed)",
                    name.c_str(), rate, static_cast<long long>(lag),
                    static_cast<unsigned long long>(written), static_cast<unsigned long long>(errors),
                    c.tasks.size(), idle, failed);
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
                      + std::to_string(c.tasks.size()) + " task(s))");
  }
  return lines;
}

size_t Worker::shutdown(std::chrono::milliseconds timeout) {
  std::lock_guard changes{changes_};
  std::vector<std::string> waiting;
  {
    std::lock_guard lock{mutex_};
    doing_ = "stopping";
    for (auto& [name, c] : connectors_) {
      auto more = ask_to_drain(*c, std::nullopt);
      waiting.insert(waiting.end(), more.begin(), more.end());
    }
  }
  auto late = done_->wait(waiting, Clock::now() + timeout);
  std::lock_guard lock{mutex_};
  for (auto& [name, c] : connectors_) {
    for (const auto& [t, task] : c->tasks)
      state_.set_task_status(name, static_cast<int>(t), "UNASSIGNED", "");
    end_tasks(*c, std::nullopt);
    state_.set_connector_status(name, "UNASSIGNED");
  }
  if (offsets_producer_ && !offsets_producer_->flush(5s))
    spdlog::warn("source offsets not all written to {} within 5 s", options_.offsets_topic);
  return late.size();
}

// --- status

rest::ConnectorStatus Worker::status_of(const Connector& c) const {
  rest::ConnectorStatus status;
  status.name = c.plan.name;
  status.type = c.plan.type();
  status.connector = {c.failure.empty() ? c.target : "FAILED", options_.worker_id, c.failure};
  if (c.target == "STOPPED")
    return status; // Kafka Connect lists no tasks of a stopped connector
  if (c.target == "PAUSED") {
    for (size_t t = 0; t < c.task_configs.size(); ++t)
      status.tasks.push_back({static_cast<int>(t), {"PAUSED", options_.worker_id, ""}});
    return status;
  }
  auto stages = metrics_.snapshot(c.plan.name);
  for (const auto& [t, task] : c.tasks) {
    auto f = task_figures(task, static_cast<int>(t), stages);
    if (f.state == "FAILED" && task.restart_at && !task.gave_up)
      f.trace += "\n[weir] automatic restart " + std::to_string(task.restarts + 1) + " of "
                 + std::to_string(options_.restart_max_attempts) + " is scheduled";
    else if (f.state == "FAILED" && task.gave_up && task.restarts > 0)
      f.trace += "\n[weir] gave up after " + std::to_string(task.restarts)
                 + " automatic restart(s) (task.restart.max.attempts)";
    else if (f.state == "RUNNING" && task.restart_at && !task.gave_up)
      f.trace = "restarting: automatic restart " + std::to_string(task.restarts + 1) + " of "
                + std::to_string(options_.restart_max_attempts) + " is under way";
    else if (f.state == "RUNNING" && !f.waiting.empty())
      // Kafka Connect has no such state: RUNNING stays, for its clients, with the reason.
      f.trace = f.waiting + "; it resumes by itself once the broker answers";
    else if (c.plan.sink && f.state == "RUNNING" && f.partitions == 0)
      f.trace = idle_trace(c.plan.tasks_max, c.partitions, f);
    else if (c.plan.source && f.state == "RUNNING" && !f.idle_reason.empty())
      f.trace = "idle: " + f.idle_reason;
    std::string bottleneck;
    if (auto v = verdicts_.find({c.plan.name, static_cast<int>(t)}); v != verdicts_.end() && f.state == "RUNNING")
      bottleneck = v->second.text;
    status.tasks.push_back({static_cast<int>(t), {f.state, options_.worker_id, c.plan.scrub(f.trace)}, bottleneck});
  }
  return status;
}

rest::ServerInfo Worker::server_info(Deadline deadline) {
  return {WEIR_VERSION, std::string{engine::worker::build_commit()}, kafka_cluster_id(deadline)};
}

std::string Worker::kafka_cluster_id(Deadline deadline) {
  std::lock_guard lock{cluster_id_mutex_};
  if (!cluster_id_.empty())
    return cluster_id_; // a cluster's id never changes: asked once
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  try {
    cluster_id_ = runtime::kafka::cluster_id(
      engine::pipeline::task_client_props({}, options_.config, "admin"), std::clamp(left, 0ms, 5000ms));
  } catch (const std::exception& e) {
    spdlog::warn("GET /: no kafka_cluster_id yet: {}", e.what());
  }
  return cluster_id_;
}

void Worker::health_check(Deadline deadline) {
  while (!ready_) {
    if (Clock::now() >= deadline)
      throw rest::RequestTimeout("starting up");
    std::this_thread::sleep_for(10ms);
  }
  serialized("checking health", deadline, [] {});
}

std::vector<std::string> Worker::connectors(Deadline) {
  std::lock_guard lock{mutex_};
  std::vector<std::string> names;
  for (const auto& [name, c] : connectors_)
    names.push_back(name);
  return names;
}

rest::ConnectorInfo Worker::connector_info(const std::string& name, Deadline) {
  std::lock_guard lock{mutex_};
  const auto& c = get(name);
  // As written: provider references are shown raw, literal passwords hidden.
  rest::ConnectorInfo info{name, c.plan.raw, {}, c.plan.type(), c.plan.password_keys};
  if (c.target != "STOPPED")
    for (size_t t = 0; t < c.task_configs.size(); ++t)
      info.tasks.push_back({name, static_cast<int>(t)});
  return info;
}

rest::ConnectorStatus Worker::connector_status(const std::string& name, Deadline) {
  std::lock_guard lock{mutex_};
  return status_of(get(name));
}

rest::TaskState Worker::task_status(const rest::TaskId& id, Deadline) {
  std::lock_guard lock{mutex_};
  auto status = status_of(get(id.connector));
  for (const auto& t : status.tasks)
    if (t.id == id.task)
      return t;
  throw rest::not_found("Task " + task_name(id.connector, static_cast<size_t>(id.task)) + " not found");
}

std::vector<rest::TaskInfo> Worker::task_configs(const std::string& name, Deadline) {
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

// --- changes

rest::Created Worker::put_connector_config(const std::string& name, const rest::ConfigMap& config,
                                           std::optional<rest::InitialState> initial_state,
                                           bool allow_replace, Deadline deadline) {
  return serialized("writing the config of connector " + name, deadline, [&] {
    rest::throw_if_invalid(engine::worker::validate_connector(config, options_.config));
    auto plan = engine::worker::plan_connector(name, config, options_.config);
    Connector* c = nullptr;
    bool created = false;
    {
      std::lock_guard lock{mutex_};
      auto it = connectors_.find(name);
      if (it != connectors_.end() && !allow_replace)
        throw rest::already_exists("Connector " + name + " already exists");
      if (it == connectors_.end()) {
        auto fresh = std::make_unique<Connector>();
        fresh->plan = plan;
        if (initial_state == rest::InitialState::paused)
          fresh->target = "PAUSED";
        if (initial_state == rest::InitialState::stopped)
          fresh->target = "STOPPED";
        c = connectors_.emplace(name, std::move(fresh)).first->second.get();
        created = true;
      } else {
        c = it->second.get();
      }
      state_.put_connector(name, plan.raw);
    }
    if (!created) {
      drain_tasks(*c);
      std::lock_guard lock{mutex_};
      c->plan = std::move(plan);
    }
    if (c->target == "RUNNING")
      start_connector(*c);
    else {
      std::lock_guard lock{mutex_};
      state_.set_connector_status(name, c->target);
    }
    spdlog::info("connector {} {} ({})", name, created ? "created" : "reconfigured", c->target);
    return rest::Created{created, connector_info(name, deadline)};
  });
}

rest::Created Worker::patch_connector_config(const std::string& name, const rest::ConfigPatch& patch,
                                             Deadline deadline) {
  rest::ConfigMap config;
  {
    std::lock_guard lock{mutex_};
    config = rest::apply_config_patch(get(name).plan.raw, patch);
  }
  config["name"] = name;
  return put_connector_config(name, config, std::nullopt, true, deadline);
}

void Worker::delete_connector(const std::string& name, Deadline deadline) {
  serialized("deleting connector " + name, deadline, [&] {
    Connector* c = nullptr;
    {
      std::lock_guard lock{mutex_};
      c = &get(name);
    }
    drain_tasks(*c);
    std::lock_guard lock{mutex_};
    connectors_.erase(name);
    metrics_.remove_connector(name);
    rates_.forget(name);
    state_.delete_connector(name);
    spdlog::info("connector {} deleted", name);
  });
}

void Worker::restart_instance(Connector& c) {
  // Kafka Connect's restart of the connector alone: it makes its task configs
  // again; only tasks whose config changed restart (new ones start, surplus ones
  // stop).
  if (c.target != "RUNNING")
    return;
  if (options_.cluster) { // the leader makes them on its next look (task_configs_to_store)
    if (c.instance)
      spawn_instance(c);
    std::lock_guard lock{mutex_};
    c.made.reset();
    c.failure = c.plan_error;
    return;
  }
  if (!c.failure.empty()) {
    start_connector(c);
    return;
  }
  spawn_instance(c);
  auto made = make_tasks(c);
  if (!made.failure.empty()) {
    std::lock_guard lock{mutex_};
    c.failure = made.failure;
    state_.set_connector_status(c.plan.name, "FAILED");
    spdlog::error("connector {} cannot make its tasks: {}", c.plan.name, c.failure);
    return;
  }
  use_task_configs(c, std::move(made.configs));
  start_missing_tasks(c);
  spdlog::info("connector {} restarted", c.plan.name);
}

void Worker::restart_connector(const std::string& name, Deadline deadline) {
  serialized("restarting connector " + name, deadline, [&] {
    Connector* c = nullptr;
    {
      std::lock_guard lock{mutex_};
      c = &get(name);
    }
    restart_instance(*c);
  });
}

rest::ConnectorStatus Worker::restart_connector_and_tasks(const rest::RestartRequest& request,
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
      for (auto& t : status.tasks)
        if (request.include_tasks && (!request.only_failed || t.state.state == "FAILED")) {
          t.state.state = "RESTARTING";
          t.state.trace.clear();
          if (c->target == "RUNNING" && c->tasks.count(static_cast<size_t>(t.id)))
            restart.push_back(static_cast<size_t>(t.id));
        }
    }
    bool all_started = c->target == "RUNNING" && !c->failure.empty(); // the instance starts every task
    if (instance)
      restart_instance(*c);
    if (!all_started)
      for (auto i : restart) {
        if (!c->tasks.count(i)) // stopped: its connector makes fewer tasks now
          continue;
        restart_one(*c, i);
        std::lock_guard lock{mutex_};
        c->tasks.at(i).restarts = 0;
      }
    return status;
  });
}

void Worker::restart_task(const rest::TaskId& id, rest::Forward, Deadline deadline) {
  serialized("restarting task " + task_name(id.connector, static_cast<size_t>(id.task)), deadline, [&] {
    Connector* c = nullptr;
    {
      std::lock_guard lock{mutex_};
      c = &get(id.connector);
      if (id.task < 0 || !c->tasks.count(static_cast<size_t>(id.task)))
        throw rest::not_found("Task " + task_name(id.connector, static_cast<size_t>(id.task))
                              + " not found");
    }
    restart_one(*c, static_cast<size_t>(id.task));
    std::lock_guard lock{mutex_};
    c->tasks.at(static_cast<size_t>(id.task)).restarts = 0;
  });
}

void Worker::pause_connector(const std::string& name, Deadline deadline) {
  serialized("pausing connector " + name, deadline, [&] {
    Connector* c = nullptr;
    {
      std::lock_guard lock{mutex_};
      c = &get(name);
    }
    if (c->target == "PAUSED")
      return;
    // A paused task keeps no actors: it drains, commits and ends, and starts
    // again from its committed offsets on resume.
    drain_tasks(*c);
    std::lock_guard lock{mutex_};
    c->target = "PAUSED";
    state_.set_connector_status(name, "PAUSED");
    spdlog::info("connector {} paused", name);
  });
}

void Worker::resume_connector(const std::string& name, Deadline deadline) {
  serialized("resuming connector " + name, deadline, [&] {
    Connector* c = nullptr;
    {
      std::lock_guard lock{mutex_};
      c = &get(name);
      if (c->target == "RUNNING")
        return;
      c->target = "RUNNING";
    }
    start_connector(*c);
  });
}

void Worker::stop_connector(const std::string& name, Deadline deadline) {
  serialized("stopping connector " + name, deadline, [&] {
    Connector* c = nullptr;
    {
      std::lock_guard lock{mutex_};
      c = &get(name);
    }
    drain_tasks(*c);
    std::lock_guard lock{mutex_};
    c->target = "STOPPED";
    c->failure.clear();
    c->instance = {};
    state_.set_connector_status(name, "STOPPED");
    spdlog::info("connector {} stopped", name);
  });
}

// --- offsets

std::vector<rest::ConnectorOffset> Worker::connector_offsets(const std::string& name, Deadline deadline) {
  engine::worker::ConnectorPlan plan;
  {
    std::lock_guard lock{mutex_};
    plan = get(name).plan;
  }
  if (plan.source) {
    std::vector<rest::ConnectorOffset> out;
    for (const auto& [partition, offset] : stored_offsets(name))
      out.push_back({partition, offset});
    return out;
  }
  // A sink's offsets are its consumer group's, asked of the cluster without a lock.
  auto props = engine::pipeline::task_client_props(plan.config, options_.config, "admin");
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

std::string Worker::alter_connector_offsets(const std::string& name,
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
        store_offsets(c.plan, put, erase, true);
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
    auto props = engine::pipeline::task_client_props(config, options_.config, "admin");
    while_group_settles([&] {
      runtime::kafka::alter_group_offsets(props, "connect-" + name, commit, 30s);
      runtime::kafka::delete_group_offsets(props, "connect-" + name, forget, 30s);
    }, deadline);
    return done;
  });
}

std::string Worker::reset_connector_offsets(const std::string& name, Deadline deadline) {
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
      for (const auto& [partition, offset] : stored_offsets(name))
        all.push_back(partition);
      std::lock_guard lock{mutex_};
      store_offsets(plan, {}, all, true);
      return done;
    }
    auto props = engine::pipeline::task_client_props(config, options_.config, "admin");
    while_group_settles([&] {
      std::vector<runtime::kafka::TopicPartition> all;
      for (const auto& o : runtime::kafka::group_offsets(props, "connect-" + name, 30s))
        all.push_back({o.topic, o.partition});
      runtime::kafka::delete_group_offsets(props, "connect-" + name, all, 30s);
    }, deadline);
    return done;
  });
}

std::vector<std::string> Worker::connector_active_topics(const std::string& name, Deadline) {
  std::lock_guard lock{mutex_};
  const auto& c = get(name);
  if (c.topics_reset || c.target != "RUNNING" || !c.plan.sink)
    return {};
  auto topics = engine::pipeline::parse_sink_settings(c.plan.config, c.plan.sink->definition()).topics;
  if (topics.size() == 1 && topics[0].starts_with("^"))
    return {};
  return topics;
}

void Worker::reset_connector_active_topics(const std::string& name, Deadline) {
  std::lock_guard lock{mutex_};
  get(name).topics_reset = true;
}

// --- plugins, loggers

std::vector<rest::PluginInfo> Worker::plugins(Deadline) { return engine::worker::plugin_infos(); }

std::vector<rest::ConfigKeyInfo> Worker::plugin_config(const std::string& plugin, Deadline) {
  return engine::worker::plugin_config(plugin);
}

rest::ConfigInfos Worker::validate_connector_config(const rest::ConfigMap& config, Deadline) {
  return engine::worker::validate_connector(config, options_.config);
}

std::map<std::string, rest::LoggerLevel> Worker::logger_levels(Deadline) { return loggers_.all(); }

std::optional<rest::LoggerLevel> Worker::logger_level(const std::string& name, Deadline) {
  return loggers_.get(name);
}

std::vector<std::string> Worker::set_worker_logger_level(const std::string& name,
                                                         const std::string& level, Deadline) {
  return loggers_.set(name, level);
}

void Worker::set_cluster_logger_level(const std::string& name, const std::string& level, Deadline) {
  loggers_.set(name, level); // one worker is the whole cluster
}

// --- weir's own

rest::ActorTree Worker::actor_tree(const std::optional<std::string>& connector, Deadline) {
  std::lock_guard lock{mutex_};
  rest::TreeNode node{options_.worker_id, true, {}, node_sampler_.figures()};
  for (const auto& [name, c] : connectors_) {
    if (connector && name != *connector)
      continue;
    auto status = status_of(*c);
    rest::TreeConnector tc{name, c->plan.type(), status.connector, {}};
    if (c->instance)
      tc.instance = rest::TreeInstance{c->instance.get().id(), c->instances - 1};
    auto stages = metrics_.snapshot(name);
    for (const auto& ts : status.tasks) {
      rest::TreeTask task{ts.id, ts.state, {}};
      if (auto v = verdicts_.find({name, ts.id}); v != verdicts_.end() && ts.state.state == "RUNNING") {
        task.bottleneck = v->second.text;
        task.bottleneck_stage = v->second.stage;
      }
      auto here = c->tasks.find(static_cast<size_t>(ts.id));
      const Task* running = here == c->tasks.end() ? nullptr : &here->second;
      for (const auto& stage_name : running ? running->names : std::vector<std::string>{})
        for (const auto& s : stages)
          if (s.key.task == ts.id && s.key.stage == stage_name) {
            rest::TreeStage stage{stage_name, role_name(s.role), s.stats};
            stage.stats.last_error = c->plan.scrub(stage.stats.last_error);
            stage.rates = rates_.of(s.key);
            if (!task.stages.empty())
              stage.upstream_wait = task.stages.back().rates.credit_wait;
            if (!s.stats.poll_to_ack.counts.empty()) { // the task's consumer or producer
              task.poll_to_ack_p50 = stage.rates.poll_to_ack_p50;
              task.poll_to_ack_p99 = stage.rates.poll_to_ack_p99;
            }
            task.stages.push_back(std::move(stage));
          }
      tc.tasks.push_back(std::move(task));
    }
    node.connectors.push_back(std::move(tc));
  }
  if (connector && node.connectors.empty())
    throw rest::not_found("Connector " + *connector + " not found");
  return {{std::move(node)}};
}

std::string Worker::metrics_text(Deadline) {
  auto stages = metrics_.snapshot();
  auto text = runtime::metrics::render_prometheus(stages);
  std::lock_guard lock{mutex_};
  text += runtime::metrics::render_interval_metrics(stages, rates_.all(), node_sampler_.figures());
  runtime::metrics::WorkerFigures worker{connectors_.size(), 0, generation_, rebalances_};
  for (const auto& [name, c] : connectors_)
    worker.tasks += c->tasks.size();
  if (rebalances_ > 0)
    worker.since_last_rebalance_ms = std::chrono::duration<double, std::milli>(Clock::now() - last_rebalance_).count();
  return text + runtime::metrics::render_worker_metrics(worker);
}

void Worker::tap(const rest::TaskId& id, const std::string& stage, int count, rest::Forward,
                 Deadline deadline, rest::TapSink& sink) {
  caf::actor target;
  {
    std::lock_guard lock{mutex_};
    const auto& c = get(id.connector);
    auto name = task_name(id.connector, static_cast<size_t>(std::max(id.task, 0)));
    auto task = c.tasks.find(static_cast<size_t>(id.task));
    if (id.task < 0 || task == c.tasks.end())
      throw rest::not_found("Task " + name + " not found" + (c.target != "RUNNING" ? " (the connector is " + c.target + ")" : std::string{}));
    const auto& names = task->second.names;
    auto at = std::find(names.begin(), names.end(), stage);
    if (at == names.end())
      throw rest::not_found("Stage " + stage + " not found in task " + name);
    // The reader (consumer or poller) and a source's producer pass raw or
    // encoded batches: the decoded records are seen at the SMTs and the sink.
    if (at == names.begin() || (c.plan.source && at + 1 == names.end()))
      throw rest::bad_request("Stage " + stage + " of task " + name + " cannot be tapped: tap an SMT "
                              "stage or the sink (" + [&] {
                                std::string list;
                                for (auto it = names.begin() + 1; it != names.end() - (c.plan.source ? 1 : 0); ++it)
                                  list += (list.empty() ? "" : ", ") + *it;
                                return list.empty() ? std::string{"none in this task"} : list;
                              }() + ")");
    target = task->second.stages.at(static_cast<size_t>(at - names.begin()));
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

// --- cluster mode

void Worker::apply_configs(const runtime::cluster::ClusterConfig& cluster) {
  const auto& configs = cluster.connectors;
  const auto& target_states = cluster.target_states;
  std::lock_guard changes{changes_};
  {
    std::lock_guard lock{mutex_};
    doing_ = "applying the cluster's connector configs";
  }
  std::vector<std::string> deleted;
  for (const auto& [name, c] : connectors_)
    if (!configs.count(name))
      deleted.push_back(name);
  for (const auto& name : deleted) {
    drain_tasks(*connectors_.at(name));
    std::lock_guard lock{mutex_};
    connectors_.erase(name);
    metrics_.remove_connector(name);
    rates_.forget(name);
    spdlog::info("connector {} deleted", name);
  }
  for (const auto& [name, raw] : configs) {
    auto target_it = target_states.find(name);
    auto target = target_it == target_states.end() ? std::string{"RUNNING"} : target_it->second;
    auto it = connectors_.find(name);
    Connector* c = it == connectors_.end() ? nullptr : it->second.get();
    if (!c || c->plan.raw != raw) {
      if (c)
        drain_tasks(*c);
      engine::worker::ConnectorPlan plan;
      std::string error;
      try {
        plan = engine::worker::plan_connector(name, raw, options_.config);
      } catch (const std::exception& e) {
        plan.name = name;
        plan.raw = raw;
        error = e.what();
        spdlog::error("connector {}: {}", name, error);
      }
      {
        std::lock_guard lock{mutex_};
        if (!c)
          c = connectors_.emplace(name, std::make_unique<Connector>()).first->second.get();
        c->plan = std::move(plan);
        c->plan_error = error;
        c->failure.clear();
        c->target = target;
        c->made.reset();
        c->instance = {}; // the leader's next look spawns one for the new config
      }
      prepare(*c);
      spdlog::info("connector {} configured ({})", name, target);
    }
    if (c->target != target) {
      if (target != "RUNNING")
        drain_tasks(*c);
      std::lock_guard lock{mutex_};
      c->target = target;
      if (target == "STOPPED") { // a stopped connector has no instance; resumed, it makes them again
        c->made.reset();
        c->instance = {};
      }
      spdlog::info("connector {} is {}", name, target);
    }
    // The task configs the leader stored: a task whose config changed restarts.
    std::vector<StringMap> next;
    if (auto stored = cluster.task_configs.find(name); stored != cluster.task_configs.end())
      for (const auto& task : stored->second)
        next.push_back(c->plan.task_config_from_store(task));
    if (next != c->task_configs)
      use_task_configs(*c, std::move(next));
    std::lock_guard lock{mutex_};
    c->awaiting = cluster.awaiting_task_configs.count(name) > 0;
  }
  reconcile();
}

std::map<std::string, std::vector<StringMap>>
Worker::task_configs_to_store(const runtime::cluster::ClusterConfig& cluster) {
  std::lock_guard changes{changes_};
  std::map<std::string, std::vector<StringMap>> out;
  for (auto& [name, cp] : connectors_) {
    auto& c = *cp;
    if (!cluster.connectors.count(name) || !c.failure.empty())
      continue;
    std::vector<StringMap> want; // a stopped connector's tasks have none
    if (c.target != "STOPPED") {
      if (!c.made) {
        auto made = make_tasks(c);
        std::lock_guard lock{mutex_};
        if (!made.failure.empty()) {
          c.failure = made.failure;
          spdlog::error("connector {} cannot make its tasks: {}", name, c.failure);
          continue;
        }
        c.made = std::move(made.configs);
      }
      for (const auto& task : *c.made)
        want.push_back(c.plan.stored_task_config(task));
    }
    auto stored = cluster.task_configs.find(name);
    if (cluster.awaiting_task_configs.count(name) || stored == cluster.task_configs.end() || stored->second != want)
      out.emplace(name, std::move(want));
  }
  return out;
}

void Worker::run_only(std::set<runtime::cluster::Work> mine, uint64_t generation) {
  std::lock_guard changes{changes_};
  {
    std::lock_guard lock{mutex_};
    doing_ = "applying assignment generation " + std::to_string(generation);
    assigned_ = std::move(mine);
    generation_ = generation;
    ++rebalances_;
    last_rebalance_ = Clock::now();
  }
  reconcile();
}

void Worker::reconcile() {
  for (auto& [name, cp] : connectors_) {
    auto& c = *cp;
    std::set<size_t> want;
    if (c.target == "RUNNING" && c.failure.empty())
      for (const auto& w : assigned_)
        if (w.connector == name && !w.is_connector() && static_cast<size_t>(w.task) < c.task_configs.size())
          want.insert(static_cast<size_t>(w.task));
    std::set<size_t> stop;
    for (const auto& [t, task] : c.tasks)
      if (!want.count(t))
        stop.insert(t);
    if (!stop.empty())
      drain_tasks(c, stop);
    // Awaiting the leader's task configs for a new config, nothing new starts (what
    // runs goes on: it restarts if its config changes).
    std::vector<size_t> start;
    for (auto t : want)
      if (!c.tasks.count(t) && !c.awaiting)
        start.push_back(t);
    if (!start.empty())
      start_tasks(c, start);
  }
}

void Worker::abandon_all(const std::string& why) {
  std::lock_guard changes{changes_};
  std::lock_guard lock{mutex_};
  for (auto& [name, c] : connectors_) {
    for (auto& [t, task] : c->tasks) {
      for (auto& stage : task.stages)
        caf::anon_send_exit(stage, caf::exit_reason::kill);
      spdlog::warn("task {} abandoned: {}", task_name(name, t), why);
    }
    c->tasks.clear();
  }
  assigned_.clear();
}

std::set<runtime::cluster::Work> Worker::wanted_work() const {
  std::lock_guard lock{mutex_};
  std::set<runtime::cluster::Work> out;
  for (const auto& [name, c] : connectors_)
    if (c->target == "RUNNING" && c->failure.empty()) {
      auto work = runtime::cluster::work_of(name, static_cast<int>(c->task_configs.size()));
      out.insert(work.begin(), work.end());
    }
  return out;
}

std::pair<std::set<runtime::cluster::Work>, uint64_t> Worker::assigned() const {
  std::lock_guard lock{mutex_};
  return {assigned_, generation_};
}

void Worker::end_instances() {
  std::lock_guard changes{changes_};
  std::lock_guard lock{mutex_};
  for (auto& [name, c] : connectors_) {
    c->instance = {};
    c->made.reset();
  }
}

std::set<std::string> Worker::instances() const {
  std::lock_guard lock{mutex_};
  std::set<std::string> out;
  for (const auto& [name, c] : connectors_)
    if (c->instance)
      out.insert(name);
  return out;
}

std::vector<rest::ConnectorStatus> Worker::local_statuses() const {
  std::lock_guard lock{mutex_};
  std::vector<rest::ConnectorStatus> out;
  for (const auto& [name, c] : connectors_)
    out.push_back(status_of(*c));
  return out;
}

} // namespace weir::actors
