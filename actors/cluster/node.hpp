// The node actor: one per `weir node` process, the subscriber of its membership
// actor. Every node runs exactly what the newest committed assignment in the
// config topic gives its address (read_committed, so never what a fenced leader
// tried to write). The node that membership names the leader candidate (the oldest
// Up member it reaches) takes the Kafka-fenced leadership (runtime/cluster/
// leadership) and becomes the supervisor: it turns the connectors of the config
// topic and the live members into rounds of revoke -> assign (runtime/cluster/
// rebalancer) and publishes each round as the whole assignment, in a transaction.
//
// The leadership is a lease kept in Kafka: the leader writes its assignment again
// every third of the unreachable timeout; a candidate takes the leadership only
// when no other node's assignment was renewed for the unreachable timeout (or the
// newest one is its own). So a partition between nodes that both reach Kafka leaves
// the leader in place; a leader killed, frozen or cut from Kafka loses it.
//
// Protocol between nodes (liveness only: safety rests on the topic), each message
// sent through the receiver's membership actor (forward_atom) and never forwarded
// further:
//   node -> leader: (applied_atom, node address, generation) once the work an
//                   assignment took from it drained and committed
//   node -> leader: (task_configs_atom, connector, its config, task configs, node
//                   address, generation): what the connector actor on the node its
//                   instance is assigned to made, for the leader to store (Kafka
//                   Connect's PUT /connectors/NAME/tasks). The leader stores them
//                   only if that node owns the instance in its newest assignment
//                   and the config is the stored one; a node that does not lead
//                   drops them. The owner offers them again with every change of
//                   the config topic (the leader renews its assignment there)
//                   until they are stored
//   node -> node:   (restart_atom, connector) to the node its instance is assigned
//                   to: POST /connectors/NAME/restart
//   node -> node:   (tree_atom, connector, budget ms) -> its actor tree as JSON
//                   (membership_actor.hpp), for GET /weir/tree?scope=cluster
// A node whose process was frozen, or that has not heard from Kafka for the
// unreachable timeout, abandons its tasks at once without committing (the others
// may run them by now, and Kafka fences its late commits), and applies the
// assignment again only once it has read the config topic to its end.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>

#include "actors/cluster/membership_actor.hpp"
#include "runtime/cluster/leadership.hpp"
#include "runtime/cluster/state_log.hpp"

namespace weir::actors::cluster {

class NodeHerder;

/// The connectors of the config topic changed: (configs_atom) to the node actor,
/// which applies the log's snapshot to its herder.
using configs_atom = caf::atom_constant<caf::atom("configs")>;

/// Task configs made on the node of a connector's instance, for the leader:
/// (task_configs_atom, connector, StringMap config, caf::message of StringMaps,
/// address, generation) to the node actor, through the leader's membership actor.
using task_configs_atom = caf::atom_constant<caf::atom("taskconfs")>;
/// (restart_atom, connector) to the node actor: restart the connector's actor if
/// it runs here.
using restart_atom = caf::atom_constant<caf::atom("restart")>;

/// What the node actor knows, for the REST herder's threads to read.
class ClusterView {
public:
  void set_members(MembershipSnapshot snapshot);
  MembershipSnapshot members() const;
  /// The leader's REST URL, empty when no leader is known or it is this node.
  std::string leader_rest_url(const std::string& self_id) const;
  /// The membership actor of the Up member at `address` (cluster.listen), null
  /// when there is none.
  caf::actor handle_of(const std::string& address) const;

private:
  mutable std::mutex mutex_;
  MembershipSnapshot members_;
};

struct NodeSettings {
  std::string member_id; ///< this incarnation's membership id
  std::string address;   ///< cluster.listen: the node's stable name for the supervisor
  std::string worker_id; ///< its REST host:port, as statuses name it
  std::chrono::milliseconds max_delay{300000};  ///< scheduled.rebalance.max.delay.ms
  std::chrono::milliseconds unreachable_after{3000}; ///< cluster.unreachable.timeout.ms
  NodeHerder* herder = nullptr; ///< this node's connectors and tasks
  runtime::cluster::ConfigLog* configs = nullptr;
  runtime::cluster::Leadership* leadership = nullptr;
  std::shared_ptr<ClusterView> view;
  std::shared_ptr<Liveness> liveness; ///< the membership actor's timer
};

/// Spawns the node actor (detached: applying an assignment waits for tasks to
/// drain).
caf::actor spawn_node(caf::actor_system& sys, NodeSettings settings);

} // namespace weir::actors::cluster
