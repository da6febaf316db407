// A cluster node's herder (the connector and task side of Kafka Connect's
// DistributedHerder): connectors come from the config topic, every node runs the
// task configs stored there, and only the tasks the supervisor assigns to it. A
// connector's actor runs on the node its connector work item is assigned to; the
// task configs it makes go to the leader, which alone stores them (Kafka Connect's
// reconfiguration). Its REST face is ClusterHerder, which reads here and writes
// changes to the config topic; the node actor drives the rest.
#pragma once

#include <atomic>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actors/abstract_herder.hpp"
#include "runtime/cluster/assignor.hpp"
#include "runtime/cluster/state_log.hpp"

namespace weir::actors::cluster {

class NodeHerder final : public AbstractHerder {
public:
  /// `options.static_group_members` is set: the assignment, not the group, places tasks.
  NodeHerder(caf::actor_system& sys, runtime::state::StandaloneStore& state,
             runtime::metrics::MetricsRegistry& metrics, TaskRunnerOptions options);

  /// Applies what the config topic says: connectors added, reconfigured (their
  /// tasks here restart with the new config), paused, stopped, resumed or deleted.
  /// Tasks start only through run_only(), and with the task configs the leader
  /// stored (a task whose stored config changes restarts).
  void apply_configs(const runtime::cluster::ClusterConfig& cluster);
  /// The task configs the leader should store, in their stored form, for each
  /// connector whose stored ones are missing, out of date (its config changed
  /// since) or not what its connector makes now (after a restart): Kafka Connect's
  /// reconfiguration. Those of the connectors whose instance is assigned here, made
  /// by their actors; and, when `leading`, a STOPPED connector's, which are none. A
  /// connector that cannot make them is FAILED.
  std::map<std::string, std::vector<StringMap>> task_configs_to_store(const runtime::cluster::ClusterConfig& cluster,
                                                                      bool leading);
  /// Whether a connector actor here reported new task configs, or was restarted,
  /// since the last call (the node actor then offers them to the leader).
  bool take_reconfigured() { return reconfigured_.exchange(false); }
  /// Runs exactly `mine` here: tasks no longer in it drain, commit and stop; new
  /// ones start; a connector's actor runs here while its instance is in it.
  /// Returns once the stopped ones are stopped.
  void run_only(std::set<runtime::cluster::Work> mine, uint64_t generation);
  /// Ends every task and connector actor here at once, without draining or
  /// committing anything: this node was frozen or cut from Kafka (`why`, for the
  /// log), and its work may have moved (Kafka fences its late commits).
  void abandon_all(const std::string& why);
  /// Everything that should run somewhere: the instance of each connector that is
  /// not STOPPED (a PAUSED one's makes its task configs too) and a RUNNING one's
  /// tasks.
  std::set<runtime::cluster::Work> wanted_work() const;
  /// What the supervisor assigned here, and under which generation.
  std::pair<std::set<runtime::cluster::Work>, uint64_t> assigned() const;
  /// Every connector's status as this node sees it: its own tasks only.
  std::vector<runtime::rest::ConnectorStatus> local_statuses() const;
  /// The connectors whose connector actor runs here: this node reports their
  /// status.
  std::set<std::string> instances() const;

  // A node's connector changes reach it through the config topic (apply_configs),
  // written there by ClusterHerder: these are never called.
  runtime::rest::Created put_connector_config(const std::string&, const runtime::rest::ConfigMap&,
                                              std::optional<runtime::rest::InitialState>, bool, Deadline) override;
  runtime::rest::Created patch_connector_config(const std::string&, const runtime::rest::ConfigPatch&,
                                                Deadline) override;
  void delete_connector(const std::string&, Deadline) override;
  void pause_connector(const std::string&, Deadline) override;
  void resume_connector(const std::string&, Deadline) override;
  void stop_connector(const std::string&, Deadline) override;

private:
  /// None: the node with the connector's instance makes them
  /// (task_configs_to_store), the leader stores them and every node runs the stored
  /// ones.
  std::optional<std::vector<StringMap>> make_task_configs(Connector&) override { return std::nullopt; }
  /// Kept for the node actor's next offer to the leader.
  void reconfigured(Connector& c, std::vector<StringMap> configs) override;
  /// A new connector actor (where the instance is assigned) makes them for the
  /// node actor's next offer.
  std::set<size_t> restart_instance(Connector& c) override;
  void assignment_figures(runtime::metrics::WorkerFigures& figures) const override;
  /// Makes the tasks and connector actors here those of assigned_. Holding the
  /// change lock.
  void reconcile();
  /// Whether `name`'s instance is assigned here. Holding the change lock.
  bool owns_instance(const std::string& name) const;
  /// Ends `c`'s connector actor and forgets what it made. Holding the change lock.
  void end_instance(Connector& c);

  // Under the change lock:
  /// The task configs each connector actor here made for its current config (until
  /// a restart makes them again).
  std::map<std::string, std::vector<StringMap>> made_;
  /// Connectors whose config changed after their task configs were stored: no task
  /// of them starts until the leader stores the next ones.
  std::set<std::string> awaiting_;
  std::atomic<bool> reconfigured_{false};

  // Under mutex_:
  std::set<runtime::cluster::Work> assigned_;
  uint64_t generation_ = 0; // of the assignment the tasks here run under
  uint64_t rebalances_ = 0; // assignments applied here
  std::chrono::steady_clock::time_point last_rebalance_ = std::chrono::steady_clock::now();
};

} // namespace weir::actors::cluster
