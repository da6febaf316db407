// The task runner: Kafka Connect's Worker. It runs the tasks a herder gives it on
// this node (a task actor each, over its stage actors), drains them on stop
// (in-flight batches written, offsets committed), restarts a FAILED task with
// backoff, stores source offsets, and tells how its tasks are doing. It decides
// nothing about which tasks should run, or with which configs: its herder
// (standalone, or a cluster node's) does.
//
// Each connector with tasks here has a supervisor actor, the parent of its task
// actors (connector_supervisor.hpp): a task's failure arrives there as a message
// (task_failed_atom, with the trace), and the runner applies the policy at once:
// FAILED with the trace, an automatic restart scheduled with backoff, or given up.
// The restart itself runs with the herder's other changes.
//
// Threading: changes (start, drain, restart...) come one at a time from the herder,
// which serializes them. Reads (statuses, tree, figures) take only a short lock and
// read what the runner recorded and the stages' published statistics, never an
// actor, so a stuck stage cannot freeze them.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/task_figures.hpp"
#include "engine/pipeline/join_gate.hpp"
#include "engine/worker/catalog.hpp"
#include "runtime/connector_api/source_task.hpp"
#include "runtime/kafka/producer.hpp"
#include "runtime/metrics/metrics_registry.hpp"
#include "runtime/metrics/node_figures.hpp"
#include "runtime/metrics/stage_rates.hpp"
#include "runtime/metrics/verdict.hpp"
#include "runtime/rest/connect_herder.hpp"
#include "runtime/state/standalone_store.hpp"

namespace weir::actors {

using engine::worker::StringMap;

/// The state file, shared by a herder (connector statuses) and its runner (task
/// statuses, source offsets): one caller at a time.
class SharedStore {
public:
  explicit SharedStore(runtime::state::StandaloneStore& store) : store_(store) {}
  template <class F>
  auto with(F f) {
    std::lock_guard lock{mutex_};
    return f(store_);
  }

private:
  std::mutex mutex_;
  runtime::state::StandaloneStore& store_;
};

struct TaskRunnerOptions {
  StringMap config; ///< the worker config, defaults filled in
  /// How long a stopping task may take to drain (Kafka Connect's
  /// task.shutdown.graceful.timeout.ms); past it its actors are ended anyway.
  std::chrono::milliseconds graceful_timeout{5000};
  /// Automatic restarts of a FAILED task: at most this many in a row, the first
  /// after `restart_backoff`, each next one twice as late, up to `restart_backoff_max`.
  int restart_max_attempts = 3;
  std::chrono::milliseconds restart_backoff{1000};
  std::chrono::milliseconds restart_backoff_max{60000};
  /// Where source offsets are kept: offset.storage.topic (Kafka Connect's format),
  /// or the state file when empty.
  std::string offsets_topic = {};
  /// Whether a sink task's consumer joins its group with a static
  /// group.instance.id: when an assignor places each task on one node, the
  /// placement, not the group, decides who reads.
  bool static_group_members = false;
};

class TaskRunner {
public:
  TaskRunner(caf::actor_system& sys, SharedStore& state, runtime::metrics::MetricsRegistry& metrics,
             TaskRunnerOptions options);
  /// Ends every task's actors without draining them (shutdown() drains).
  ~TaskRunner();
  TaskRunner(const TaskRunner&) = delete;
  TaskRunner& operator=(const TaskRunner&) = delete;

  const TaskRunnerOptions& options() const { return options_; }

  // --- changes: one at a time (the herder serializes them)

  /// Spawns tasks `ids` of `plan` with `configs[id]` (a source's from its stored
  /// offsets). A task that cannot start is FAILED alone; `partitions` (of a sink's
  /// topics, -1 unknown) sizes the gate its tasks start reading behind together.
  void start(const engine::worker::ConnectorPlan& plan, const std::vector<StringMap>& configs,
             const std::vector<size_t>& ids, int32_t partitions);
  /// Drains `connector`'s tasks (`only` those, if given), at most the graceful
  /// timeout, and ends them. `waiting` is told which stages it waits for.
  void drain(const std::string& connector, const std::optional<std::set<size_t>>& only = std::nullopt,
             const std::function<void(const std::string&)>& waiting = {});
  /// Ends task `task` of `connector` and starts it again with the same config.
  /// `by_request`: through the REST API, which starts its automatic restarts anew.
  void restart(const std::string& connector, size_t task, bool by_request);
  /// Restarts the FAILED tasks whose automatic restart is due (see apply_policy).
  void restart_due();
  /// Ends every task at once, without draining or committing anything (`why`, for
  /// the log): their work may have moved, and Kafka fences late commits.
  void abandon_all(const std::string& why);
  /// Forgets a deleted connector's figures (its tasks drained first).
  void forget(const std::string& connector);
  /// Drains every task and ends them, each shown UNASSIGNED. Returns how many did
  /// not drain within `timeout`.
  size_t shutdown(std::chrono::milliseconds timeout);
  /// Logged with every task start and stop: the assignment the tasks run under.
  void set_generation(uint64_t generation);

  // --- upkeep, from the owner's loop (every ~100 ms)

  /// Stores source offsets every offset.flush.interval.ms and samples rates.
  void tick();

  // --- source offsets (the state file, or the offsets topic)

  /// Stores (`put`) and forgets (`erase`) source offsets of a connector; by_request:
  /// through the REST API (also for an exactly-once connector).
  void store_offsets(const engine::worker::ConnectorPlan& plan, const runtime::connector_api::OffsetMap& put,
                     const std::vector<std::string>& erase = {}, bool by_request = false);
  /// A connector's stored source offsets (may read a topic: slow).
  runtime::connector_api::OffsetMap stored_offsets(const std::string& connector);

  // --- reads: never wait on a change or an actor

  /// The ids of `connector`'s tasks here.
  std::set<size_t> tasks_of(const std::string& connector) const;
  size_t task_count() const;
  /// The status of each of `connector`'s tasks here, words and verdicts included;
  /// `partitions` of a sink's topics (-1 unknown) explains idle tasks.
  std::vector<runtime::rest::TaskState> statuses(const engine::worker::ConnectorPlan& plan, int32_t partitions,
                                                 const std::string& worker_id) const;
  /// Each task's figures, for the progress line.
  std::map<size_t, TaskFigures> figures(const std::string& connector) const;
  /// A task's stage level in the actor tree (empty when it does not run here).
  void fill_tree(const engine::worker::ConnectorPlan& plan, runtime::rest::TreeTask& task) const;
  /// The id of `connector`'s supervisor here, the parent of its task actors, while
  /// any of its tasks run here.
  std::optional<uint64_t> supervisor_id(const std::string& connector) const;
  /// The stage actor of a task that a tap may watch; RestError 404/400 otherwise.
  caf::actor tap_target(const engine::worker::ConnectorPlan& plan, int task, const std::string& stage) const;
  /// This node's scheduler and process over the last interval.
  runtime::metrics::NodeFigures node_figures() const;
  /// The Prometheus text of every stage and of the last sampling interval.
  std::string metrics_text() const;

  struct Task;

private:
  /// From the connector's supervisor: task `task` of `connector` failed (its task
  /// actor `from`; a run ended since is ignored).
  void task_failed(const std::string& connector, size_t task, const caf::actor_addr& from, const std::string& trace);
  /// `connector`'s supervisor here, spawned on first use. Under mutex_.
  caf::actor supervisor_of(const engine::worker::ConnectorPlan& plan);
  /// The automatic restart policy for a task just FAILED: its restart scheduled with
  /// backoff, or given up past restart_max_attempts. Under mutex_.
  void apply_policy(const std::string& connector, size_t task, Task& t);
  Task spawn(const engine::worker::ConnectorPlan& plan, size_t t, const StringMap& config,
             const runtime::connector_api::OffsetMap& stored,
             std::shared_ptr<engine::pipeline::JoinGate> join_gate, const caf::actor& supervisor);
  /// Sends stop to every task of `connector` with something to drain; returns the
  /// stages whose done to wait for. Under mutex_.
  std::vector<std::string> ask_to_drain(const std::string& connector, const std::optional<std::set<size_t>>& only);
  /// Stores source offsets and tells the tasks' actors to end (and the connector's
  /// supervisor, once none is left); returns them. Under mutex_.
  std::vector<caf::actor> end_tasks(const std::string& connector, const std::optional<std::set<size_t>>& only);
  /// Waits (at most 15 s) until `actors` have ended. Not under mutex_.
  void await_exit(std::vector<caf::actor> actors);
  runtime::kafka::Producer& offsets_producer(); // under mutex_
  void store_offsets_locked(const engine::worker::ConnectorPlan& plan, const runtime::connector_api::OffsetMap& put,
                            const std::vector<std::string>& erase, bool by_request);
  void judge_tasks(); // verdicts_ from rates_ and node_sampler_; under mutex_

  struct DoneBoard;
  struct ParentLink;
  /// A connector's tasks here, with the plan they run under and their parent.
  struct Running {
    std::shared_ptr<const engine::worker::ConnectorPlan> plan;
    std::map<size_t, Task> tasks;
    caf::actor supervisor;
  };

  caf::actor_system& sys_;
  SharedStore& state_;
  runtime::metrics::MetricsRegistry& metrics_;
  TaskRunnerOptions options_;
  std::shared_ptr<DoneBoard> done_;
  caf::actor observer_; // takes the (done, stats) of drained tasks into done_
  std::shared_ptr<ParentLink> link_; // how supervisors reach task_failed()

  mutable std::mutex mutex_; // guards what follows
  std::map<std::string, Running> running_; // by connector
  runtime::metrics::RateSampler rates_;
  runtime::metrics::NodeSampler node_sampler_; // this node's scheduler and process, last interval
  std::map<std::pair<std::string, int>, runtime::metrics::Verdict> verdicts_; // by connector and task
  std::chrono::steady_clock::time_point last_flush_;
  std::unique_ptr<runtime::kafka::Producer> offsets_producer_;
  uint64_t generation_ = 0;
};

} // namespace weir::actors
