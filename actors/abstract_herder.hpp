// What the standalone herder and a cluster node's herder share (Kafka Connect's
// AbstractHerder): the connectors known here, their task configs and connector
// actors, and Kafka Connect's REST API over them, with the tasks themselves in a
// TaskRunner. The herders differ in who makes and stores task configs: the
// standalone herder applies what its connector actors make; in a cluster the
// leader stores them in the config topic and every node runs the stored ones. The
// hooks below are where they differ.
//
// Threading: the REST server calls in from its connection threads and the owner
// calls tick() from its loop. Changes (creating, stopping, restarting...) are
// serialized, like Kafka Connect's herder, and wait for the previous one at most
// until their deadline. Reads never wait on a change or on an actor: status, the
// actor tree and metrics come from the stages' published statistics
// (runtime/metrics/metrics_registry.hpp), so a stuck stage cannot freeze the API.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/connector_actor.hpp"
#include "actors/task_runner.hpp"
#include "engine/worker/catalog.hpp"
#include "engine/worker/log_levels.hpp"
#include "runtime/kafka/admin.hpp"
#include "runtime/rest/connect_herder.hpp"

namespace weir::actors {

using runtime::rest::Deadline;

/// A connector actor that ends with its owner.
class OwnedActor {
public:
  OwnedActor() = default;
  explicit OwnedActor(caf::actor actor) : actor_(std::move(actor)) {}
  OwnedActor(OwnedActor&& other) noexcept : actor_(std::exchange(other.actor_, {})) {}
  OwnedActor& operator=(OwnedActor&& other) noexcept;
  ~OwnedActor() { end(); }
  const caf::actor& get() const { return actor_; }
  explicit operator bool() const { return static_cast<bool>(actor_); }

private:
  void end();
  caf::actor actor_;
};

class AbstractHerder : public runtime::rest::ConnectHerder {
public:
  AbstractHerder(caf::actor_system& sys, runtime::state::StandaloneStore& state,
                 runtime::metrics::MetricsRegistry& metrics, TaskRunnerOptions options);
  ~AbstractHerder() override;
  AbstractHerder(const AbstractHerder&) = delete;
  AbstractHerder& operator=(const AbstractHerder&) = delete;

  /// The REST listener's host:port once bound (port 0 picks one).
  void set_worker_id(std::string id);
  std::string worker_id() const;
  /// Start-up is complete: GET /health answers healthy from now on.
  void mark_ready() { ready_ = true; }
  /// The owner's periodic upkeep (every ~100 ms): source offsets are stored every
  /// offset.flush.interval.ms, rates are sampled, failed tasks restarted, and the
  /// task configs connector actors reported are used.
  void tick();
  /// One progress line per connector, figures over the last `interval_seconds`;
  /// also records every task's status in the state file.
  std::vector<std::string> progress(double interval_seconds);
  /// Drains every running task (in-flight batches written, offsets committed) and
  /// ends them. Returns how many did not drain within `timeout`.
  size_t shutdown(std::chrono::milliseconds timeout);

  // --- ConnectHerder: reads, restarts and offsets (the changes to configs and
  // target states are each herder's own)
  runtime::rest::ServerInfo server_info(Deadline deadline) override;
  void health_check(Deadline deadline) override;
  bool ready() override { return ready_; }
  std::vector<std::string> connectors(Deadline deadline) override;
  runtime::rest::ConnectorInfo connector_info(const std::string& name, Deadline deadline) override;
  runtime::rest::ConnectorStatus connector_status(const std::string& name, Deadline deadline) override;
  runtime::rest::TaskState task_status(const runtime::rest::TaskId& id, Deadline deadline) override;
  std::vector<runtime::rest::TaskInfo> task_configs(const std::string& name, Deadline deadline) override;
  void restart_connector(const std::string& name, Deadline deadline) override;
  runtime::rest::ConnectorStatus restart_connector_and_tasks(const runtime::rest::RestartRequest& request,
                                                             Deadline deadline) override;
  /// Every task this herder restarts is local: `forward` plays no part.
  void restart_task(const runtime::rest::TaskId& id, runtime::rest::Forward forward,
                    Deadline deadline) override;
  std::vector<runtime::rest::ConnectorOffset> connector_offsets(const std::string& name,
                                                                Deadline deadline) override;
  std::string alter_connector_offsets(const std::string& name,
                                      const std::vector<runtime::rest::ConnectorOffset>& offsets,
                                      Deadline deadline) override;
  std::string reset_connector_offsets(const std::string& name, Deadline deadline) override;
  std::vector<std::string> connector_active_topics(const std::string& name, Deadline deadline) override;
  void reset_connector_active_topics(const std::string& name, Deadline deadline) override;
  std::vector<runtime::rest::PluginInfo> plugins(Deadline deadline) override;
  std::vector<runtime::rest::ConfigKeyInfo> plugin_config(const std::string& plugin,
                                                          Deadline deadline) override;
  runtime::rest::ConfigInfos validate_connector_config(const runtime::rest::ConfigMap& config,
                                                       Deadline deadline) override;
  std::map<std::string, runtime::rest::LoggerLevel> logger_levels(Deadline deadline) override;
  std::optional<runtime::rest::LoggerLevel> logger_level(const std::string& name,
                                                         Deadline deadline) override;
  std::vector<std::string> set_worker_logger_level(const std::string& name, const std::string& level,
                                                   Deadline deadline) override;
  void set_cluster_logger_level(const std::string& name, const std::string& level,
                                Deadline deadline) override;
  runtime::rest::ActorTree actor_tree(const std::optional<std::string>& connector,
                                      Deadline deadline) override;
  std::string metrics_text(Deadline deadline) override;
  void tap(const runtime::rest::TaskId& id, const std::string& stage, int count, runtime::rest::Forward forward,
           Deadline deadline, runtime::rest::TapSink& sink) override;

protected:
  /// A connector known here.
  struct Connector {
    engine::worker::ConnectorPlan plan;
    /// Its connector actor (Kafka Connect's Connector instance), while it has one:
    /// in standalone from its start, in a cluster on the node its instance is
    /// assigned to.
    OwnedActor instance;
    uint64_t instances = 0;         ///< connector actors spawned for it: 1 + its restarts
    std::string target = "RUNNING"; ///< RUNNING, PAUSED or STOPPED
    /// What its tasks run with (its tasks shown PAUSED while paused).
    std::vector<StringMap> task_configs;
    std::string failure;    ///< why its tasks could not be made (connector FAILED)
    std::string plan_error; ///< why its config was refused (connector FAILED)
    int32_t partitions = -1; ///< of a sink's topics; -1 unknown
    uint64_t last_written = 0;
    bool topics_reset = false;
  };

  // --- where the herders differ

  /// The task configs `c` runs with from now on, made here (standalone), or none
  /// (a cluster node runs the ones its leader stores). Throws when they cannot be made.
  virtual std::optional<std::vector<StringMap>> make_task_configs(Connector& c) = 0;
  /// A connector actor reported new task configs (watching its work). Holding the
  /// change lock.
  virtual void reconfigured(Connector& c, std::vector<StringMap> configs) = 0;
  /// Kafka Connect's restart of the connector alone (POST .../restart). Holding
  /// the change lock. Returns the tasks it started or restarted here.
  virtual std::set<size_t> restart_instance(Connector& c) = 0;
  /// Adds what the herder knows of assignments to the worker metrics.
  virtual void assignment_figures(runtime::metrics::WorkerFigures&) const {}

  // --- for both

  /// Runs `change` once the changes before it are done (RequestTimeout at the
  /// deadline, naming what the herder is busy with). `doing` names this change.
  template <class F>
  auto serialized(const std::string& doing, Deadline deadline, F change);
  /// Says what the change in progress is doing (the change lock held).
  void doing(std::string what);
  Connector& get(const std::string& name); // 404 when unknown; under mutex_
  /// Checks `c`'s topics and makes its task configs (make_task_configs); false
  /// (connector FAILED) when that fails.
  bool prepare(Connector& c);
  /// Starts tasks `ids` of `c` with its task configs.
  void start_tasks(Connector& c, const std::vector<size_t>& ids);
  /// Makes `next` the tasks' configs: running tasks whose config changed, or that
  /// have none in it, drain and stop (the caller starts what should run). Returns
  /// those tasks.
  std::set<size_t> use_task_configs(Connector& c, std::vector<StringMap> next);
  /// Spawns `c`'s connector actor (ending the one it had).
  void spawn_instance(Connector& c);
  /// Asks `c`'s connector actor (spawned if it has none) for its task configs.
  MadeTasks make_tasks(Connector& c);
  /// Drains `c`'s tasks (`only` those, if given) and ends them.
  void drain_tasks(Connector& c, const std::optional<std::set<size_t>>& only = std::nullopt);
  /// Drains and forgets a deleted connector.
  void remove(const std::string& name);
  runtime::rest::ConnectorStatus status_of(const Connector& c) const; // under mutex_

  caf::actor_system& sys_;
  SharedStore state_;
  TaskRunner runner_;
  std::timed_mutex changes_; // held by the change in progress
  // Guards what follows. Connector fields are written holding both changes_ and
  // mutex_, and read holding either.
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<Connector>> connectors_;

private:
  /// Passes on the task configs connector actors reported since the last tick.
  void apply_reconfigurations();
  /// The broker's cluster id, once a broker gave it; "" until then.
  std::string kafka_cluster_id(Deadline deadline);

  struct Reconfigurations;
  std::shared_ptr<Reconfigurations> reconfigurations_;
  std::atomic<bool> ready_{false};
  engine::worker::LogLevels loggers_;
  std::mutex cluster_id_mutex_;
  std::string cluster_id_;
  runtime::kafka::PartitionCounter partition_counter_; // a sink's topics, when it starts
  std::string doing_; // what the change in progress is doing; under mutex_
  std::string worker_id_; // under mutex_
};

template <class F>
auto AbstractHerder::serialized(const std::string& what, Deadline deadline, F change) {
  std::unique_lock changes{changes_, std::defer_lock};
  if (!changes.try_lock_until(deadline)) {
    std::lock_guard lock{mutex_};
    throw runtime::rest::RequestTimeout(doing_);
  }
  doing(what);
  return change();
}

} // namespace weir::actors
