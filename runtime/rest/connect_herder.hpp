// The interface between Kafka Connect's REST API and whatever runs the connectors,
// named after Kafka Connect's Herder. The REST layer (connect_api.hpp) turns HTTP
// into these calls and their results into Kafka Connect's JSON; a worker (standalone
// or a cluster node) implements them, typically by asking its connector actors.
//
// Contract for implementations:
// - Thread-safety: methods are called concurrently from the server's connection
//   threads, never from an actor; they may block.
// - Deadlines: every call carries the time by which the REST client must be
//   answered (`rest.request.timeout.ms`-like, 90 s by default as in Kafka Connect).
//   A call that cannot finish by then throws RequestTimeout naming what it was
//   waiting for; it must not block past the deadline (the server's stop waits for
//   calls in flight).
// - Errors: throw RestError(status, message) with Kafka Connect's status and wording
//   (helpers below): 404 "Connector X not found", 409 "Connector X already exists",
//   400 for an invalid config (Kafka Connect's "Connector configuration is invalid
//   and contains the following N error(s): ..."). weir::ConfigError becomes 400;
//   any other exception a 500 with its message.
// - Secrets: configs are returned as stored (provider references such as
//   `${env:DB_PASS}` unresolved, as Kafka Connect does), with the keys that hold
//   secrets (PASSWORD-typed; for resolved values such as task configs, also those a
//   provider gave) in `secret_keys`; the REST layer redacts those, every key whose
//   name says it is a secret, and credentials in URLs (see docs/rest.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/rest/http_message.hpp"
#include "runtime/metrics/node_figures.hpp"
#include "runtime/metrics/stage_rates.hpp"
#include "runtime/stage_stats.hpp"

namespace weir::runtime::rest {

using Deadline = std::chrono::steady_clock::time_point;
using ConfigMap = std::map<std::string, std::string>;
/// A PATCH of a config: a value replaces, std::nullopt (JSON null) removes the key.
using ConfigPatch = std::map<std::string, std::optional<std::string>>;

/// Kafka Connect's ConnectorType, written in lower case.
enum class ConnectorType { source, sink, unknown };
/// Kafka Connect's `initial_state` of a new connector.
enum class InitialState { running, paused, stopped };

struct TaskId {
  std::string connector;
  int task = 0;
};

/// Whether a request about a task may go on to the worker that runs it (Kafka
/// Connect's `forward` query parameter). A request that was forwarded once comes
/// with `forward=false` and must be answered where it arrives: two workers that
/// disagree about a task's owner (during a rebalance) never pass it back and forth.
enum class Forward { allowed, refused };

/// GET /connectors/{name}: the config and task ids.
struct ConnectorInfo {
  std::string name;
  ConfigMap config;
  std::vector<TaskId> tasks;
  ConnectorType type = ConnectorType::unknown;
  std::set<std::string> secret_keys; // config keys to redact (not written)
};

/// One task's generated config (GET /connectors/{name}/tasks).
struct TaskInfo {
  TaskId id;
  ConfigMap config;
  std::set<std::string> secret_keys;
};

/// A connector's or task's state: UNASSIGNED, RUNNING, PAUSED, STOPPED, FAILED,
/// RESTARTING; `trace` (the failure) is written only when non-empty.
struct StateInfo {
  std::string state;
  std::string worker_id;
  std::string trace;
};

struct TaskState {
  int id = 0;
  StateInfo state;
  /// weir's verdict on what holds the task back (runtime/metrics/verdict.hpp); "" unknown.
  std::string bottleneck = {};
};

/// GET /connectors/{name}/status.
struct ConnectorStatus {
  std::string name;
  StateInfo connector;
  std::vector<TaskState> tasks;
  ConnectorType type = ConnectorType::unknown;
};

/// The result of creating or replacing a connector's config.
struct Created {
  bool created = false; // false: an existing connector was reconfigured
  ConnectorInfo info;
};

/// POST /connectors/{name}/restart with `includeTasks` or `onlyFailed`.
struct RestartRequest {
  std::string connector;
  bool only_failed = false;
  bool include_tasks = false;
};

/// One {partition, offset} pair. Both are JSON texts as the connector defines them
/// (a sink's: {"kafka_topic":..,"kafka_partition":..} / {"kafka_offset":..});
/// `offset` is "null" in a PATCH that resets that partition.
struct ConnectorOffset {
  std::string partition;
  std::string offset;
};

/// GET /connector-plugins: `type` is Kafka Connect's plugin type name (source,
/// sink, transformation, predicate, converter, header_converter); an empty
/// `version` is left out, as Kafka Connect does for undefined versions.
struct PluginInfo {
  std::string class_name;
  std::string type;
  std::string version;
};

/// One key's definition (ConfigKeyInfo). `type` and `importance` are upper case
/// (STRING, HIGH); `width` is NONE, SHORT, MEDIUM or LONG.
struct ConfigKeyInfo {
  std::string name;
  std::string type;
  bool required = false;
  std::optional<std::string> default_value;
  std::string importance;
  std::string documentation;
  std::optional<std::string> group;
  int order_in_group = -1;
  std::string width = "NONE";
  std::string display_name;
  std::vector<std::string> dependents;
};

/// One key's validation result (ConfigValueInfo); passwords already `[hidden]`.
struct ConfigValueInfo {
  std::string name;
  std::optional<std::string> value;
  std::vector<std::string> recommended_values;
  std::vector<std::string> errors;
  bool visible = true;
};

struct ConfigInfo {
  ConfigKeyInfo definition;
  ConfigValueInfo value;
};

/// PUT /connector-plugins/{plugin}/config/validate (ConfigInfos).
struct ConfigInfos {
  std::string name; // the connector class
  int error_count = 0;
  std::vector<std::string> groups;
  std::vector<ConfigInfo> configs;
};

/// A logger's level; `last_modified` (epoch ms) only once set through the API.
struct LoggerLevel {
  std::string level;
  std::optional<int64_t> last_modified;
};

/// GET /: what this worker is.
struct ServerInfo {
  std::string version;
  std::string commit;
  std::string kafka_cluster_id;
};

/// One stage actor in the live actor tree (GET /weir/tree): its latest published
/// statistics and what they mean per second, measured by the worker over its last
/// sampling interval (about a second).
struct TreeStage {
  std::string name; ///< the stage's name in its task: "consumer", an SMT alias, "sink"...
  std::string role; ///< transform, sink_reader, sink_writer, source_reader, source_writer
  runtime::StageStats stats;
  runtime::metrics::StageRates rates = {}; ///< over the worker's last sampling interval
  /// How long its upstream waited for this stage's credit (the upstream's credit_wait).
  double upstream_wait = 0;
};

/// The actor behind a connector (Kafka Connect's Connector instance) or a task on
/// its node.
struct TreeInstance {
  uint64_t actor = 0;    ///< its CAF actor id
  uint64_t restarts = 0; ///< actors of the same connector (task) that ended before it here
};

struct TreeTask {
  int id = 0;
  StateInfo state;
  std::vector<TreeStage> stages; ///< in pipeline order, reader first
  std::string bottleneck = {};       ///< the verdict in words; "" when not known yet
  std::string bottleneck_stage = {}; ///< the stage it names; "" for none
  /// Per record, from the poll that read it to its ack, over the last interval with
  /// acks, in seconds; 0 before the first ack.
  double poll_to_ack_p50 = 0;
  double poll_to_ack_p99 = 0;
  /// Its task actor here (ended, once it FAILED); none when it could not start.
  std::optional<TreeInstance> instance = {};
};

struct TreeConnector {
  std::string name;
  ConnectorType type = ConnectorType::unknown;
  StateInfo state;
  std::vector<TreeTask> tasks;
  /// Its connector actor, on the node that has one: in standalone while it is
  /// started, in a cluster on the leader.
  std::optional<TreeInstance> instance = {};
  /// Its supervisor on this node, the parent of its task actors here, while any of
  /// its tasks run here.
  std::optional<uint64_t> actor = {};
};

struct TreeNode {
  std::string id; ///< the worker id (host:port of its REST listener)
  bool leader = true;
  std::vector<TreeConnector> connectors;
  runtime::metrics::NodeFigures figures = {}; ///< its scheduler, threads and process
  bool unreachable = false; ///< a member that did not answer in time (no figures, no connectors)
};

/// Every node, its connectors, their tasks and their stage actors.
struct ActorTree {
  std::vector<TreeNode> nodes;
};

/// Thrown by a herder that could not answer by the deadline. The REST answer is
/// Kafka Connect's: 500 "Request timed out. The worker is currently <doing>".
class RequestTimeout : public RestError {
public:
  /// `doing` names what the herder was waiting for, e.g. "waiting for connector
  /// jdbc-sink to answer a status request (its actor's mailbox holds 1200 messages)".
  explicit RequestTimeout(const std::string& doing)
      : RestError(500, doing.empty() ? "Request timed out"
                                     : "Request timed out. The worker is currently " + doing),
        doing_(doing) {}
  const std::string& doing() const noexcept { return doing_; }

private:
  std::string doing_;
};

/// Where a tap's records go as they pass (ConnectHerder::tap): the REST layer's
/// streamed answer, or a forwarded tap's.
class TapSink {
public:
  virtual ~TapSink() = default;
  /// One record, as compact JSON (no newline inside); false when nobody reads any
  /// more: the tap ends.
  virtual bool record(std::string_view json) = 0;
  /// Whether the reader has gone, asked while no record passes (the tap then ends).
  virtual bool gone() = 0;
};

/// Kafka Connect's statuses for the usual herder errors.
inline RestError not_found(const std::string& message) { return RestError(404, message); }
inline RestError already_exists(const std::string& message) { return RestError(409, message); }
inline RestError bad_request(const std::string& message) { return RestError(400, message); }
inline RestError conflict(const std::string& message) { return RestError(409, message); }

/// What the REST API needs from a worker. See the contract at the top of the file.
class ConnectHerder {
public:
  virtual ~ConnectHerder() = default;

  // --- the worker
  virtual ServerInfo server_info(Deadline deadline) = 0;
  /// Returns once the worker can serve requests; throws RequestTimeout if not by
  /// `deadline` (GET /health then answers 503 "starting" or 500 "unhealthy").
  virtual void health_check(Deadline deadline) = 0;
  /// Whether start-up has completed (tells "starting" from "unhealthy").
  virtual bool ready() = 0;

  // --- connectors (unknown names: 404 "Connector X not found")
  virtual std::vector<std::string> connectors(Deadline deadline) = 0;
  virtual ConnectorInfo connector_info(const std::string& name, Deadline deadline) = 0;
  virtual ConnectorStatus connector_status(const std::string& name, Deadline deadline) = 0;
  /// Unknown task: 404 "Task X-N not found" (Kafka Connect's ConnectorTaskId form).
  virtual TaskState task_status(const TaskId& id, Deadline deadline) = 0;
  virtual std::vector<TaskInfo> task_configs(const std::string& name, Deadline deadline) = 0;
  /// Creates (POST /connectors, `allow_replace` false: 409 if it exists) or creates
  /// or replaces (PUT .../config). `config["name"] == name` always holds here.
  /// `initial_state` is given only on creation through POST.
  virtual Created put_connector_config(const std::string& name, const ConfigMap& config,
                                       std::optional<InitialState> initial_state,
                                       bool allow_replace, Deadline deadline) = 0;
  /// Applies `patch` to the current config (apply_config_patch) and reconfigures.
  virtual Created patch_connector_config(const std::string& name, const ConfigPatch& patch,
                                         Deadline deadline) = 0;
  virtual void delete_connector(const std::string& name, Deadline deadline) = 0;
  /// Restarts the connector instance only.
  virtual void restart_connector(const std::string& name, Deadline deadline) = 0;
  /// Restarts the connector and/or tasks as asked; returns the status with what
  /// will restart marked RESTARTING.
  virtual ConnectorStatus restart_connector_and_tasks(const RestartRequest& request,
                                                      Deadline deadline) = 0;
  /// A task running on another worker is restarted there when `forward` allows it.
  virtual void restart_task(const TaskId& id, Forward forward, Deadline deadline) = 0;
  virtual void pause_connector(const std::string& name, Deadline deadline) = 0;
  virtual void resume_connector(const std::string& name, Deadline deadline) = 0;
  virtual void stop_connector(const std::string& name, Deadline deadline) = 0;

  // --- offsets (changes on a connector not STOPPED: 400, Kafka Connect's message)
  virtual std::vector<ConnectorOffset> connector_offsets(const std::string& name, Deadline deadline) = 0;
  /// Returns the success message, e.g. "The offsets for this connector have been
  /// altered successfully".
  virtual std::string alter_connector_offsets(const std::string& name,
                                              const std::vector<ConnectorOffset>& offsets,
                                              Deadline deadline) = 0;
  virtual std::string reset_connector_offsets(const std::string& name, Deadline deadline) = 0;

  // --- topics the connector has used
  virtual std::vector<std::string> connector_active_topics(const std::string& name, Deadline deadline) = 0;
  virtual void reset_connector_active_topics(const std::string& name, Deadline deadline) = 0;

  // --- plugins
  /// Every plugin, in Kafka Connect's order: sinks, sources, transformations,
  /// predicates, converters, header converters. The REST layer filters.
  virtual std::vector<PluginInfo> plugins(Deadline deadline) = 0;
  /// Unknown plugin: 404 "Unknown plugin X.".
  virtual std::vector<ConfigKeyInfo> plugin_config(const std::string& plugin, Deadline deadline) = 0;
  /// Validates a connector config (its `connector.class` names the plugin).
  virtual ConfigInfos validate_connector_config(const ConfigMap& config, Deadline deadline) = 0;

  // --- loggers
  /// Loggers whose level is set explicitly, by name (the root logger is "root").
  virtual std::map<std::string, LoggerLevel> logger_levels(Deadline deadline) = 0;
  /// std::nullopt for an unknown logger (answered 404 "Logger X not found.").
  virtual std::optional<LoggerLevel> logger_level(const std::string& name, Deadline deadline) = 0;
  /// Sets `name` and its descendants to `level` (upper case, a log4j level name) on
  /// this worker; returns the names of the loggers changed.
  virtual std::vector<std::string> set_worker_logger_level(const std::string& name,
                                                           const std::string& level,
                                                           Deadline deadline) = 0;
  /// The same on every worker of the cluster (answered 204 at once).
  virtual void set_cluster_logger_level(const std::string& name, const std::string& level,
                                        Deadline deadline) = 0;

  // --- weir's own: what is running inside (see docs/rest.md)
  /// The live actor tree, of one connector when `connector` is given (404 if unknown).
  virtual ActorTree actor_tree(const std::optional<std::string>& connector, Deadline deadline) = 0;
  /// This node's part of the tree (GET /weir/tree?scope=node): what a cluster node
  /// asks the others for when it builds the whole tree.
  virtual ActorTree node_tree(const std::optional<std::string>& connector, Deadline deadline) {
    return actor_tree(connector, deadline);
  }
  /// GET /metrics: the Prometheus text exposition of every stage and task.
  virtual std::string metrics_text(Deadline deadline) = 0;
  /// Passes to `sink`, as they pass, copies of the next `count` records that pass
  /// stage `stage` of task `id`, each as one JSON object {"topic","partition",
  /// "offset","timestamp","key","value","headers"} (weir transform's output form).
  /// Returns when `count` have passed, at the deadline, or once the sink's reader
  /// has gone (asked at least every 100 ms). Unknown task or stage: 404, thrown
  /// before any record. A task running on another worker is tapped there, streamed
  /// through, when `forward` allows it.
  virtual void tap(const TaskId& id, const std::string& stage, int count, Forward forward, Deadline deadline,
                   TapSink& sink) = 0;
};

/// Kafka Connect's PATCH semantics: values from `patch` override, nulls remove.
ConfigMap apply_config_patch(ConfigMap config, const ConfigPatch& patch);

} // namespace weir::runtime::rest
