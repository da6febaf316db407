#include "actors/standalone_herder.hpp"

#include <numeric>

#include <spdlog/spdlog.h>

#include "runtime/rest/config_info.hpp"

namespace weir::actors {

namespace rest = runtime::rest;

std::optional<std::vector<StringMap>> StandaloneHerder::make_task_configs(Connector& c) {
  spawn_instance(c);
  auto made = make_tasks(c);
  if (!made.failure.empty())
    throw std::runtime_error(made.failure);
  return std::move(made.configs);
}

void StandaloneHerder::start_connector(Connector& c) {
  if (prepare(c)) {
    std::vector<size_t> all(c.task_configs.size());
    std::iota(all.begin(), all.end(), size_t{0});
    start_tasks(c, all);
  }
  spdlog::info("connector {} started with {} task(s)", c.plan.name, runner_.tasks_of(c.plan.name).size());
}

void StandaloneHerder::start_missing_tasks(Connector& c) {
  auto running = runner_.tasks_of(c.plan.name);
  std::vector<size_t> start;
  for (size_t t = 0; t < c.task_configs.size(); ++t)
    if (!running.count(t))
      start.push_back(t);
  if (!start.empty())
    start_tasks(c, start);
}

void StandaloneHerder::reconfigured(Connector& c, std::vector<StringMap> configs) {
  if (c.target != "RUNNING" || !c.failure.empty())
    return;
  use_task_configs(c, std::move(configs));
  start_missing_tasks(c);
}

std::set<size_t> StandaloneHerder::restart_instance(Connector& c) {
  if (c.target != "RUNNING")
    return {};
  if (!c.failure.empty()) {
    start_connector(c);
    return runner_.tasks_of(c.plan.name);
  }
  spawn_instance(c);
  auto made = make_tasks(c);
  if (!made.failure.empty()) {
    std::lock_guard lock{mutex_};
    c.failure = made.failure;
    state_.with([&](auto& s) { s.set_connector_status(c.plan.name, "FAILED"); });
    spdlog::error("connector {} cannot make its tasks: {}", c.plan.name, c.failure);
    return {};
  }
  auto kept = runner_.tasks_of(c.plan.name);
  for (auto t : use_task_configs(c, std::move(made.configs)))
    kept.erase(t);
  start_missing_tasks(c);
  spdlog::info("connector {} restarted", c.plan.name);
  std::set<size_t> started;
  for (auto t : runner_.tasks_of(c.plan.name))
    if (!kept.count(t))
      started.insert(t);
  return started;
}

rest::Created StandaloneHerder::put_connector_config(const std::string& name, const rest::ConfigMap& config,
                                                     std::optional<rest::InitialState> initial_state,
                                                     bool allow_replace, Deadline deadline) {
  return serialized("writing the config of connector " + name, deadline, [&] {
    const auto& worker = runner_.options().config;
    rest::throw_if_invalid(engine::worker::validate_connector(config, worker));
    auto plan = engine::worker::plan_connector(name, config, worker);
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
      state_.with([&](auto& s) { s.put_connector(name, plan.raw); });
    }
    if (!created) {
      drain_tasks(*c);
      std::lock_guard lock{mutex_};
      c->plan = std::move(plan);
    }
    if (c->target == "RUNNING")
      start_connector(*c);
    else
      state_.with([&](auto& s) { s.set_connector_status(name, c->target); });
    spdlog::info("connector {} {} ({})", name, created ? "created" : "reconfigured", c->target);
    return rest::Created{created, connector_info(name, deadline)};
  });
}

rest::Created StandaloneHerder::patch_connector_config(const std::string& name, const rest::ConfigPatch& patch,
                                                       Deadline deadline) {
  rest::ConfigMap config;
  {
    std::lock_guard lock{mutex_};
    config = rest::apply_config_patch(get(name).plan.raw, patch);
  }
  config["name"] = name;
  return put_connector_config(name, config, std::nullopt, true, deadline);
}

void StandaloneHerder::delete_connector(const std::string& name, Deadline deadline) {
  serialized("deleting connector " + name, deadline, [&] {
    {
      std::lock_guard lock{mutex_};
      get(name);
    }
    remove(name);
    state_.with([&](auto& s) { s.delete_connector(name); });
  });
}

void StandaloneHerder::pause_connector(const std::string& name, Deadline deadline) {
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
    state_.with([&](auto& s) { s.set_connector_status(name, "PAUSED"); });
    spdlog::info("connector {} paused", name);
  });
}

void StandaloneHerder::resume_connector(const std::string& name, Deadline deadline) {
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

void StandaloneHerder::stop_connector(const std::string& name, Deadline deadline) {
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
    state_.with([&](auto& s) { s.set_connector_status(name, "STOPPED"); });
    spdlog::info("connector {} stopped", name);
  });
}

} // namespace weir::actors
