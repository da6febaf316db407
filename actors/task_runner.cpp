#include "actors/task_runner.hpp"

#include <algorithm>
#include <condition_variable>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/after.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <spdlog/spdlog.h>

#include "actors/connector_supervisor.hpp"
#include "actors/messages.hpp"
#include "actors/scheduler.hpp"
#include "engine/pipeline/connector_config.hpp"
#include "engine/pipeline/source_config.hpp"
#include "engine/pipeline/source_offsets_topic.hpp"
#include "runtime/kafka/admin.hpp"

namespace weir::actors {

namespace rest = runtime::rest;
using engine::worker::ConnectorPlan;
using runtime::metrics::StageRole;
using runtime::metrics::StageSnapshot;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

/// One task's actors, the config it runs with and its history of automatic restarts.
struct TaskRunner::Task {
  StringMap config;
  caf::actor actor; ///< its task actor (ended, once it failed); none when it could not start
  std::vector<caf::actor> stages; ///< reader first; empty when it could not start or failed
  std::vector<std::string> names; ///< the stages' names, in the same order
  std::shared_ptr<runtime::connector_api::SourceOffsets> offsets; ///< a source task's
  std::string failure; ///< why it could not start, or failed: it is FAILED when set
  int restarts = 0;    ///< automatic restarts in a row
  uint64_t restarted = 0; ///< task actors of it that ended before this one (any restart)
  std::optional<Clock::time_point> restart_at;
  bool gave_up = false;
};

/// The runner as its supervisors see it: gone once the runner is destroyed.
struct TaskRunner::ParentLink {
  std::mutex mutex;
  TaskRunner* runner = nullptr;
};

/// The drained tasks' done reports, from the observer actor to whoever waits.
struct TaskRunner::DoneBoard {
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

namespace {

/// The StageStats name of the stage whose done says the task drained: its last.
std::string last_stage(const ConnectorPlan& plan, size_t task) {
  return task_name(plan.name, task) + (plan.sink ? "/sink" : "/producer");
}

/// A task's id towards Kafka, the same on every node: its producer's
/// transactional.id (Kafka Connect's naming, ${group.id}-${connector}-${task}) and its
/// consumer's group.instance.id.
std::string task_client_id(const StringMap& worker, const std::string& connector, size_t task) {
  return worker.at("group.id") + "-" + task_name(connector, task);
}

/// The offsets a source connector resumes from. With exactly-once, each task's
/// transactional id is fenced first (which aborts a dead predecessor's open
/// transaction), then the offsets topic, read committed, is the truth: it holds
/// exactly the offsets of the records that were committed. The state file only
/// fills in partitions the topic has never seen.
runtime::connector_api::OffsetMap resume_offsets(const ConnectorPlan& plan, const StringMap& worker,
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

} // namespace

TaskRunner::TaskRunner(caf::actor_system& sys, SharedStore& state, runtime::metrics::MetricsRegistry& metrics,
                       TaskRunnerOptions options)
    : sys_(sys), state_(state), metrics_(metrics), options_(std::move(options)),
      done_(std::make_shared<DoneBoard>()), node_sampler_(scheduler_meter(sys)), last_flush_(Clock::now()) {
  observer_ = sys_.spawn([board = done_](caf::event_based_actor*) -> caf::behavior {
    return {[board](done_atom, const StageStats& stats) { board->mark(stats.name); }};
  });
  link_ = std::make_shared<ParentLink>();
  link_->runner = this;
}

TaskRunner::~TaskRunner() {
  {
    std::lock_guard lock{link_->mutex};
    link_->runner = nullptr;
  }
  for (auto& [name, r] : running_)
    caf::anon_send_exit(r.supervisor, caf::exit_reason::user_shutdown); // its tasks, and their stages, end with it
  running_.clear();
  caf::anon_send_exit(observer_, caf::exit_reason::user_shutdown);
}

TaskRunner::Task TaskRunner::spawn(const ConnectorPlan& plan, size_t t, const StringMap& config,
                                   const runtime::connector_api::OffsetMap& stored,
                                   std::shared_ptr<engine::pipeline::JoinGate> join_gate,
                                   const caf::actor& supervisor) {
  Task task;
  task.config = config;
  const auto& worker = options_.config;
  auto id = static_cast<int>(t);
  try {
    if (plan.sink) {
      SinkTaskSpec spec{.connector = plan.name, .task = id, .plugin = plan.sink, .config = plan.config,
                        .worker_config = worker, .tasks = plan.tasks_max, .observer = observer_};
      spec.metrics = &metrics_;
      if (options_.static_group_members)
        spec.group_instance_id = task_client_id(worker, plan.name, t);
      spec.join_gate = std::move(join_gate);
      auto spawned = spawn_task(sys_, spec, supervisor);
      task.actor = std::move(spawned.actor);
      task.stages = std::move(spawned.stages);
      task.names = std::move(spawned.names);
    } else {
      SourceTaskSpec spec{plan.name, id, plan.source, config, worker, stored, {4, 8u << 20},
                          observer_,
                          plan.exactly_once ? task_client_id(worker, plan.name, t) : std::string{},
                          plan.exactly_once ? plan.offsets_topic : std::string{}};
      spec.metrics = &metrics_;
      auto spawned = spawn_task(sys_, spec, supervisor);
      task.actor = std::move(spawned.actor);
      task.stages = std::move(spawned.stages);
      task.names = std::move(spawned.names);
      task.offsets = spawned.offsets;
    }
  } catch (const std::exception& e) {
    task.failure = plan.scrub(e.what());
    spdlog::error("connector {} task {} failed to start: {}", plan.name, t, task.failure);
  }
  return task;
}

// --- changes

void TaskRunner::start(const ConnectorPlan& plan, const std::vector<StringMap>& configs,
                       const std::vector<size_t>& ids, int32_t partitions) {
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
  caf::actor supervisor; // none for a connector without a task here
  if (!ids.empty()) {
    std::lock_guard lock{mutex_};
    supervisor = supervisor_of(plan);
  }
  // A task started alone has no one to join with: gated, it would hold its
  // partitions paused through their assignment, and librdkafka 2.0 answers a start
  // offset query that a pause overtook only 500 ms later.
  auto join_gate = ids.size() > 1 ? std::make_shared<engine::pipeline::JoinGate>(partitions) : nullptr;
  for (auto t : ids) {
    done_->forget(last_stage(plan, t));
    if (failure.empty())
      started[t] = spawn(plan, t, configs.at(t), stored, join_gate, supervisor);
    else {
      started[t].config = configs.at(t);
      started[t].failure = failure;
    }
  }
  std::lock_guard lock{mutex_};
  auto& here = running_[plan.name];
  here.plan = std::make_shared<const ConnectorPlan>(plan);
  for (auto& [t, task] : started) {
    state_.with([&](auto& s) {
      s.set_task_status(plan.name, static_cast<int>(t), task.failure.empty() ? "RUNNING" : "FAILED", task.failure);
    });
    spdlog::info("task {} started (generation {})", task_name(plan.name, t), generation_);
    auto& slot = here.tasks[t] = std::move(task);
    if (!slot.failure.empty())
      apply_policy(plan.name, t, slot);
  }
}

std::vector<std::string> TaskRunner::ask_to_drain(const std::string& connector,
                                                  const std::optional<std::set<size_t>>& only) {
  std::vector<std::string> waiting;
  auto it = running_.find(connector);
  if (it == running_.end())
    return waiting;
  for (auto& [i, t] : it->second.tasks) {
    // A task that never started, finished or failed has nothing to drain (a
    // failed stage ended with the batch it failed on: nothing past it was
    // committed). Its actors just end.
    auto last = last_stage(*it->second.plan, i);
    if ((only && !only->count(i)) || !t.failure.empty() || !t.actor || done_->has(last))
      continue;
    caf::anon_send(t.actor, stop_atom::value);
    waiting.push_back(last);
  }
  return waiting;
}

std::vector<caf::actor> TaskRunner::end_tasks(const std::string& connector,
                                              const std::optional<std::set<size_t>>& only) {
  std::vector<caf::actor> ended;
  auto here = running_.find(connector);
  if (here == running_.end())
    return ended;
  auto& [plan, tasks, supervisor] = here->second;
  for (auto it = tasks.begin(); it != tasks.end();) {
    auto& [id, t] = *it;
    if (only && !only->count(id)) {
      ++it;
      continue;
    }
    // Every drained source task reported its last delivery before its done.
    if (t.offsets)
      store_offsets_locked(*plan, t.offsets->take_changes(), {}, false);
    // A task actor ends once its stages have: waiting for it waits for them.
    if (t.actor) {
      caf::anon_send_exit(t.actor, caf::exit_reason::user_shutdown);
      ended.push_back(t.actor);
    }
    spdlog::info("task {} stopped (generation {})", task_name(connector, id), generation_);
    it = tasks.erase(it);
  }
  if (tasks.empty() && supervisor) {
    caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
    ended.push_back(std::exchange(supervisor, {}));
  }
  return ended;
}

void TaskRunner::await_exit(std::vector<caf::actor> actors) {
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
    spdlog::warn("{} task actor(s) still ending after 15 s", left);
}

void TaskRunner::drain(const std::string& connector, const std::optional<std::set<size_t>>& only,
                       const std::function<void(const std::string&)>& waiting) {
  std::vector<std::string> stages;
  {
    std::lock_guard lock{mutex_};
    stages = ask_to_drain(connector, only);
  }
  if (!stages.empty() && waiting) {
    std::string list;
    for (const auto& s : stages)
      list += (list.empty() ? "" : ", ") + s;
    waiting(list);
  }
  auto late = done_->wait(stages, Clock::now() + options_.graceful_timeout);
  for (const auto& stage : late)
    spdlog::warn("connector {}: {} did not drain within {} ms (task.shutdown.graceful.timeout.ms); "
                 "ending it: records it had not committed will be delivered again",
                 connector, stage, options_.graceful_timeout.count());
  std::vector<caf::actor> ending;
  {
    std::lock_guard lock{mutex_};
    ending = end_tasks(connector, only);
  }
  // Their consumers leave the group as the actors end: only then is a stopped
  // connector's group empty (its offsets can be altered) and its tasks' partitions
  // free for whoever takes them next.
  await_exit(std::move(ending));
}

void TaskRunner::restart(const std::string& connector, size_t i, bool by_request) {
  std::shared_ptr<const ConnectorPlan> plan;
  StringMap config;
  caf::actor old, supervisor;
  uint64_t restarted = 0;
  {
    std::lock_guard lock{mutex_};
    auto here = running_.find(connector);
    if (here == running_.end() || !here->second.tasks.count(i))
      return; // stopped since
    plan = here->second.plan;
    supervisor = here->second.supervisor;
    auto& t = here->second.tasks.at(i);
    if (t.offsets)
      store_offsets_locked(*plan, t.offsets->take_changes(), {}, false);
    old = std::exchange(t.actor, {});
    t.stages.clear();
    t.failure = "restarting";
    config = t.config;
    restarted = t.restarted + 1;
  }
  runtime::connector_api::OffsetMap stored;
  if (plan->source)
    stored = stored_offsets(connector);
  caf::anon_send_exit(old, caf::exit_reason::user_shutdown); // its stages end with it
  old = nullptr;
  Task task;
  task.config = config;
  try {
    if (plan->source)
      stored = resume_offsets(*plan, options_.config, std::move(stored),
                              plan->exactly_once ? std::vector{task_client_id(options_.config, connector, i)}
                                                 : std::vector<std::string>{});
    // The new stages start from fresh statistics, not the failed ones.
    for (const auto& s : metrics_.snapshot(connector))
      if (s.key.task == static_cast<int>(i)) {
        StageStats fresh;
        fresh.name = s.stats.name;
        fresh.kind = s.stats.kind;
        fresh.state = "RUNNING";
        metrics_.cell(s.key, s.role)->publish(fresh);
      }
    done_->forget(last_stage(*plan, i));
    task = spawn(*plan, i, config, stored, nullptr, supervisor);
  } catch (const std::exception& e) {
    task.failure = e.what();
  }
  std::lock_guard lock{mutex_};
  auto here = running_.find(connector);
  if (here == running_.end() || !here->second.tasks.count(i)) { // abandoned meanwhile
    caf::anon_send_exit(task.actor, caf::exit_reason::user_shutdown);
    return;
  }
  auto& slot = here->second.tasks.at(i);
  task.restarts = by_request ? 0 : slot.restarts + 1;
  task.restarted = restarted;
  slot = std::move(task);
  state_.with([&](auto& s) {
    s.set_task_status(connector, static_cast<int>(i), slot.failure.empty() ? "RUNNING" : "FAILED", slot.failure);
  });
  spdlog::info("connector {} task {} restarted", connector, i);
  if (!slot.failure.empty())
    apply_policy(connector, i, slot);
}

caf::actor TaskRunner::supervisor_of(const ConnectorPlan& plan) {
  auto& here = running_[plan.name];
  if (!here.plan)
    here.plan = std::make_shared<const ConnectorPlan>(plan);
  if (!here.supervisor)
    here.supervisor = spawn_connector_supervisor(
      sys_, plan.name,
      [link = link_, connector = plan.name](int32_t task, const caf::actor_addr& from, const std::string& trace) {
        std::lock_guard lock{link->mutex};
        if (link->runner && task >= 0)
          link->runner->task_failed(connector, static_cast<size_t>(task), from, trace);
      });
  return here.supervisor;
}

void TaskRunner::task_failed(const std::string& connector, size_t i, const caf::actor_addr& from,
                             const std::string& trace) {
  std::lock_guard lock{mutex_};
  auto here = running_.find(connector);
  if (here == running_.end())
    return;
  auto it = here->second.tasks.find(i);
  // From a run ended since (restarted, say): not this one's failure.
  if (it == here->second.tasks.end() || !it->second.actor || it->second.actor.address() != from)
    return;
  auto& t = it->second;
  t.failure = trace;
  t.stages.clear(); // ended with the task; its names stay, for the tree
  // A drain that waits for it waits no more: nothing past the failure is written.
  done_->mark(last_stage(*here->second.plan, i));
  state_.with([&](auto& s) {
    s.set_task_status(connector, static_cast<int>(i), "FAILED", here->second.plan->scrub(trace));
  });
  apply_policy(connector, i, t);
}

// A task that gave up stays FAILED with its trace until restarted through the
// REST API; its stages have ended, so a sink task's partitions went to the
// running tasks of its group.
void TaskRunner::apply_policy(const std::string& connector, size_t i, Task& t) {
  if (t.gave_up || t.restart_at)
    return;
  if (t.restarts >= options_.restart_max_attempts) {
    t.gave_up = true;
    if (options_.restart_max_attempts > 0)
      spdlog::error("connector {} task {}: still FAILED after {} automatic restart(s); "
                    "restart it through the REST API once the cause is fixed",
                    connector, i, t.restarts);
    return;
  }
  auto backoff = std::min(options_.restart_backoff * (1 << std::min(t.restarts, 20)), options_.restart_backoff_max);
  t.restart_at = Clock::now() + backoff;
  spdlog::warn("connector {} task {} FAILED; automatic restart {} of {} in {} ms", connector, i, t.restarts + 1,
               options_.restart_max_attempts, backoff.count());
}

void TaskRunner::restart_due() {
  std::vector<std::pair<std::string, size_t>> due;
  auto now = Clock::now();
  {
    std::lock_guard lock{mutex_};
    for (const auto& [name, here] : running_)
      for (const auto& [i, t] : here.tasks)
        if (!t.gave_up && t.restart_at && now >= *t.restart_at)
          due.emplace_back(name, i);
  }
  for (const auto& [name, i] : due)
    restart(name, i, false);
}

void TaskRunner::abandon_all(const std::string& why) {
  std::lock_guard lock{mutex_};
  for (auto& [name, here] : running_) {
    for (auto& [t, task] : here.tasks) {
      caf::anon_send_exit(task.actor, caf::exit_reason::kill); // its stages end with it
      spdlog::warn("task {} abandoned: {}", task_name(name, t), why);
    }
    caf::anon_send_exit(here.supervisor, caf::exit_reason::user_shutdown);
  }
  running_.clear();
}

void TaskRunner::forget(const std::string& connector) {
  std::lock_guard lock{mutex_};
  if (auto it = running_.find(connector); it != running_.end()) {
    caf::anon_send_exit(it->second.supervisor, caf::exit_reason::user_shutdown);
    running_.erase(it);
  }
  metrics_.remove_connector(connector);
  rates_.forget(connector);
}

size_t TaskRunner::shutdown(std::chrono::milliseconds timeout) {
  std::vector<std::string> waiting;
  {
    std::lock_guard lock{mutex_};
    for (auto& [name, here] : running_) {
      auto more = ask_to_drain(name, std::nullopt);
      waiting.insert(waiting.end(), more.begin(), more.end());
    }
  }
  auto late = done_->wait(waiting, Clock::now() + timeout);
  std::lock_guard lock{mutex_};
  std::vector<std::string> names;
  for (auto& [name, here] : running_) {
    for (const auto& [t, task] : here.tasks)
      state_.with([&](auto& s) { s.set_task_status(name, static_cast<int>(t), "UNASSIGNED", ""); });
    names.push_back(name);
  }
  for (const auto& name : names)
    end_tasks(name, std::nullopt);
  if (offsets_producer_ && !offsets_producer_->flush(5s))
    spdlog::warn("source offsets not all written to {} within 5 s", options_.offsets_topic);
  return late.size();
}

void TaskRunner::set_generation(uint64_t generation) {
  std::lock_guard lock{mutex_};
  generation_ = generation;
}

// --- upkeep

void TaskRunner::tick() {
  auto now = Clock::now();
  auto flush_every = std::chrono::milliseconds{std::stoll(options_.config.at("offset.flush.interval.ms"))};
  std::lock_guard lock{mutex_};
  if (now - last_flush_ >= flush_every) {
    last_flush_ = now;
    for (auto& [name, here] : running_)
      for (auto& [id, t] : here.tasks)
        if (t.offsets)
          store_offsets_locked(*here.plan, t.offsets->take_changes(), {}, false);
  }
  if (offsets_producer_)
    offsets_producer_->poll(0ms);
  // Ten times a second, but each stage's figures are read only once its interval is over.
  auto sampled_at = Clock::now();
  rates_.sample(metrics_.snapshot_if([&](const auto& key) { return rates_.due(key, sampled_at); }), sampled_at,
                runtime::metrics::SchedulerMeter::now_ns());
  if (node_sampler_.sample())
    judge_tasks();
}

void TaskRunner::judge_tasks() {
  verdicts_.clear();
  const auto& scheduler = node_sampler_.figures().verdict;
  for (const auto& [name, here] : running_) {
    auto stages = metrics_.snapshot(name);
    for (const auto& [t, task] : here.tasks) {
      int id = static_cast<int>(t);
      std::vector<runtime::metrics::StageFigures> figures;
      for (const auto& stage_name : task.names)
        for (const auto& s : stages)
          if (s.key.task == id && s.key.stage == stage_name)
            figures.push_back({stage_name, kind_in_words(*here.plan, s.role, stage_name), s.role,
                               rates_.of(s.key), s.stats.lag});
      verdicts_[{name, id}] = runtime::metrics::task_verdict(figures, scheduler);
    }
  }
}

// --- source offsets: in the state file, or in the offsets topic

runtime::kafka::Producer& TaskRunner::offsets_producer() {
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

void TaskRunner::store_offsets(const ConnectorPlan& plan, const runtime::connector_api::OffsetMap& put,
                               const std::vector<std::string>& erase, bool by_request) {
  std::lock_guard lock{mutex_};
  store_offsets_locked(plan, put, erase, by_request);
}

void TaskRunner::store_offsets_locked(const ConnectorPlan& plan, const runtime::connector_api::OffsetMap& put,
                                      const std::vector<std::string>& erase, bool by_request) {
  if (options_.offsets_topic.empty()) {
    state_.with([&](auto& s) {
      s.put_source_offsets(plan.name, put);
      if (!erase.empty())
        s.delete_source_offsets(plan.name, erase);
    });
    return;
  }
  // An exactly-once task writes its offsets in its own transactions.
  if ((plan.exactly_once && !by_request) || (put.empty() && erase.empty()))
    return;
  weir::Batch batch;
  for (const auto& [partition, offset] : put)
    batch.append(options_.offsets_topic, -1, -1, -1, engine::pipeline::offset_record_key(plan.name, partition),
                 offset);
  for (const auto& partition : erase)
    batch.append(options_.offsets_topic, -1, -1, -1, engine::pipeline::offset_record_key(plan.name, partition),
                 std::nullopt);
  offsets_producer().produce(batch, 0);
}

runtime::connector_api::OffsetMap TaskRunner::stored_offsets(const std::string& connector) {
  if (options_.offsets_topic.empty())
    return state_.with([&](auto& s) { return s.source_offsets(connector); });
  // The offsets written so far first, waited for in short slices: reads take the
  // same lock, and must not wait on an unreachable broker.
  for (auto until = Clock::now() + 10s;;) {
    std::lock_guard lock{mutex_};
    if (!offsets_producer_ || offsets_producer_->flush(20ms))
      break;
    if (Clock::now() >= until) {
      spdlog::warn("source offsets of {} not all written to {} within 10 s", connector, options_.offsets_topic);
      break;
    }
  }
  auto props = engine::pipeline::task_client_props({}, options_.config, "consumer");
  return engine::pipeline::read_offsets_topic(props, options_.offsets_topic, connector);
}

// --- reads

std::set<size_t> TaskRunner::tasks_of(const std::string& connector) const {
  std::lock_guard lock{mutex_};
  std::set<size_t> out;
  if (auto it = running_.find(connector); it != running_.end())
    for (const auto& [t, task] : it->second.tasks)
      out.insert(t);
  return out;
}

size_t TaskRunner::task_count() const {
  std::lock_guard lock{mutex_};
  size_t n = 0;
  for (const auto& [name, here] : running_)
    n += here.tasks.size();
  return n;
}

std::vector<rest::TaskState> TaskRunner::statuses(const ConnectorPlan& plan, int32_t partitions,
                                                  const std::string& worker_id) const {
  std::vector<rest::TaskState> out;
  auto stages = metrics_.snapshot(plan.name);
  std::lock_guard lock{mutex_};
  auto here = running_.find(plan.name);
  if (here == running_.end())
    return out;
  for (const auto& [t, task] : here->second.tasks) {
    auto f = task_figures(task.failure, static_cast<int>(t), stages);
    if (f.state == "FAILED" && task.restart_at && !task.gave_up)
      f.trace += "\n[weir] automatic restart " + std::to_string(task.restarts + 1) + " of "
                 + std::to_string(options_.restart_max_attempts) + " is scheduled";
    else if (f.state == "FAILED" && task.gave_up && task.restarts > 0)
      f.trace += "\n[weir] gave up after " + std::to_string(task.restarts)
                 + " automatic restart(s) (task.restart.max.attempts)";
    else if (f.state == "RUNNING" && !f.waiting.empty())
      // Kafka Connect has no such state: RUNNING stays, for its clients, with the reason.
      f.trace = f.waiting + "; it resumes by itself once the broker answers";
    else if (plan.sink && f.state == "RUNNING" && f.partitions == 0)
      f.trace = idle_trace(plan.tasks_max, partitions, f);
    else if (plan.source && f.state == "RUNNING" && !f.idle_reason.empty())
      f.trace = "idle: " + f.idle_reason;
    std::string bottleneck;
    if (auto v = verdicts_.find({plan.name, static_cast<int>(t)}); v != verdicts_.end() && f.state == "RUNNING")
      bottleneck = v->second.text;
    out.push_back({static_cast<int>(t), {f.state, worker_id, plan.scrub(f.trace)}, bottleneck});
  }
  return out;
}

std::map<size_t, TaskFigures> TaskRunner::figures(const std::string& connector) const {
  std::map<size_t, TaskFigures> out;
  auto stages = metrics_.snapshot(connector);
  std::lock_guard lock{mutex_};
  if (auto here = running_.find(connector); here != running_.end())
    for (const auto& [t, task] : here->second.tasks)
      out[t] = task_figures(task.failure, static_cast<int>(t), stages);
  return out;
}

void TaskRunner::fill_tree(const ConnectorPlan& plan, rest::TreeTask& task) const {
  auto stages = metrics_.snapshot(plan.name);
  std::lock_guard lock{mutex_};
  if (auto v = verdicts_.find({plan.name, task.id}); v != verdicts_.end() && task.state.state == "RUNNING") {
    task.bottleneck = v->second.text;
    task.bottleneck_stage = v->second.stage;
  }
  auto here = running_.find(plan.name);
  if (here == running_.end())
    return;
  auto running = here->second.tasks.find(static_cast<size_t>(task.id));
  if (running == here->second.tasks.end())
    return;
  if (running->second.actor)
    task.instance = rest::TreeInstance{running->second.actor.id(), running->second.restarted};
  for (const auto& stage_name : running->second.names)
    for (const auto& s : stages)
      if (s.key.task == task.id && s.key.stage == stage_name) {
        rest::TreeStage stage{stage_name, role_name(s.role), s.stats};
        stage.stats.last_error = plan.scrub(stage.stats.last_error);
        stage.rates = rates_.of(s.key);
        if (!task.stages.empty())
          stage.upstream_wait = task.stages.back().rates.credit_wait;
        if (!s.stats.poll_to_ack.counts.empty()) { // the task's consumer or producer
          task.poll_to_ack_p50 = stage.rates.poll_to_ack_p50;
          task.poll_to_ack_p99 = stage.rates.poll_to_ack_p99;
        }
        task.stages.push_back(std::move(stage));
      }
}

std::optional<uint64_t> TaskRunner::supervisor_id(const std::string& connector) const {
  std::lock_guard lock{mutex_};
  auto here = running_.find(connector);
  if (here == running_.end() || !here->second.supervisor)
    return std::nullopt;
  return here->second.supervisor.id();
}

caf::actor TaskRunner::tap_target(const ConnectorPlan& plan, int id, const std::string& stage) const {
  std::lock_guard lock{mutex_};
  auto name = task_name(plan.name, static_cast<size_t>(std::max(id, 0)));
  auto here = running_.find(plan.name);
  const Task* task = nullptr;
  if (id >= 0 && here != running_.end())
    if (auto it = here->second.tasks.find(static_cast<size_t>(id)); it != here->second.tasks.end())
      task = &it->second;
  if (!task)
    throw rest::not_found("Task " + name + " not found");
  if (task->stages.empty())
    throw rest::bad_request("Task " + name + " is not running: " + plan.scrub(task->failure));
  const auto& names = task->names;
  auto at = std::find(names.begin(), names.end(), stage);
  if (at == names.end())
    throw rest::not_found("Stage " + stage + " not found in task " + name);
  // The reader (consumer or poller) passes raw batches: the decoded records are
  // seen at the SMTs and at the last stage (a sink's writer, a source's producer).
  if (at == names.begin()) {
    std::string list;
    for (auto it = names.begin() + 1; it != names.end(); ++it)
      list += (list.empty() ? "" : ", ") + *it;
    throw rest::bad_request("Stage " + stage + " of task " + name + " cannot be tapped: tap an SMT stage, the sink or "
                            "the producer (" + list + ")");
  }
  return task->stages.at(static_cast<size_t>(at - names.begin()));
}

runtime::metrics::NodeFigures TaskRunner::node_figures() const {
  std::lock_guard lock{mutex_};
  return node_sampler_.figures();
}

std::string TaskRunner::metrics_text() const {
  auto stages = metrics_.snapshot();
  auto text = runtime::metrics::render_prometheus(stages);
  std::lock_guard lock{mutex_};
  return text + runtime::metrics::render_interval_metrics(stages, rates_.all(), node_sampler_.figures());
}

} // namespace weir::actors
