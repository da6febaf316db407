// A connector's own actor: Kafka Connect's Connector instance. It makes its task
// configs when asked (Connector.taskConfigs), and a source connector whose work can
// change under it (a JDBC source's tables) looks again every so often and reports
// new task configs by itself (Kafka Connect's requestTaskReconfiguration): the
// herder then restarts only the tasks whose config changed (in a cluster, the
// leader stores them first).
//
// Its tasks' stage actors are the task runner's; the connector actor is their parent in
// GET /weir/tree. A restart of the connector (POST /connectors/X/restart) ends it
// and spawns a new one.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>
#include <caf/meta/type_name.hpp>

#include "engine/worker/catalog.hpp"

namespace weir::actors {

/// (make_atom) -> MadeTasks: the connector's task configs, made now.
using make_atom = caf::atom_constant<caf::atom("make")>;

struct MadeTasks {
  std::vector<std::map<std::string, std::string>> configs; ///< resolved values
  std::string failure; ///< why they could not be made (scrubbed); "" when made
};

template <class Inspector>
auto inspect(Inspector& f, MadeTasks& x) {
  return f(caf::meta::type_name("weir::MadeTasks"), x.configs, x.failure);
}

/// Called on the connector actor when the task configs it looked at again differ
/// from those it made last.
using TasksChanged = std::function<void(std::vector<std::map<std::string, std::string>>)>;

/// Kafka Connect's Connector.taskConfigs(maxTasks): a sink's tasks share its config;
/// a source splits its work (files, tables, slots) between them. Throws what the
/// connector throws.
std::vector<std::map<std::string, std::string>> make_task_configs(const engine::worker::ConnectorPlan& plan);

/// How often a source connector looks for changed work (`table.poll.interval.ms` of
/// a JDBC source); zero for a connector whose task configs change only with its
/// config.
std::chrono::milliseconds watch_interval(const engine::worker::ConnectorPlan& plan);

/// Spawns the connector actor for `plan` (a plan the herder keeps alive while the
/// actor lives). `changed` is called from the actor's thread.
caf::actor spawn_connector_actor(caf::actor_system& sys, std::shared_ptr<const engine::worker::ConnectorPlan> plan,
                                 TasksChanged changed);

} // namespace weir::actors
