// A worker: runs connectors as task actors and answers Kafka Connect's REST API
// about them (it is the ConnectHerder of `weir standalone`). Connectors come and go
// at run time: created, reconfigured, paused, stopped, restarted and deleted.
//
// Threading: the REST server calls in from its connection threads and the owner
// calls tick() from its loop. Changes (creating, stopping, restarting...) are
// serialized, like Kafka Connect's herder, and wait for the previous one at most
// until their deadline. Reads never wait on a change or on an actor: status, the
// actor tree and metrics come from the stages' published statistics
// (runtime/metrics/metrics_registry.hpp), so a stuck stage cannot freeze the API.
#pragma once

#include <atomic>
#include <chrono>
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
#include "runtime/cluster/assignor.hpp"
#include "runtime/cluster/state_log.hpp"
#include "runtime/kafka/producer.hpp"
#include "runtime/connector_api/source_task.hpp"
#include "runtime/metrics/metrics_registry.hpp"
#include "runtime/metrics/node_figures.hpp"
#include "runtime/metrics/stage_rates.hpp"
#include "runtime/metrics/verdict.hpp"
#include "runtime/rest/connect_herder.hpp"
#include "runtime/state/standalone_store.hpp"
#include "engine/worker/catalog.hpp"
#include "engine/worker/log_levels.hpp"

namespace weir::actors {

using runtime::rest::Deadline;

/// The worker's own settings, from its properties (see worker_options_def()).
struct WorkerOptions {
  std::map<std::string, std::string> config; ///< the worker config, defaults filled in
  std::string worker_id;                     ///< host:port of its REST listener
  /// How long a stopping task may take to drain (Kafka Connect's
  /// task.shutdown.graceful.timeout.ms); past it its actors are ended anyway.
  std::chrono::milliseconds graceful_timeout{5000};
  /// Automatic restarts of a FAILED task: at most this many in a row, the first
  /// after `restart_backoff`, each next one twice as late, up to `restart_backoff_max`.
  int restart_max_attempts = 3;
  std::chrono::milliseconds restart_backoff{1000};
  std::chrono::milliseconds restart_backoff_max{60000};
  /// Where source offsets are kept: a node's offset.storage.topic (Kafka Connect's
  /// format), or the state file when empty (standalone).
  std::string offsets_topic = {};
  /// A cluster node's worker: tasks run only where the supervisor assigns them
  /// (run_only), connectors come from the config topic (apply_configs).
  bool cluster = false;
};

class Worker final : public runtime::rest::ConnectHerder {
public:
  Worker(caf::actor_system& sys, runtime::state::StandaloneStore& state,
         runtime::metrics::MetricsRegistry& metrics, WorkerOptions options);
  /// Ends every task's actors without draining them (shutdown() drains).
  ~Worker() override;
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  /// The REST listener's host:port once bound (port 0 picks one).
  void set_worker_id(std::string id) {
    std::lock_guard lock{mutex_};
    options_.worker_id = std::move(id);
  }
  std::string worker_id() const {
    std::lock_guard lock{mutex_};
    return options_.worker_id;
  }
  /// Start-up is complete: GET /health answers healthy from now on.
  void mark_ready() { ready_ = true; }
  /// The owner's periodic upkeep (every ~100 ms): source offsets are stored every
  /// offset.flush.interval.ms, rates are sampled, failed tasks restarted.
  void tick();
  /// One progress line per connector, figures over the last `interval_seconds`;
  /// also records every task's status in the state file.
  std::vector<std::string> progress(double interval_seconds);
  /// Drains every running task (in-flight batches written, offsets committed) and
  /// ends them. Returns how many did not drain within `timeout`.
  size_t shutdown(std::chrono::milliseconds timeout);

  // --- cluster mode: a node runs the tasks its supervisor assigns to it
  /// Applies what the config topic says: connectors added, reconfigured (their
  /// tasks here restart with the new config), paused, stopped, resumed or deleted.
  /// Tasks start only through run_only(), and with the task configs the leader
  /// stored (a task whose stored config changes restarts).
  void apply_configs(const runtime::cluster::ClusterConfig& cluster);
  /// On the leader: the task configs to store for each connector whose stored ones
  /// are missing, out of date (its config changed since) or not what its connector
  /// makes now (after a restart): Kafka Connect's reconfiguration. A STOPPED
  /// connector's are none. A connector that cannot make them is FAILED.
  std::map<std::string, std::vector<std::map<std::string, std::string>>>
  task_configs_to_store(const runtime::cluster::ClusterConfig& cluster);
  /// Runs exactly `mine` here: tasks no longer in it drain, commit and stop; new
  /// ones start. Returns once the stopped ones are stopped.
  void run_only(std::set<runtime::cluster::Work> mine, uint64_t generation);
  /// Ends every task here at once, without draining or committing anything: this
  /// node was frozen or cut from Kafka (`why`, for the log), and its work may have
  /// moved (Kafka fences its late commits).
  void abandon_all(const std::string& why);
  /// Everything that should run somewhere: each RUNNING connector's instance and
  /// tasks.
  std::set<runtime::cluster::Work> wanted_work() const;
  /// What the supervisor assigned here, and under which generation.
  std::pair<std::set<runtime::cluster::Work>, uint64_t> assigned() const;
  /// Every connector's status as this node sees it: its own tasks only.
  std::vector<runtime::rest::ConnectorStatus> local_statuses() const;
  /// The connectors whose connector actor runs here (on the leader): this node
  /// reports their status.
  std::set<std::string> instances() const;
  /// Ends every connector actor here: this node no longer leads.
  void end_instances();

  // --- ConnectHerder
  runtime::rest::ServerInfo server_info(Deadline deadline) override;
  void health_check(Deadline deadline) override;
  bool ready() override { return ready_; }
  std::vector<std::string> connectors(Deadline deadline) override;
  runtime::rest::ConnectorInfo connector_info(const std::string& name, Deadline deadline) override;
  runtime::rest::ConnectorStatus connector_status(const std::string& name, Deadline deadline) override;
  runtime::rest::TaskState task_status(const runtime::rest::TaskId& id, Deadline deadline) override;
  std::vector<runtime::rest::TaskInfo> task_configs(const std::string& name, Deadline deadline) override;
  runtime::rest::Created put_connector_config(const std::string& name,
                                              const runtime::rest::ConfigMap& config,
                                              std::optional<runtime::rest::InitialState> initial_state,
                                              bool allow_replace, Deadline deadline) override;
  runtime::rest::Created patch_connector_config(const std::string& name,
                                                const runtime::rest::ConfigPatch& patch,
                                                Deadline deadline) override;
  void delete_connector(const std::string& name, Deadline deadline) override;
  void restart_connector(const std::string& name, Deadline deadline) override;
  runtime::rest::ConnectorStatus restart_connector_and_tasks(const runtime::rest::RestartRequest& request,
                                                             Deadline deadline) override;
  /// Every task of this worker is local: `forward` plays no part.
  void restart_task(const runtime::rest::TaskId& id, runtime::rest::Forward forward,
                    Deadline deadline) override;
  void pause_connector(const std::string& name, Deadline deadline) override;
  void resume_connector(const std::string& name, Deadline deadline) override;
  void stop_connector(const std::string& name, Deadline deadline) override;
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

  struct Connector; // a connector and its running tasks (worker.cpp)
  struct DoneBoard;
  struct Reconfigurations;

  /// Cluster mode, on the leader: whether a connector actor reported new task
  /// configs since the last call (store_task_configs then stores them).
  bool take_reconfigured() { return reconfigured_.exchange(false); }

private:
  /// Runs `change` once the changes before it are done (RequestTimeout at the
  /// deadline, naming what the worker is busy with). `doing` names this change.
  template <class F>
  auto serialized(const std::string& doing, Deadline deadline, F change);
  Connector& get(const std::string& name); // 404 when unknown; under mutex_
  /// Makes `c`'s task configs and checks its topics; false (connector FAILED) when
  /// that fails.
  bool prepare(Connector& c);
  /// Spawns tasks `ids` of a prepared connector (a source's from its stored offsets).
  void start_tasks(Connector& c, const std::vector<size_t>& ids);
  /// Makes `next` the tasks' configs: running tasks whose config changed, or that
  /// have none in it, drain and stop (the caller starts what should run).
  void use_task_configs(Connector& c, std::vector<std::map<std::string, std::string>> next);
  /// Restarts `c`'s connector (not its tasks): makes its task configs again, and
  /// restarts the tasks whose config changed (a cluster's leader makes them).
  void restart_instance(Connector& c);
  /// Spawns `c`'s connector actor (ending the one it had).
  void spawn_instance(Connector& c);
  /// Asks `c`'s connector actor (spawned if it has none) for its task configs.
  MadeTasks make_tasks(Connector& c);
  /// Starts the tasks of `c.task_configs` that do not run (standalone).
  void start_missing_tasks(Connector& c);
  /// Applies the task configs connector actors reported since the last tick: the
  /// tasks whose config changed restart (standalone), or the leader stores them.
  void apply_reconfigurations();
  /// prepare() and start every task (standalone).
  void start_connector(Connector& c);
  /// Drains `c`'s tasks (`only` those, if given), at most
  /// task.shutdown.graceful.timeout.ms, and ends them.
  void drain_tasks(Connector& c, const std::optional<std::set<size_t>>& only = std::nullopt);
  /// Sends stop to every task with something to drain; returns the stages whose
  /// done to wait for. Under mutex_.
  std::vector<std::string> ask_to_drain(Connector& c, const std::optional<std::set<size_t>>& only);
  /// Stores source offsets and tells the tasks' actors to end; returns them. Under
  /// mutex_.
  std::vector<caf::actor> end_tasks(Connector& c, const std::optional<std::set<size_t>>& only);
  /// Waits (at most 15 s) until `actors` have ended. Not under mutex_.
  void await_exit(std::vector<caf::actor> actors);
  void restart_one(Connector& c, size_t task);
  /// Stores (`put`) and forgets (`erase`) source offsets of a connector; by_request:
  /// through the REST API (also for an exactly-once connector). Under mutex_.
  void store_offsets(const engine::worker::ConnectorPlan& plan, const runtime::connector_api::OffsetMap& put,
                     const std::vector<std::string>& erase = {}, bool by_request = false);
  /// A connector's stored source offsets. Not under mutex_ (reads a topic).
  runtime::connector_api::OffsetMap stored_offsets(const std::string& connector);
  runtime::kafka::Producer& offsets_producer(); // under mutex_
  void flush_offsets(Connector& c);
  void sample_rates();
  void restart_failed_tasks();
  runtime::rest::ConnectorStatus status_of(const Connector& c) const;

  caf::actor_system& sys_;
  runtime::state::StandaloneStore& state_;
  runtime::metrics::MetricsRegistry& metrics_;
  WorkerOptions options_;
  std::shared_ptr<DoneBoard> done_;
  std::shared_ptr<Reconfigurations> reconfigurations_;
  std::atomic<bool> reconfigured_{false};
  caf::actor observer_; // takes the (done, stats) of drained tasks into done_
  std::atomic<bool> ready_{false};
  engine::worker::LogLevels loggers_;
  /// The broker's cluster id, once a broker gave it; "" until then.
  std::string kafka_cluster_id(Deadline deadline);
  std::mutex cluster_id_mutex_;
  std::string cluster_id_;

  std::timed_mutex changes_; // held by the change in progress
  // Guards what follows. Connector fields are written holding both changes_ and
  // mutex_, and read holding either.
  mutable std::mutex mutex_;
  std::string doing_; // what the change in progress is doing
  std::map<std::string, std::unique_ptr<Connector>> connectors_;
  runtime::metrics::RateSampler rates_;
  runtime::metrics::NodeSampler node_sampler_; // this node's scheduler and process, last interval
  std::map<std::pair<std::string, int>, runtime::metrics::Verdict> verdicts_; // by connector and task
  void judge_tasks(); // verdicts_ from rates_ and node_sampler_; holding mutex_
  std::chrono::steady_clock::time_point last_flush_;
  std::unique_ptr<runtime::kafka::Producer> offsets_producer_;
  uint64_t generation_ = 0; // of the assignment the tasks here run under (cluster mode)
  uint64_t rebalances_ = 0; // assignments applied here (cluster mode)
  std::chrono::steady_clock::time_point last_rebalance_ = std::chrono::steady_clock::now();
  std::set<runtime::cluster::Work> assigned_;
  void reconcile(); // cluster mode: makes the tasks here those of assigned_
};

} // namespace weir::actors
