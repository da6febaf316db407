#include "actors/cluster/membership_actor.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <charconv>
#include <map>
#include <set>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/io/middleman.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/openssl/manager.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"

namespace weir::actors::cluster {

using runtime::cluster::Member;
using runtime::cluster::MembershipView;
using runtime::cluster::MemberStatus;

namespace {

using join_atom = caf::atom_constant<caf::atom("join")>;
using joined_atom = caf::atom_constant<caf::atom("joined")>;
using gossip_atom = caf::atom_constant<caf::atom("gossip")>;

using Clock = std::chrono::steady_clock;

struct MembershipState {
  MembershipSettings settings;
  std::unique_ptr<MembershipView> view;
  std::map<std::string, caf::actor> peers;       ///< member id -> its membership actor
  /// Members this node reached over a connection of its own: a handle learnt by
  /// gossip is routed through the node that sent it until this node dials it.
  std::set<std::string> direct;
  std::map<caf::actor_addr, std::string> by_addr; ///< for down messages
  std::map<std::string, Clock::time_point> dialled; ///< address -> last connection attempt
  bool joined = false;
  uint64_t failed_dials = 0; ///< before joining
  uint64_t freezes = 0;      ///< times this process found itself frozen
  std::string refused;
  Clock::time_point last_tick = Clock::now();
  static inline const char* name = "membership";
};

using membership_actor = caf::stateful_actor<MembershipState>;

MemberEntries entries(membership_actor* self) {
  auto& st = self->state;
  MemberEntries out;
  for (auto& m : st.view->members()) {
    if (m.status == MemberStatus::down)
      continue;
    caf::actor handle = m.id == st.settings.self.id ? caf::actor{self} : caf::actor{};
    if (auto it = st.peers.find(m.id); it != st.peers.end())
      handle = it->second;
    out.push_back({std::move(m), std::move(handle)});
  }
  return out;
}

void notify(membership_actor* self) {
  auto& st = self->state;
  if (!st.settings.subscriber)
    return;
  MembershipSnapshot snap;
  snap.members = st.view->members();
  for (const auto& m : snap.members)
    if (!st.view->reachable(m.id) && m.status != MemberStatus::down)
      snap.unreachable.push_back(m.id);
  snap.leader = st.view->leader().value_or("");
  snap.refused = st.refused;
  snap.freezes = st.freezes;
  snap.handles = st.peers;
  snap.handles[st.settings.self.id] = self;
  self->send(st.settings.subscriber, members_atom::value, std::move(snap));
}

/// Remembers a member's handle and watches it: when the route to it breaks, the
/// handle is forgotten and the member is dialled again.
void add_peer(membership_actor* self, const std::string& id, const caf::actor& handle) {
  auto& st = self->state;
  if (!handle || id == st.settings.self.id)
    return;
  auto& slot = st.peers[id];
  if (slot == handle)
    return;
  slot = handle;
  st.by_addr[handle.address()] = id;
  self->monitor(handle);
}

/// Merges gossip; a new incarnation at a known address retires the old one.
bool absorb(membership_actor* self, const MemberEntries& gossip) {
  auto& st = self->state;
  std::vector<Member> members;
  for (const auto& e : gossip) {
    members.push_back(e.member);
    if (e.member.status != MemberStatus::down)
      add_peer(self, e.member.id, e.handle);
  }
  bool changed = st.view->merge(members);
  for (const auto& e : gossip)
    for (const auto& known : st.view->members())
      if (known.address == e.member.address && known.id != e.member.id
          && known.started_ms < e.member.started_ms && known.status != MemberStatus::down) {
        spdlog::info("cluster: {} replaces {} at {}", e.member.id, known.id, known.address);
        st.view->mark_down(known.id);
        st.peers.erase(known.id);
        changed = true;
      }
  return changed;
}

void gossip_to_all(membership_actor* self) {
  auto& st = self->state;
  auto list = entries(self);
  for (const auto& [id, peer] : st.peers)
    self->send(peer, gossip_atom::value, st.settings.self.id, list);
}

/// Dials `address` (host:port), then asks the actor published there to let us in.
void dial(membership_actor* self, const std::string& address) {
  auto& st = self->state;
  auto now = Clock::now();
  auto& last = st.dialled[address];
  if (now - last < std::chrono::seconds{1})
    return;
  last = now;
  auto colon = address.rfind(':');
  uint16_t port = 0;
  auto digits = colon == std::string::npos ? std::string_view{}
                                           : std::string_view{address}.substr(colon + 1);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size()) {
    spdlog::error("cluster: cannot dial '{}': expected host:port", address);
    return;
  }
  auto host = address.substr(0, colon);
  auto mm = self->state.settings.tls ? self->system().openssl_manager().actor_handle()
                                     : self->system().middleman().actor_handle();
  self->request(mm, std::chrono::seconds{5}, caf::connect_atom::value, host, port)
    .then(
      [=](const caf::node_id&, caf::strong_actor_ptr& ptr, const std::set<std::string>&) {
        auto seed = caf::actor_cast<caf::actor>(ptr);
        if (!seed)
          return;
        auto& st = self->state;
        const auto& me = st.settings.self;
        self->request(seed, std::chrono::seconds{5}, join_atom::value, st.settings.group_id,
                      st.view->self(), join_proof(st.settings.secret, st.settings.group_id, me.id),
                      caf::actor{self})
          .then(
            [=](joined_atom, bool accepted, const std::string& reason, MemberEntries& list) {
              auto& st = self->state;
              if (!accepted) {
                spdlog::error("cluster: {} refused to let this node join: {}", address, reason);
                st.refused = reason;
                notify(self);
                return;
              }
              if (!st.joined)
                spdlog::info("cluster: joined '{}' through {}", st.settings.group_id, address);
              st.joined = true;
              for (const auto& e : list) {
                st.view->heard_from(e.member.id, Clock::now());
                if (e.handle == seed)
                  st.direct.insert(e.member.id);
              }
              absorb(self, list);
              notify(self);
              gossip_to_all(self);
            },
            // Debug only: a member that is down is redialled every second.
            [=](const caf::error& e) {
              spdlog::debug("cluster: join through {} failed: {}", address, self->system().render(e));
            }); // retried on a later tick
      },
      [=](const caf::error& e) {
        // Before joining, say so every 10th attempt: a seed that is not up yet is
        // the rule at start, a refused TLS handshake is not.
        auto& st = self->state;
        if (!st.joined && st.failed_dials++ % 10 == 0)
          spdlog::warn("cluster: cannot join through {}: {} (is it up? with cluster.tls.*, "
                       "does it accept this node's certificate?)",
                       address, self->system().render(e));
        else
          spdlog::debug("cluster: cannot reach {}: {}", address, self->system().render(e));
      }); // not up yet: retried on a later tick
}

void tick(membership_actor* self) {
  auto& st = self->state;
  auto now = Clock::now();
  // A tick far later than scheduled means this process was frozen (SIGSTOP, a VM
  // pause): the others have dropped their connections to it, and what it holds are
  // dead routes. Forget them and dial every member afresh.
  if (now - st.last_tick > st.settings.unreachable_after) {
    spdlog::warn("cluster: this node was frozen for {} ms: reconnecting to every member",
                 std::chrono::duration_cast<std::chrono::milliseconds>(now - st.last_tick).count());
    for (const auto& [id, peer] : st.peers)
      self->demonitor(peer);
    st.peers.clear();
    st.direct.clear();
    st.by_addr.clear();
    st.dialled.clear();
    ++st.freezes;
  }
  bool changed = now - st.last_tick > st.settings.unreachable_after; // subscribers hear of it
  st.last_tick = now;
  if (auto& l = st.settings.liveness) {
    l->freezes = st.freezes;
    l->last_tick = now.time_since_epoch().count();
  }
  gossip_to_all(self);
  for (const auto& id : st.view->detect(now, st.settings.unreachable_after)) {
    spdlog::warn("cluster: member {} unreachable: silent for more than {} ms", id,
                 st.settings.unreachable_after.count());
    changed = true;
    // Its handle may be a dead route (CAF routes through a third node it learnt the
    // handle from, and keeps the proxy when that node dies): dial it afresh.
    if (auto it = st.peers.find(id); it != st.peers.end()) {
      self->demonitor(it->second);
      st.by_addr.erase(it->second.address());
      st.direct.erase(id);
      st.peers.erase(it);
    }
  }
  // Reconnect: to the seeds until joined, and to every live member whose handle we
  // lost (after a network loss or a SIGSTOP, the middleman dropped the connection).
  if (!st.joined && st.refused.empty())
    for (const auto& seed : st.settings.seeds)
      if (seed != st.settings.self.address)
        dial(self, seed);
  for (const auto& m : st.view->members())
    if (m.id != st.settings.self.id && m.status != MemberStatus::down
        && (!st.peers.count(m.id) || !st.direct.count(m.id)))
      dial(self, m.address);
  if (changed)
    notify(self);
  self->delayed_send(self, st.settings.heartbeat, tick_atom::value);
}

caf::behavior membership(membership_actor* self, MembershipSettings settings) {
  auto& st = self->state;
  st.settings = std::move(settings);
  st.view = std::make_unique<MembershipView>(st.settings.self);
  bool has_seed = false;
  for (const auto& s : st.settings.seeds)
    has_seed = has_seed || s != st.settings.self.address;
  st.joined = !has_seed; // the first node forms the cluster
  self->set_exception_handler([=](std::exception_ptr& eptr) -> caf::error {
    try {
      std::rethrow_exception(eptr);
    } catch (const std::exception& e) {
      spdlog::error("cluster: membership actor failed: {}", e.what());
    }
    return caf::exit_reason::unhandled_exception;
  });
  self->set_default_handler([=](caf::scheduled_actor*, caf::message_view& x) -> caf::result<caf::message> {
    spdlog::warn("cluster: membership actor got an unexpected message: {}", to_string(x.content()));
    return caf::sec::unexpected_message;
  });
  self->set_down_handler([=](caf::down_msg& msg) {
    auto& st = self->state;
    auto it = st.by_addr.find(msg.source);
    if (it == st.by_addr.end())
      return;
    // Only the route is gone: drop the handle and dial again on the next tick.
    // Reachability is the heartbeat's verdict alone, because a proxy's down message
    // can arrive after a reconnect already gave us a new proxy with the same address.
    auto id = it->second;
    st.by_addr.erase(it);
    st.peers.erase(id);
    st.direct.erase(id);
    spdlog::info("cluster: connection to member {} closed ({})", id,
                 self->system().render(msg.reason));
  });
  self->send(self, tick_atom::value);
  notify(self);
  return {
    [=](join_atom, const std::string& group, const Member& joiner, const std::string& proof,
        const caf::actor& handle) -> caf::result<joined_atom, bool, std::string, MemberEntries> {
      auto& st = self->state;
      std::string reason;
      if (group != st.settings.group_id)
        reason = "group.id '" + group + "' is not this cluster's '" + st.settings.group_id + "'";
      else if (proof != join_proof(st.settings.secret, group, joiner.id))
        reason = "wrong cluster.secret";
      if (!reason.empty()) {
        spdlog::error("cluster: refused node {} at {}: {}", joiner.id, joiner.address, reason);
        return {joined_atom::value, false, reason, MemberEntries{}};
      }
      bool was_reachable = st.view->reachable(joiner.id);
      st.view->heard_from(joiner.id, Clock::now());
      st.direct.insert(joiner.id); // it connected to this node
      if (absorb(self, {{joiner, handle}}))
        spdlog::info("cluster: node {} joined from {}", joiner.id, joiner.address);
      else if (!was_reachable)
        spdlog::info("cluster: member {} is reachable again", joiner.id);
      notify(self);
      gossip_to_all(self);
      return {joined_atom::value, true, std::string{}, entries(self)};
    },
    [=](gossip_atom, const std::string& from, const MemberEntries& list) {
      auto& st = self->state;
      bool was_reachable = st.view->reachable(from);
      st.view->heard_from(from, Clock::now());
      bool changed = absorb(self, list) || !was_reachable;
      if (!was_reachable)
        spdlog::info("cluster: member {} is reachable again", from);
      if (changed)
        notify(self);
    },
    [=](tick_atom) { tick(self); },
    [=](kafka_atom, bool reaches) {
      auto& st = self->state;
      auto status = reaches ? MemberStatus::up : MemberStatus::leaving;
      if (st.view->self().status == status)
        return;
      st.view->set_self_status(status);
      spdlog::info("cluster: this node is {} for the others ({})", to_string(status),
                   reaches ? "it reaches Kafka again" : "it cannot reach Kafka");
      notify(self);
      gossip_to_all(self);
    },
    [=](members_atom) {
      auto& st = self->state;
      return st.view->members();
    },
    // Another node gathering the cluster's tree: the tree source answers it.
    [=](tree_atom atom, std::string& connector, int64_t budget_ms) {
      return self->delegate(self->state.settings.tree_source, atom, std::move(connector), budget_ms);
    },
    // The membership actor is the node's published entry point: messages for the
    // node (the supervisor's rounds) pass through it to the subscriber.
    [=](forward_atom, caf::message& message) {
      if (self->state.settings.subscriber)
        self->send(self->state.settings.subscriber, std::move(message));
    },
  };
}

} // namespace

void configure_middleman(caf::actor_system_config& cfg, std::chrono::milliseconds heartbeat,
                         std::chrono::milliseconds connection_timeout) {
  cfg.set("middleman.heartbeat-interval", caf::timespan{heartbeat});
  cfg.set("middleman.connection-timeout", caf::timespan{connection_timeout});
}

void configure_tls(caf::actor_system_config& cfg, const std::string& certificate,
                   const std::string& key, const std::string& passphrase, const std::string& cafile) {
  cfg.load<caf::openssl::manager>();
  cfg.openssl_certificate = certificate;
  cfg.openssl_key = key;
  cfg.openssl_passphrase = passphrase;
  cfg.openssl_cafile = cafile;
}

caf::actor spawn_membership(caf::actor_system& sys, MembershipSettings settings) {
  return sys.spawn(membership, std::move(settings));
}

std::string join_proof(const std::string& secret, const std::string& group_id,
                       const std::string& member_id) {
  std::string message = group_id + '\n' + member_id;
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), digest, &length);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < length; ++i) {
    out += hex[digest[i] >> 4];
    out += hex[digest[i] & 15];
  }
  return out;
}

} // namespace weir::actors::cluster
