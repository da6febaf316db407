// The herder of `weir standalone` (Kafka Connect's StandaloneHerder): connectors
// come and go through the REST API (created, reconfigured, paused, stopped,
// restarted, deleted) and run on this one worker. Each connector's actor makes its
// task configs, and new ones it reports restart the tasks whose config changed.
// Configs and statuses are kept in the state file.
#pragma once

#include "actors/abstract_herder.hpp"

namespace weir::actors {

class StandaloneHerder final : public AbstractHerder {
public:
  using AbstractHerder::AbstractHerder;

  runtime::rest::Created put_connector_config(const std::string& name,
                                              const runtime::rest::ConfigMap& config,
                                              std::optional<runtime::rest::InitialState> initial_state,
                                              bool allow_replace, Deadline deadline) override;
  runtime::rest::Created patch_connector_config(const std::string& name,
                                                const runtime::rest::ConfigPatch& patch,
                                                Deadline deadline) override;
  void delete_connector(const std::string& name, Deadline deadline) override;
  void pause_connector(const std::string& name, Deadline deadline) override;
  void resume_connector(const std::string& name, Deadline deadline) override;
  void stop_connector(const std::string& name, Deadline deadline) override;

private:
  /// Its connector actor makes them.
  std::optional<std::vector<StringMap>> make_task_configs(Connector& c) override;
  /// The tasks whose config changed restart; new ones start.
  void reconfigured(Connector& c, std::vector<StringMap> configs) override;
  /// A new connector actor makes the task configs again; only the tasks whose
  /// config changed restart (new ones start, surplus ones stop).
  std::set<size_t> restart_instance(Connector& c) override;
  /// prepare() and start every task.
  void start_connector(Connector& c);
  /// Starts the tasks of `c.task_configs` that do not run.
  void start_missing_tasks(Connector& c);
};

} // namespace weir::actors
