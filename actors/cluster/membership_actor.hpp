// The membership actor: joins a cluster through its seeds, gossips the member list,
// detects failures, and tells its subscribers who is live and who leads.
//
// Failure detection, given that CAF 0.17 has no node-down message:
//  - the application heartbeat decides: members gossip every heartbeat interval, and
//    a member silent for `unreachable_after` is unreachable, whether it died (kill -9)
//    or hangs with its connection open (SIGSTOP). It is reachable again the moment
//    it speaks;
//  - connections are kept alive: each member monitors the others' membership
//    actors, and when a proxy dies (remote_link_unreachable, also after the
//    middleman's own heartbeat set by configure_middleman gives up) the member is
//    dialled again. A lost connection alone does not mark a member unreachable: a
//    proxy's down message can arrive after a reconnect already produced a new one;
//  - a node whose own timer fired far too late knows it was frozen, drops every
//    route it holds and dials everyone afresh;
//  - a handle learnt by gossip is routed through the node that sent it (CAF keeps
//    such a proxy when that node dies): every member is dialled until this node
//    reached it over a connection of its own, and a member found unreachable is
//    dialled afresh.
//
// Joining is a handshake: the joiner proves it knows `cluster.secret` (an HMAC over
// the group and its member id) and names its `group.id`; a seed refuses a mismatch,
// and both sides log why.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/atom.hpp>
#include <caf/fwd.hpp>
#include <caf/meta/type_name.hpp>

#include "runtime/cluster/membership.hpp"

namespace weir::runtime::cluster {

template <class Inspector>
auto inspect(Inspector& f, Member& x) {
  return f(caf::meta::type_name("weir::Member"), x.id, x.address, x.started_ms, x.status,
           x.version, x.rest_url);
}

} // namespace weir::runtime::cluster

namespace weir::actors::cluster {

/// Subscribers receive (members_atom, MembershipSnapshot); asking the membership
/// actor (members_atom) returns its std::vector<Member>.
using members_atom = caf::atom_constant<caf::atom("members")>;
/// (forward_atom, caf::message) to a member's membership actor delivers the message
/// to that node's subscriber (its node actor).
using forward_atom = caf::atom_constant<caf::atom("forward")>;

/// (kafka_atom, bool) to the membership actor: whether this node reaches Kafka. A
/// node that does not is Leaving for the others (it takes no work and does not
/// lead) until it reaches Kafka again.
using kafka_atom = caf::atom_constant<caf::atom("kafka")>;

/// (tree_atom, connector or "", budget in ms) -> std::string: this node's actor tree
/// as JSON (the body of GET /weir/tree?scope=node). Asked of a member's membership
/// actor (its published entry point), which hands it to its tree_source.
using tree_atom = caf::atom_constant<caf::atom("tree")>;

/// What the membership actor's timer tells the node actor directly, without a
/// message: a frozen process that resumes must act before it handles anything
/// queued meanwhile (an assignment read just now may already be stale).
struct Liveness {
  /// steady_clock time of the membership actor's last tick.
  std::atomic<std::chrono::steady_clock::rep> last_tick{std::chrono::steady_clock::now().time_since_epoch().count()};
  /// How often it found its tick far too late (the process was frozen).
  std::atomic<uint64_t> freezes{0};
};

struct MembershipSettings {
  std::string group_id;               ///< group.id: the cluster's name
  std::string secret;                 ///< cluster.secret
  runtime::cluster::Member self;      ///< this node (address = its cluster.listen)
  std::vector<std::string> seeds;     ///< cluster.seeds, host:port (this node's own is skipped)
  std::chrono::milliseconds heartbeat{500};
  std::chrono::milliseconds unreachable_after{3000};
  caf::actor subscriber; ///< gets (members_atom, MembershipSnapshot) on every change
  caf::actor tree_source; ///< answers the other nodes' (tree_atom, …) requests
  /// Dial the other members over mutual TLS (configure_tls before the actor system
  /// exists, and publish with caf::openssl::publish).
  bool tls = false;
  std::shared_ptr<Liveness> liveness; ///< optional: shared with the node actor
};

/// What subscribers and the admin shell see.
/// A member and the handle of its membership actor, as gossip carries them.
struct MemberEntry {
  runtime::cluster::Member member;
  caf::actor handle;
};
using MemberEntries = std::vector<MemberEntry>;

struct MembershipSnapshot {
  std::vector<runtime::cluster::Member> members;
  std::vector<std::string> unreachable; ///< ids, from this node's point of view
  std::string leader;                   ///< empty when no member is live
  std::string refused;                  ///< set when a seed refused this node: why
  std::map<std::string, caf::actor> handles; ///< member id -> its membership actor
  /// How often this process found itself frozen (a tick far too late: SIGSTOP, a
  /// VM pause): its work has probably moved meanwhile.
  uint64_t freezes = 0;
};

/// Sets CAF's middleman heartbeat so a silent connection is dropped (and the proxies
/// of the peer's actors die) after `connection_timeout`; call before the actor
/// system is created.
// CAF's serialization hooks of what members send each other (announced with the
// other messages in actors/messages.cpp).
template <class Inspector>
auto inspect(Inspector& f, MemberEntry& x) {
  return f(caf::meta::type_name("weir::MemberEntry"), x.member, x.handle);
}

template <class Inspector>
auto inspect(Inspector& f, MembershipSnapshot& x) {
  return f(caf::meta::type_name("weir::MembershipSnapshot"), x.members, x.unreachable, x.leader,
           x.refused, x.handles, x.freezes);
}

void configure_middleman(caf::actor_system_config& cfg, std::chrono::milliseconds heartbeat,
                         std::chrono::milliseconds connection_timeout);

/// Mutual TLS between nodes (cluster.tls.*): every node presents a certificate signed
/// by `cafile` and accepts only peers that do. Loads caf_openssl; call before the
/// actor system is created.
void configure_tls(caf::actor_system_config& cfg, const std::string& certificate,
                   const std::string& key, const std::string& passphrase, const std::string& cafile);


/// Spawns the membership actor; publish it on the listen port so others can join.
caf::actor spawn_membership(caf::actor_system& sys, MembershipSettings settings);

/// The proof a joiner sends: HMAC-SHA256(secret, group_id + '\n' + member_id), hex.
std::string join_proof(const std::string& secret, const std::string& group_id,
                       const std::string& member_id);

} // namespace weir::actors::cluster
