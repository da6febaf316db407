// A cluster's shared state in Kafka topics, as Kafka Connect keeps it, so every node
// knows every connector and any node can answer the REST API:
//  - config.storage.topic: connector configs and target states (ConfigLog);
//  - status.storage.topic: connector and task states, by the node that runs them
//    (StatusLog).
// Both topics are compacted, single-partition for configs (one total order), and
// use Kafka Connect's record keys and JSON values (schemaless), so Kafka Connect's
// tools read them:
//   "connector-NAME"        {"properties":{...}}         (tombstone: deleted)
//   "target-state-NAME"     {"state":"PAUSED"}   (RUNNING is written STARTED, and STOPPED
//                           as {"state":"PAUSED","state.v2":"STOPPED"}, as Kafka Connect does)
//   "task-NAME-N"           {"properties":{...}}         (task N's config, pending until...)
//   "commit-NAME"           {"tasks":3}                  (...its commit: tasks 0..2 apply)
//   "status-connector-NAME" {"state":"RUNNING","trace":null,"worker_id":"h:p","generation":3}
//   "status-task-NAME-N"    {"state":"FAILED","trace":"...","worker_id":"h:p","generation":3}
// and weir's own "weir-assignment" in the config topic (published_assignment.hpp).
//
// Each log tails its topic from the beginning on a thread of its own; snapshot()
// is what was read so far. CAF-free.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cluster/published_assignment.hpp"
#include "runtime/kafka/client_config.hpp"

namespace weir::runtime::cluster {

using StringMap = std::map<std::string, std::string>;

/// What config.storage.topic says now.
struct ClusterConfig {
  std::map<std::string, StringMap> connectors;     ///< name -> config, as submitted
  std::map<std::string, std::string> target_states; ///< name -> RUNNING, PAUSED or STOPPED
  /// name -> its tasks' configs, as the leader last committed them (the provider
  /// references of its config written back, as Kafka Connect stores them).
  std::map<std::string, std::vector<StringMap>> task_configs;
  /// Connectors whose config was written after their task configs were last
  /// committed (or that have none yet): no task of theirs starts until the leader
  /// commits the next ones.
  std::set<std::string> awaiting_task_configs;
  /// The offset of the last record applied (+1): grows with every change, so two
  /// nodes that read to the same version know the same connectors.
  int64_t version = 0;
  /// The newest committed assignment of the fenced leader, if one was written.
  std::optional<PublishedAssignment> assignment;
  /// Where that record is in the topic: the leader writes it again every so often
  /// (its renewal), so a new offset means the leader still holds the leadership.
  int64_t assignment_offset = -1;
};

/// Creates the compacted storage topic `topic` (`purpose`: its key, e.g.
/// "offset.storage.topic") when missing; an error names the replication factor's key.
void create_storage_topic(const kafka::Properties& props, std::string_view purpose, const std::string& topic,
                          int32_t partitions, int16_t replication);

class ConfigLog {
public:
  /// `props`: client properties (bootstrap.servers, ...). Creates `topic` when it is
  /// missing (1 partition, cleanup.policy=compact, `replication` copies: -1 is the
  /// broker's default). Throws KafkaError.
  ConfigLog(kafka::Properties props, std::string topic, int16_t replication = -1);
  ~ConfigLog();
  ConfigLog(const ConfigLog&) = delete;
  ConfigLog& operator=(const ConfigLog&) = delete;

  /// Starts tailing. `on_change` is called on the log's thread with the whole new
  /// state after each batch of records read (also once for what was already there).
  void start(std::function<void(const ClusterConfig&)> on_change);
  /// Waits until everything written to the topic before this call has been read
  /// (read-your-writes); false at the timeout.
  bool catch_up(std::chrono::milliseconds timeout);
  ClusterConfig snapshot() const;
  /// When the log last heard from the broker: its thread asks for the topic's end
  /// offsets every half second. A node that has not heard from Kafka for its
  /// unreachable timeout stops its tasks.
  std::chrono::steady_clock::time_point last_contact() const;

  /// Appends a record and waits for the broker's acknowledgement. Throws KafkaError.
  void put_connector(const std::string& name, const StringMap& config);
  void put_target_state(const std::string& name, const std::string& state);
  /// Tombstones for the connector and its target state.
  void delete_connector(const std::string& name);
  /// `configs.size()` task-NAME-N records, then commit-NAME (zero tasks for a
  /// stopped connector, as Kafka Connect writes them). A cluster's leader writes them
  /// in its fenced transaction instead (Leadership::publish_task_configs).
  void put_task_configs(const std::string& name, const std::vector<StringMap>& configs);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The (key, value) records of connector `name`'s task configs, in their order:
/// task-NAME-0 .. task-NAME-N-1, then commit-NAME {"tasks":N}.
std::vector<std::pair<std::string, std::string>> task_config_records(const std::string& name,
                                                                     const std::vector<StringMap>& configs);

/// One connector's or task's state as its node reported it.
struct StatusRecord {
  std::string state; ///< UNASSIGNED, RUNNING, PAUSED, STOPPED, FAILED, RESTARTING
  std::string trace; ///< empty: none (null in the record)
  std::string worker_id;
  uint64_t generation = 0;
  bool operator==(const StatusRecord&) const = default;
};

/// What status.storage.topic says now.
struct ClusterStatus {
  std::map<std::string, StatusRecord> connectors;                 ///< by name
  std::map<std::pair<std::string, int>, StatusRecord> tasks;      ///< by (connector, task)
  /// Every node's newest record of each task, by worker_id: the record of the node a
  /// task is assigned to counts, whatever the node that gave it up wrote after it.
  std::map<std::pair<std::string, int>, std::map<std::string, StatusRecord>> task_reports;
};

class StatusLog {
public:
  /// Creates `topic` when it is missing (compact; `partitions` and `replication`,
  /// -1 the broker's default for either). Throws KafkaError.
  StatusLog(kafka::Properties props, std::string topic, int32_t partitions = 5, int16_t replication = -1);
  ~StatusLog();
  StatusLog(const StatusLog&) = delete;
  StatusLog& operator=(const StatusLog&) = delete;

  void start();
  bool catch_up(std::chrono::milliseconds timeout);
  ClusterStatus snapshot() const;

  /// Appends asynchronously (a status is advisory: the latest one wins); flush()
  /// waits for every append so far.
  void put_connector(const std::string& name, const StatusRecord& status);
  void put_task(const std::string& connector, int task, const StatusRecord& status);
  /// Tombstones every status of a deleted connector (its tasks 0..tasks-1).
  void delete_connector(const std::string& name, int tasks);
  void flush(std::chrono::milliseconds timeout);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace weir::runtime::cluster
