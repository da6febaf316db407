#include "actors/cluster/node.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"
#include "actors/worker.hpp"
#include "runtime/cluster/rebalancer.hpp"

namespace weir::runtime::cluster {

template <class Inspector>
auto inspect(Inspector& f, Work& x) {
  return f(caf::meta::type_name("weir::Work"), x.connector, x.task);
}

} // namespace weir::runtime::cluster

namespace weir::actors::cluster {

using runtime::cluster::MemberStatus;
using runtime::cluster::Rebalancer;
using runtime::cluster::Work;
using WorkList = std::vector<Work>;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

using assign_atom = caf::atom_constant<caf::atom("assign")>;
using revoked_atom = caf::atom_constant<caf::atom("revoked")>;
using running_atom = caf::atom_constant<caf::atom("running")>;

// --- ClusterView

void ClusterView::set_members(MembershipSnapshot snapshot) {
  std::lock_guard lock{mutex_};
  members_ = std::move(snapshot);
}

MembershipSnapshot ClusterView::members() const {
  std::lock_guard lock{mutex_};
  return members_;
}

std::string ClusterView::leader_rest_url(const std::string& self_id) const {
  std::lock_guard lock{mutex_};
  if (members_.leader.empty() || members_.leader == self_id)
    return {};
  for (const auto& m : members_.members)
    if (m.id == members_.leader)
      return m.rest_url;
  return {};
}

namespace {

/// How often the supervisor checks its timers (departed nodes' delays).
constexpr auto tick_interval = 200ms;
/// How long a new leader waits for every live node to say what it runs.
constexpr auto settle_time = 1500ms;

struct NodeState {
  NodeSettings settings;
  MembershipSnapshot members;
  uint64_t seen_generation = 0; ///< the newest round applied here
  // The supervisor's, while this node leads.
  std::unique_ptr<Rebalancer> rebalancer;
  Clock::time_point settle_until;
  std::set<std::string> reported;  ///< nodes (addresses) that said what they run
  std::set<std::string> agreed;    ///< member ids at the last round sent (keep-majority)
  bool minority_logged = false;
  static inline const char* name = "node";
};

using node_actor = caf::stateful_actor<NodeState>;

bool leading(node_actor* self) {
  return self->state.members.leader == self->state.settings.member_id;
}

/// Up members this node can reach, oldest first (the assignor's order), by address.
std::vector<std::string> live_addresses(const MembershipSnapshot& s) {
  std::vector<runtime::cluster::Member> live;
  for (const auto& m : s.members)
    if (m.status == MemberStatus::up
        && std::find(s.unreachable.begin(), s.unreachable.end(), m.id) == s.unreachable.end())
      live.push_back(m);
  std::sort(live.begin(), live.end(), [](const auto& a, const auto& b) {
    return std::tie(a.started_ms, a.id) < std::tie(b.started_ms, b.id);
  });
  std::vector<std::string> out;
  for (const auto& m : live)
    out.push_back(m.address);
  return out;
}

/// The membership actor of the live member at `address`.
caf::actor handle_at(node_actor* self, const std::string& address) {
  const auto& s = self->state.members;
  for (const auto& m : s.members)
    if (m.address == address && m.status == MemberStatus::up)
      if (auto it = s.handles.find(m.id); it != s.handles.end())
        return it->second;
  return {};
}

template <class... Ts>
void send_to(node_actor* self, const caf::actor& membership, Ts&&... xs) {
  if (membership)
    self->send(membership, forward_atom::value, caf::make_message(std::forward<Ts>(xs)...));
}

/// Keep-majority: a leader that reaches no more than half of the members it last
/// agreed on (before its first round: of every member it knows) must not move work:
/// the other side may have a leader of its own, or, just back from a freeze, this
/// node has not heard from the others yet.
bool has_majority(node_actor* self) {
  auto& st = self->state;
  auto reference = st.agreed;
  if (reference.empty())
    for (const auto& m : st.members.members)
      if (m.status == MemberStatus::up)
        reference.insert(m.id);
  size_t reached = 0;
  for (const auto& m : st.members.members)
    if (reference.count(m.id)
        && std::find(st.members.unreachable.begin(), st.members.unreachable.end(), m.id)
             == st.members.unreachable.end())
      ++reached;
  return reached * 2 > reference.size();
}

/// Sends every round the rebalancer has ready.
void supervise(node_actor* self) {
  auto& st = self->state;
  if (!leading(self) || !st.rebalancer || Clock::now() < st.settle_until)
    return;
  if (!has_majority(self)) {
    if (!st.minority_logged)
      spdlog::warn("cluster: not assigning work: this node reaches no more than half of the "
                   "members of the last assignment (keep-majority)");
    st.minority_logged = true;
    return;
  }
  st.minority_logged = false;
  while (auto round = st.rebalancer->poll(Clock::now())) {
    std::set<std::string> nodes;
    for (const auto& [node, works] : round->revoke)
      nodes.insert(node);
    for (const auto& [node, works] : round->assign)
      nodes.insert(node);
    for (const auto& node : nodes) {
      auto revoke = round->revoke.count(node) ? round->revoke.at(node) : WorkList{};
      auto assign = round->assign.count(node) ? round->assign.at(node) : WorkList{};
      spdlog::info("cluster: generation {}: node {} stops {} and starts {} unit(s) of work",
                   round->generation, node, revoke.size(), assign.size());
      send_to(self, handle_at(self, node), assign_atom::value, round->generation, std::move(revoke),
              std::move(assign), caf::actor{self});
    }
    st.agreed.clear();
    for (const auto& m : st.members.members)
      if (m.status == MemberStatus::up)
        st.agreed.insert(m.id);
  }
}

void on_members(node_actor* self, MembershipSnapshot snapshot) {
  auto& st = self->state;
  // The membership actor noticed this process was frozen (it runs on the shared
  // scheduler: this actor's own waits for draining tasks do not look like a freeze).
  if (snapshot.freezes > st.members.freezes) {
    spdlog::warn("cluster: this node was frozen: abandoning its tasks (the others have taken them over)");
    st.settings.worker->abandon_all();
  }
  bool new_leader = snapshot.leader != st.members.leader;
  st.members = std::move(snapshot);
  st.settings.view->set_members(st.members);
  if (new_leader && !st.members.leader.empty()) {
    spdlog::info("cluster: leader is {}", st.members.leader);
    // The new leader's supervisor starts from what runs where.
    auto [mine, generation] = st.settings.worker->assigned();
    auto it = st.members.handles.find(st.members.leader);
    if (it != st.members.handles.end())
      send_to(self, it->second, running_atom::value, st.settings.address, generation,
              WorkList(mine.begin(), mine.end()));
    if (leading(self)) {
      st.rebalancer = std::make_unique<Rebalancer>(st.settings.max_delay);
      st.rebalancer->set_wanted(st.settings.worker->wanted_work());
      st.settle_until = Clock::now() + settle_time;
      st.reported.clear();
      st.agreed.clear();
    } else {
      st.rebalancer.reset();
    }
  }
  if (leading(self) && st.rebalancer) {
    st.rebalancer->set_live(live_addresses(st.members), Clock::now());
    supervise(self);
  }
}

void on_assign(node_actor* self, uint64_t generation, const WorkList& revoke, const WorkList& assign,
               const caf::actor& supervisor) {
  auto& st = self->state;
  if (generation < st.seen_generation) {
    spdlog::info("cluster: ignoring assignment generation {} (this node applied {})", generation,
                 st.seen_generation);
    return;
  }
  st.seen_generation = generation;
  auto mine = st.settings.worker->assigned().first;
  for (const auto& w : revoke)
    mine.erase(w);
  mine.insert(assign.begin(), assign.end());
  st.settings.worker->run_only(std::move(mine), generation);
  if (!revoke.empty())
    self->send(supervisor, revoked_atom::value, st.settings.address, generation);
}

void on_tick(node_actor* self) {
  supervise(self);
  self->delayed_send(self, tick_interval, tick_atom::value);
}

caf::behavior node(node_actor* self, NodeSettings settings) {
  self->state.settings = std::move(settings);
  self->send(self, tick_atom::value);
  return {
    [=](members_atom, MembershipSnapshot& snapshot) { on_members(self, std::move(snapshot)); },
    [=](configs_atom) {
      auto& st = self->state;
      auto config = st.settings.configs->snapshot();
      st.settings.worker->apply_configs(config.connectors, config.target_states);
      if (leading(self) && st.rebalancer) {
        st.rebalancer->set_wanted(st.settings.worker->wanted_work());
        supervise(self);
      }
    },
    [=](assign_atom, uint64_t generation, const WorkList& revoke, const WorkList& assign,
        const caf::actor& supervisor) { on_assign(self, generation, revoke, assign, supervisor); },
    [=](revoked_atom, const std::string& node, uint64_t generation) {
      auto& st = self->state;
      if (!leading(self) || !st.rebalancer)
        return;
      st.rebalancer->revoked(node, generation);
      supervise(self);
    },
    [=](running_atom, const std::string& node, uint64_t generation, const WorkList& work) {
      auto& st = self->state;
      if (!leading(self) || !st.rebalancer)
        return;
      st.rebalancer->adopt(node, work, generation);
      st.reported.insert(node);
      auto live = live_addresses(st.members);
      if (std::all_of(live.begin(), live.end(), [&](const auto& n) { return st.reported.count(n); }))
        st.settle_until = Clock::now();
      supervise(self);
    },
    [=](tick_atom) { on_tick(self); },
  };
}

} // namespace

void announce_node_types(caf::actor_system_config& cfg) {
  cfg.add_message_type<Work>("weir::Work");
  cfg.add_message_type<WorkList>("weir::WorkList");
}

caf::actor spawn_node(caf::actor_system& sys, NodeSettings settings) {
  return sys.spawn<caf::detached>(node, std::move(settings));
}

} // namespace weir::actors::cluster
