#include "actors/cluster/node_herder.hpp"

#include <stdexcept>

#include <spdlog/spdlog.h>

namespace weir::actors::cluster {

namespace rest = runtime::rest;
using Clock = std::chrono::steady_clock;

namespace {
TaskRunnerOptions with_static_members(TaskRunnerOptions options) {
  options.static_group_members = true;
  return options;
}

[[noreturn]] void through_config_topic() {
  throw std::logic_error("a cluster node applies connector changes from its config topic");
}
} // namespace

NodeHerder::NodeHerder(caf::actor_system& sys, runtime::state::StandaloneStore& state,
                       runtime::metrics::MetricsRegistry& metrics, TaskRunnerOptions options)
    : AbstractHerder(sys, state, metrics, with_static_members(std::move(options))) {}

rest::Created NodeHerder::put_connector_config(const std::string&, const rest::ConfigMap&,
                                               std::optional<rest::InitialState>, bool, Deadline) {
  through_config_topic();
}
rest::Created NodeHerder::patch_connector_config(const std::string&, const rest::ConfigPatch&, Deadline) {
  through_config_topic();
}
void NodeHerder::delete_connector(const std::string&, Deadline) { through_config_topic(); }
void NodeHerder::pause_connector(const std::string&, Deadline) { through_config_topic(); }
void NodeHerder::resume_connector(const std::string&, Deadline) { through_config_topic(); }
void NodeHerder::stop_connector(const std::string&, Deadline) { through_config_topic(); }

void NodeHerder::reconfigured(Connector& c, std::vector<StringMap> configs) {
  made_.insert_or_assign(c.plan.name, std::move(configs));
  reconfigured_ = true;
}

std::set<size_t> NodeHerder::restart_instance(Connector& c) {
  if (c.target != "RUNNING" || !c.instance)
    return {}; // only the node its instance is assigned to restarts it
  spawn_instance(c);
  made_.erase(c.plan.name);
  {
    std::lock_guard lock{mutex_};
    c.failure = c.plan_error;
  }
  reconfigured_ = true; // the new actor makes them for the node actor's next offer
  return {}; // tasks restart when the configs the leader stores arrive
}

bool NodeHerder::owns_instance(const std::string& name) const {
  return assigned_.count(runtime::cluster::Work{name, runtime::cluster::Work::connector_instance}) > 0;
}

void NodeHerder::end_instance(Connector& c) {
  made_.erase(c.plan.name);
  std::lock_guard lock{mutex_};
  c.instance = {};
}

void NodeHerder::assignment_figures(runtime::metrics::WorkerFigures& figures) const {
  figures.generation = generation_;
  figures.rebalances = rebalances_;
  if (rebalances_ > 0)
    figures.since_last_rebalance_ms = std::chrono::duration<double, std::milli>(Clock::now() - last_rebalance_).count();
}

void NodeHerder::apply_configs(const runtime::cluster::ClusterConfig& cluster) {
  const auto& configs = cluster.connectors;
  const auto& target_states = cluster.target_states;
  std::lock_guard changes{changes_};
  doing("applying the cluster's connector configs");
  std::vector<std::string> deleted;
  for (const auto& [name, c] : connectors_)
    if (!configs.count(name))
      deleted.push_back(name);
  for (const auto& name : deleted) {
    remove(name);
    made_.erase(name);
    awaiting_.erase(name);
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
        plan = engine::worker::plan_connector(name, raw, runner_.options().config);
      } catch (const std::exception& e) {
        plan.name = name;
        plan.raw = raw;
        error = e.what();
        spdlog::error("connector {}: {}", name, error);
      }
      made_.erase(name);
      {
        std::lock_guard lock{mutex_};
        if (!c)
          c = connectors_.emplace(name, std::make_unique<Connector>()).first->second.get();
        c->plan = std::move(plan);
        c->plan_error = error;
        c->failure.clear();
        c->target = target;
        c->instance = {}; // reconcile spawns one for the new config where it is assigned
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
        made_.erase(name);
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
    if (cluster.awaiting_task_configs.count(name))
      awaiting_.insert(name);
    else
      awaiting_.erase(name);
  }
  reconcile();
}

std::map<std::string, std::vector<StringMap>>
NodeHerder::task_configs_to_store(const runtime::cluster::ClusterConfig& cluster, bool leading) {
  std::lock_guard changes{changes_};
  std::map<std::string, std::vector<StringMap>> out;
  for (auto& [name, cp] : connectors_) {
    auto& c = *cp;
    if (!cluster.connectors.count(name) || !c.failure.empty())
      continue;
    // A stopped connector's tasks have none, which the leader stores: it has no
    // instance to make them.
    if (c.target == "STOPPED" ? !leading : !owns_instance(name))
      continue;
    std::vector<StringMap> want;
    if (c.target != "STOPPED") {
      if (!made_.count(name)) {
        auto made = make_tasks(c);
        if (!made.failure.empty()) {
          std::lock_guard lock{mutex_};
          c.failure = made.failure;
          spdlog::error("connector {} cannot make its tasks: {}", name, c.failure);
          continue;
        }
        made_[name] = std::move(made.configs);
      }
      for (const auto& task : made_.at(name))
        want.push_back(c.plan.stored_task_config(task));
    }
    auto stored = cluster.task_configs.find(name);
    if (cluster.awaiting_task_configs.count(name) || stored == cluster.task_configs.end() || stored->second != want)
      out.emplace(name, std::move(want));
  }
  return out;
}

void NodeHerder::run_only(std::set<runtime::cluster::Work> mine, uint64_t generation) {
  std::lock_guard changes{changes_};
  doing("applying assignment generation " + std::to_string(generation));
  {
    std::lock_guard lock{mutex_};
    assigned_ = std::move(mine);
    generation_ = generation;
    ++rebalances_;
    last_rebalance_ = Clock::now();
  }
  runner_.set_generation(generation);
  reconcile();
}

void NodeHerder::reconcile() {
  for (auto& [name, cp] : connectors_) {
    auto& c = *cp;
    // Its connector actor runs where its instance is assigned, and nowhere else.
    bool instance_here = c.target != "STOPPED" && c.plan_error.empty() && owns_instance(name);
    if (instance_here && !c.instance) {
      spawn_instance(c);
      spdlog::info("connector {}: its connector actor runs here (generation {})", name, generation_);
    } else if (!instance_here && c.instance) {
      end_instance(c);
      spdlog::info("connector {}: its connector actor no longer runs here (generation {})", name, generation_);
    }
    std::set<size_t> want; // a connector that failed to make new ones keeps its tasks, as in Kafka Connect
    if (c.target == "RUNNING" && c.plan_error.empty())
      for (const auto& w : assigned_)
        if (w.connector == name && !w.is_connector() && static_cast<size_t>(w.task) < c.task_configs.size())
          want.insert(static_cast<size_t>(w.task));
    auto running = runner_.tasks_of(name);
    std::set<size_t> stop;
    for (auto t : running)
      if (!want.count(t))
        stop.insert(t);
    if (!stop.empty())
      drain_tasks(c, stop);
    // Awaiting the leader's task configs for a new config, nothing new starts (what
    // runs goes on: it restarts if its config changes).
    std::vector<size_t> start;
    for (auto t : want)
      if (!running.count(t) && !awaiting_.count(name))
        start.push_back(t);
    if (!start.empty())
      start_tasks(c, start);
  }
}

void NodeHerder::abandon_all(const std::string& why) {
  std::lock_guard changes{changes_};
  runner_.abandon_all(why);
  made_.clear();
  std::lock_guard lock{mutex_};
  assigned_.clear();
  for (auto& [name, c] : connectors_)
    c->instance = {};
}

std::set<runtime::cluster::Work> NodeHerder::wanted_work() const {
  std::lock_guard lock{mutex_};
  std::set<runtime::cluster::Work> out;
  // Whether a connector could make its task configs is known only where its
  // instance runs (it reports FAILED): its work stays wanted, as in Kafka Connect.
  for (const auto& [name, c] : connectors_)
    if (c->target != "STOPPED" && c->plan_error.empty()) {
      int tasks = c->target == "RUNNING" ? static_cast<int>(c->task_configs.size()) : 0;
      auto work = runtime::cluster::work_of(name, tasks);
      out.insert(work.begin(), work.end());
    }
  return out;
}

std::pair<std::set<runtime::cluster::Work>, uint64_t> NodeHerder::assigned() const {
  std::lock_guard lock{mutex_};
  return {assigned_, generation_};
}

std::set<std::string> NodeHerder::instances() const {
  std::lock_guard lock{mutex_};
  std::set<std::string> out;
  for (const auto& [name, c] : connectors_)
    if (c->instance)
      out.insert(name);
  return out;
}

std::vector<rest::ConnectorStatus> NodeHerder::local_statuses() const {
  std::lock_guard lock{mutex_};
  std::vector<rest::ConnectorStatus> out;
  for (const auto& [name, c] : connectors_)
    out.push_back(status_of(*c));
  return out;
}

} // namespace weir::actors::cluster
