// The node actor: one per `weir node` process, the subscriber of its membership
// actor. Every node runs the tasks the supervisor assigns to it on its Worker; the
// node that leads (the oldest reachable member) is also the supervisor: it turns
// the connectors of the config topic and the live members into rounds of
// revoke -> assign (runtime/cluster/rebalancer) and sends them to each node through
// that node's membership actor.
//
// Protocol (generation = the round's number; older ones are ignored):
//   supervisor -> node: (assign_atom, generation, revoke, assign, supervisor)
//   node -> supervisor: (revoked_atom, node address, generation) once the revoked
//                       tasks drained and committed
//   node -> new leader: (running_atom, node address, generation, work): what runs
//                       there, which the new supervisor adopts (no needless moves)
// A node whose membership actor finds it was frozen for longer than the
// unreachable timeout abandons its tasks at once, without committing: the others
// have taken them over, and Kafka fences its late commits anyway.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>

#include "actors/cluster/membership_actor.hpp"
#include "runtime/cluster/state_log.hpp"

namespace weir::actors {
class Worker;
}

namespace weir::actors::cluster {

/// The connectors of the config topic changed: (configs_atom) to the node actor,
/// which applies the log's snapshot to its worker.
using configs_atom = caf::atom_constant<caf::atom("configs")>;

/// What the node actor knows, for the REST herder's threads to read.
class ClusterView {
public:
  void set_members(MembershipSnapshot snapshot);
  MembershipSnapshot members() const;
  /// The leader's REST URL, empty when no leader is known or it is this node.
  std::string leader_rest_url(const std::string& self_id) const;

private:
  mutable std::mutex mutex_;
  MembershipSnapshot members_;
};

struct NodeSettings {
  std::string member_id; ///< this incarnation's membership id
  std::string address;   ///< cluster.listen: the node's stable name for the supervisor
  std::chrono::milliseconds max_delay{300000};  ///< scheduled.rebalance.max.delay.ms
  Worker* worker = nullptr;
  const runtime::cluster::ConfigLog* configs = nullptr;
  std::shared_ptr<ClusterView> view;
};

/// Announces the node protocol's messages (on top of the membership's).
void announce_node_types(caf::actor_system_config& cfg);

/// Spawns the node actor (detached: applying an assignment waits for tasks to
/// drain).
caf::actor spawn_node(caf::actor_system& sys, NodeSettings settings);

} // namespace weir::actors::cluster
