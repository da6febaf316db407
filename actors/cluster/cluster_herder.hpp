// The REST API of a cluster node (`weir node`): any node answers. Reads come from
// this node's herder (NodeHerder) and the shared topics (a task running elsewhere shows the
// status its node wrote to the status topic); changes to connectors are forwarded
// to the leader, which validates them and writes them to the config topic, from
// which every node applies them; a task's restart goes to the node running it, a
// connector's restart to the node its instance is assigned to.
#pragma once

#include <memory>
#include <string>

#include "actors/cluster/node.hpp"
#include "actors/cluster/node_herder.hpp"
#include "runtime/cluster/state_log.hpp"

namespace weir::actors::cluster {

class ClusterHerder final : public runtime::rest::ConnectHerder {
public:
  struct Links {
    caf::actor_system* system = nullptr; ///< the node's: asks the other nodes' actors
    NodeHerder* herder = nullptr; ///< this node's connectors and tasks
    runtime::cluster::ConfigLog* configs = nullptr;
    runtime::cluster::StatusLog* statuses = nullptr;
    std::shared_ptr<ClusterView> view;
    std::string member_id;
    std::string address;    ///< this node in the published assignment (cluster.advertised.address)
    std::string rest_token; ///< the bearer token forwarded requests carry
    std::string rest_scheme = "http"; ///< of this node's listener, and so of the others'
  };
  explicit ClusterHerder(Links links) : links_(std::move(links)) {}

  /// Writes the statuses of this node's tasks (and of the connectors whose
  /// instance runs here) that changed since the last call to the status topic.
  /// Called from one thread (the node's main loop).
  void publish_statuses();

  runtime::rest::ServerInfo server_info(Deadline d) override { return node_herder().server_info(d); }
  void health_check(Deadline d) override { node_herder().health_check(d); }
  bool ready() override { return node_herder().ready(); }
  std::vector<std::string> connectors(Deadline d) override { return node_herder().connectors(d); }
  runtime::rest::ConnectorInfo connector_info(const std::string& name, Deadline d) override {
    return node_herder().connector_info(name, d);
  }
  runtime::rest::ConnectorStatus connector_status(const std::string& name, Deadline d) override;
  runtime::rest::TaskState task_status(const runtime::rest::TaskId& id, Deadline d) override;
  std::vector<runtime::rest::TaskInfo> task_configs(const std::string& name, Deadline d) override {
    return node_herder().task_configs(name, d);
  }
  runtime::rest::Created put_connector_config(const std::string& name,
                                              const runtime::rest::ConfigMap& config,
                                              std::optional<runtime::rest::InitialState> initial_state,
                                              bool allow_replace, Deadline d) override;
  runtime::rest::Created patch_connector_config(const std::string& name,
                                                const runtime::rest::ConfigPatch& patch,
                                                Deadline d) override;
  void delete_connector(const std::string& name, Deadline d) override;
  void restart_connector(const std::string& name, Deadline d) override;
  runtime::rest::ConnectorStatus restart_connector_and_tasks(const runtime::rest::RestartRequest& request,
                                                             Deadline d) override;
  /// A task running on another node is restarted there (its answer is this one).
  void restart_task(const runtime::rest::TaskId& id, runtime::rest::Forward forward, Deadline d) override;
  void pause_connector(const std::string& name, Deadline d) override;
  void resume_connector(const std::string& name, Deadline d) override;
  void stop_connector(const std::string& name, Deadline d) override;
  std::vector<runtime::rest::ConnectorOffset> connector_offsets(const std::string& name,
                                                                Deadline d) override {
    return node_herder().connector_offsets(name, d);
  }
  std::string alter_connector_offsets(const std::string& name,
                                      const std::vector<runtime::rest::ConnectorOffset>& offsets,
                                      Deadline d) override;
  std::string reset_connector_offsets(const std::string& name, Deadline d) override;
  std::vector<std::string> connector_active_topics(const std::string& name, Deadline d) override {
    return node_herder().connector_active_topics(name, d);
  }
  void reset_connector_active_topics(const std::string& name, Deadline d) override {
    node_herder().reset_connector_active_topics(name, d);
  }
  std::vector<runtime::rest::PluginInfo> plugins(Deadline d) override { return node_herder().plugins(d); }
  std::vector<runtime::rest::ConfigKeyInfo> plugin_config(const std::string& plugin, Deadline d) override {
    return node_herder().plugin_config(plugin, d);
  }
  runtime::rest::ConfigInfos validate_connector_config(const runtime::rest::ConfigMap& config,
                                                       Deadline d) override {
    return node_herder().validate_connector_config(config, d);
  }
  std::map<std::string, runtime::rest::LoggerLevel> logger_levels(Deadline d) override {
    return node_herder().logger_levels(d);
  }
  std::optional<runtime::rest::LoggerLevel> logger_level(const std::string& name, Deadline d) override {
    return node_herder().logger_level(name, d);
  }
  std::vector<std::string> set_worker_logger_level(const std::string& name, const std::string& level,
                                                   Deadline d) override {
    return node_herder().set_worker_logger_level(name, level, d);
  }
  void set_cluster_logger_level(const std::string& name, const std::string& level, Deadline d) override;
  /// Every node's actors: this node's and, asked through its membership actor,
  /// every other live node's (one that does not answer in time is listed as
  /// unreachable, without connectors).
  runtime::rest::ActorTree actor_tree(const std::optional<std::string>& connector, Deadline d) override;
  runtime::rest::ActorTree node_tree(const std::optional<std::string>& connector, Deadline d) override;
  std::string metrics_text(Deadline d) override { return node_herder().metrics_text(d); }
  /// A task running on another node is tapped there (its answer is this one).
  void tap(const runtime::rest::TaskId& id, const std::string& stage, int count, runtime::rest::Forward forward,
           Deadline d, runtime::rest::TapSink& sink) override;

private:
  NodeHerder& node_herder() { return *links_.herder; }
  /// The leader's REST URL when this node does not lead (then the request goes
  /// there); empty when it does. 503-like RestError when no leader is known.
  std::string leader_url();
  /// The REST URL of the node running task `id` when it is not this one (then the
  /// request goes there); empty when it runs here. 409 when no node runs it, or
  /// when `forward` refuses a further hop; `doing` (restart, tap) words the error.
  std::string owner_url(const runtime::rest::TaskId& id, runtime::rest::Forward forward,
                        const std::string& doing, Deadline d);
  /// Pause, resume or stop (`verb`): the leader writes `state` to the config topic.
  void set_target_state(const std::string& name, const std::string& state, const std::string& verb,
                        Deadline d);
  void write_config(const std::string& name, const runtime::rest::ConfigMap& config,
                    std::optional<std::string> target_state, Deadline d);
  Links links_;
  std::map<std::string, runtime::cluster::StatusRecord> published_; // by "task NAME-N" / "connector NAME"
};

/// The actor that answers the other nodes' (tree_atom, connector, budget ms)
/// requests with `herder`'s node_tree as JSON (detached: gathering the tree waits
/// for the stages). The membership actor hands it those requests.
caf::actor spawn_tree_source(caf::actor_system& sys, ClusterHerder& herder);

} // namespace weir::actors::cluster
