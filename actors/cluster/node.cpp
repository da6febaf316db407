#include "actors/cluster/node.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/message_builder.hpp>
#include <caf/stateful_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"
#include "actors/cluster/node_herder.hpp"
#include "runtime/cluster/lease.hpp"
#include "runtime/cluster/rebalancer.hpp"

namespace weir::actors::cluster {

using runtime::cluster::MemberStatus;
using runtime::cluster::PublishedAssignment;
using runtime::cluster::Rebalancer;
using runtime::cluster::Work;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

using applied_atom = caf::atom_constant<caf::atom("applied")>;

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

caf::actor ClusterView::handle_of(const std::string& address) const {
  std::lock_guard lock{mutex_};
  for (const auto& m : members_.members)
    if (m.address == address && m.status == MemberStatus::up)
      if (auto it = members_.handles.find(m.id); it != members_.handles.end())
        return it->second;
  return {};
}

namespace {

/// How often the node checks its timers (departed nodes' delays, Kafka, the lease).
constexpr auto tick_interval = 200ms;
/// How long taking the leadership and reading the config topic may take.
constexpr auto acquire_timeout = 5s;
/// After a failed attempt to lead (or being fenced), the next one waits this long.
constexpr auto retry_delay = 1s;

struct NodeState {
  NodeSettings settings;
  MembershipSnapshot members;
  /// The generation of the assignment applied here; none after abandoning.
  std::optional<uint64_t> applied;
  /// Set after a freeze or a cut from Kafka: the assignment is applied again only
  /// once the config topic was read to its end (what was read before is stale).
  bool resync = false;
  std::optional<runtime::cluster::KafkaReach> reach;
  Clock::time_point resumed_at{};   ///< when a freeze was last noticed
  uint64_t seen_freezes = 0;
  // The lease, as every node watches it (once the config topic was read to its end).
  bool configs_read = false;
  std::optional<runtime::cluster::LeaderLease> lease;
  // The supervisor's, while this node leads.
  bool leading = false;
  std::unique_ptr<Rebalancer> rebalancer;
  PublishedAssignment published;    ///< what it last wrote (and renews)
  Clock::time_point renewed{};
  Clock::time_point retry_at{};
  bool waiting_logged = false;
  bool store_again = false; ///< task configs could not all be stored: the next tick tries again
  /// What this node last offered the leader, by connector (logged once each).
  std::map<std::string, std::vector<StringMap>> offered;
  static inline const char* name = "node";
};

using node_actor = caf::stateful_actor<NodeState>;

bool candidate(node_actor* self) {
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

void step_down(node_actor* self, const std::string& why) {
  auto& st = self->state;
  if (st.leading)
    spdlog::warn("cluster: this node no longer leads: {}", why);
  st.leading = false;
  st.rebalancer.reset(); // the connector actors here stay: they follow the assignment
  st.settings.leadership->release();
  st.retry_at = Clock::now() + retry_delay;
}

/// Writes `next` in the leader's transaction; steps down when that fails.
bool publish(node_actor* self, PublishedAssignment next) {
  auto& st = self->state;
  try {
    // A leader that cannot commit within the unreachable timeout gives the
    // leadership up: the others will find its lease lapsed by then.
    st.settings.leadership->publish(next, st.settings.unreachable_after);
  } catch (const runtime::cluster::Fenced& e) {
    step_down(self, e.what());
    return false;
  } catch (const std::exception& e) {
    step_down(self, std::string{"cannot write the assignment: "} + e.what());
    return false;
  }
  st.published = std::move(next);
  st.renewed = Clock::now();
  return true;
}

/// The rebalancer's assignment as a record: every node's work and REST worker id.
PublishedAssignment to_record(node_actor* self, uint64_t generation) {
  auto& st = self->state;
  PublishedAssignment next;
  next.generation = generation;
  next.leader = st.settings.member_id;
  for (const auto& [w, address] : st.rebalancer->assignment())
    next.nodes[address].work.push_back(w);
  for (auto& [address, node] : next.nodes) {
    if (auto old = st.published.nodes.find(address); old != st.published.nodes.end())
      node.worker_id = old->second.worker_id;
    for (const auto& m : st.members.members)
      if (m.address == address && m.status != MemberStatus::down && m.rest_url.starts_with("http"))
        node.worker_id = m.rest_url.substr(m.rest_url.find("//") + 2);
    if (address == st.settings.address)
      node.worker_id = st.settings.worker_id;
  }
  return next;
}

/// Publishes every round the rebalancer has ready.
void supervise(node_actor* self) {
  auto& st = self->state;
  if (!st.leading || !st.rebalancer)
    return;
  while (auto round = st.rebalancer->poll(Clock::now())) {
    for (const auto& [node, works] : round->revoke)
      spdlog::info("cluster: generation {}: node {} stops {} unit(s) of work", round->generation, node,
                   works.size());
    for (const auto& [node, works] : round->assign)
      spdlog::info("cluster: generation {}: node {} starts {} unit(s) of work", round->generation, node,
                   works.size());
    if (!publish(self, to_record(self, round->generation)))
      return;
  }
}

/// Runs here what `snapshot`'s assignment gives this node, if it is newer than the
/// one applied, and tells its leader that this node runs nothing else (what was
/// taken away is drained and committed): a round's assignments wait for that word
/// from every node it revoked work from. The word goes with every generation
/// applied, not only when work left this node, since a node may never have started
/// the work a round takes from it (it read that round and the one before together,
/// or after a resync); and again with every renewal of the record, since a message
/// to the leader can be lost (no handle to it yet, a connection being dialled
/// again). The leader ignores it for any generation but the current one.
void apply_assignment(node_actor* self, const runtime::cluster::ClusterConfig& snapshot) {
  auto& st = self->state;
  if (st.resync || !snapshot.assignment)
    return;
  const auto& a = *snapshot.assignment;
  if (st.applied && a.generation < *st.applied)
    return;
  auto list = a.work_of(st.settings.address);
  std::set<Work> mine(list.begin(), list.end());
  if (!st.applied || *st.applied != a.generation || mine != st.settings.herder->assigned().first) {
    st.applied = a.generation;
    st.settings.herder->run_only(std::move(mine), a.generation);
  }
  if (a.leader == st.settings.member_id) {
    self->send(self, applied_atom::value, st.settings.address, a.generation);
  } else if (auto it = st.members.handles.find(a.leader); it != st.members.handles.end()) {
    self->send(it->second, forward_atom::value,
               caf::make_message(applied_atom::value, st.settings.address, a.generation));
  }
}

/// Ends every task here without committing, and forgets the assignment until the
/// config topic was read again.
void abandon(node_actor* self, const std::string& why) {
  auto& st = self->state;
  if (!st.settings.herder->assigned().first.empty())
    st.settings.herder->abandon_all(why);
  st.applied.reset();
  st.resync = true;
  step_down(self, why);
}

/// A freeze noticed by the membership actor's timer, or its timer late right now
/// (this process just resumed and the membership actor has not run yet).
void check_frozen(node_actor* self) {
  auto& st = self->state;
  auto& l = *st.settings.liveness;
  auto now = Clock::now();
  auto last_tick = Clock::time_point{Clock::duration{l.last_tick.load()}};
  uint64_t freezes = l.freezes;
  bool late = now - last_tick > st.settings.unreachable_after && now - st.resumed_at > st.settings.unreachable_after;
  if (freezes <= st.seen_freezes && !late)
    return;
  st.seen_freezes = std::max(freezes, st.seen_freezes + (late ? 1 : 0));
  st.resumed_at = now;
  st.reach->resumed(now);
  spdlog::warn("cluster: this node was frozen: abandoning its tasks (the others may run them by now)");
  abandon(self, "this node was frozen and its work may have moved");
}

/// A node that has not heard from Kafka for the unreachable timeout stops its
/// tasks (the leader will give them to nodes that reach it) and is Leaving for the
/// others until Kafka answers again.
void check_kafka(node_actor* self) {
  auto& st = self->state;
  using Change = runtime::cluster::KafkaReach::Change;
  auto change = st.reach->update(st.settings.configs->last_contact(), Clock::now());
  if (change == Change::none)
    return;
  bool reaches = change == Change::regained;
  if (auto it = st.members.handles.find(st.settings.member_id); it != st.members.handles.end())
    self->send(it->second, kafka_atom::value, reaches);
  if (reaches) {
    spdlog::info("cluster: Kafka answers again");
    return;
  }
  spdlog::warn("cluster: no answer from Kafka for {} ms (cluster.unreachable.timeout.ms={}): stopping "
               "this node's tasks",
               st.reach->silence().count(), st.settings.unreachable_after.count());
  abandon(self, "this node cannot reach Kafka");
}

/// After a freeze or a cut: once the config topic is read to its end, the newest
/// assignment applies again.
void resync(node_actor* self) {
  auto& st = self->state;
  if (!st.resync || st.reach->cut_off())
    return;
  if (!st.settings.configs->catch_up(acquire_timeout))
    return; // next tick
  st.resync = false;
  spdlog::info("cluster: read the config topic again: applying the newest assignment");
  auto snapshot = st.settings.configs->snapshot();
  st.settings.herder->apply_configs(snapshot);
  apply_assignment(self, snapshot);
}

/// Notes when the assignment record last moved: a leader renews it every third of
/// the unreachable timeout while it holds the leadership.
void watch_lease(node_actor* self, const runtime::cluster::ClusterConfig& snapshot) {
  auto& st = self->state;
  st.lease->observe(snapshot.assignment_offset, snapshot.assignment ? snapshot.assignment->leader : "",
                    Clock::now());
}

/// On the leader: writes `tasks` as `name`'s task configs (task-NAME-N records and
/// their commit-NAME) in the leadership's fenced transaction, so a leader deposed
/// meanwhile writes nothing, and reads them back, so the next offer finds them
/// stored. False when the write failed: fenced, or any other failure, after which
/// this node no longer leads (as when an assignment cannot be written).
bool store(node_actor* self, const std::string& name, const std::vector<StringMap>& tasks) {
  auto& st = self->state;
  auto& configs = *st.settings.configs;
  try {
    st.settings.leadership->publish_task_configs(name, tasks, st.settings.unreachable_after);
    spdlog::info("cluster: connector {}: {} task config(s) stored", name, tasks.size());
  } catch (const runtime::cluster::Fenced& e) {
    step_down(self, e.what());
    return false;
  } catch (const std::exception& e) {
    step_down(self, "cannot store the task configs of connector " + name + ": " + e.what());
    return false;
  }
  if (!configs.catch_up(acquire_timeout))
    spdlog::warn("cluster: connector {}: its task configs were not read back within 5 s", name);
  return true;
}

/// Kafka Connect's reconfiguration: the task configs that the connector actors here
/// made and the config topic lacks go to the leader, which stores them; this node
/// stores them itself when it leads (and a stopped connector's, which are none).
/// An offer the leader did not take is made again with the next change of the
/// config topic, which the leader's renewals bring at least every third of the
/// unreachable timeout.
void offer_task_configs(node_actor* self) {
  auto& st = self->state;
  st.store_again = false;
  auto snapshot = st.settings.configs->snapshot();
  auto offers = st.settings.herder->task_configs_to_store(snapshot, st.leading);
  auto generation = st.settings.herder->assigned().second;
  for (auto& [name, tasks] : offers) {
    if (st.leading) {
      st.store_again = !store(self, name, tasks) || st.store_again;
      continue;
    }
    auto config = snapshot.connectors.find(name);
    auto leader = snapshot.assignment ? st.members.handles.find(snapshot.assignment->leader) : st.members.handles.end();
    if (config == snapshot.connectors.end() || leader == st.members.handles.end())
      continue; // no leader to send them to yet
    caf::message_builder list;
    for (const auto& task : tasks)
      list.append(task);
    if (auto last = st.offered.find(name); last == st.offered.end() || last->second != tasks) {
      spdlog::info("cluster: connector {}: {} task config(s) sent to the leader {}", name, tasks.size(),
                   snapshot.assignment->leader);
      st.offered.insert_or_assign(name, tasks);
    }
    self->send(leader->second, forward_atom::value,
               caf::make_message(task_configs_atom::value, name, config->second, list.to_message(),
                                 st.settings.address, generation));
  }
}

/// On the leader: stores the task configs that node `from` offered for `name`, made
/// from `config` under `generation`, if `from` owns the connector's instance in the
/// newest assignment, the config is the one stored, and the stored task configs
/// differ. Anything else is stale (an instance that has moved, a config replaced
/// since) and dropped: the owner offers again.
void on_offered(node_actor* self, const std::string& name, const StringMap& config, const caf::message& list,
                const std::string& from, uint64_t generation) {
  auto& st = self->state;
  if (!st.leading)
    return;
  auto owner = st.published.owner_of({name, Work::connector_instance});
  if (owner != from || generation > st.published.generation) {
    spdlog::info("cluster: connector {}: ignored the task configs from {} (generation {}): its instance is on "
                 "{} in generation {}",
                 name, from, generation, owner.empty() ? "no node" : owner, st.published.generation);
    return;
  }
  auto snapshot = st.settings.configs->snapshot();
  auto stored_config = snapshot.connectors.find(name);
  auto target = snapshot.target_states.find(name);
  if (stored_config == snapshot.connectors.end() || stored_config->second != config
      || (target != snapshot.target_states.end() && target->second == "STOPPED"))
    return; // deleted, reconfigured or stopped since
  std::vector<StringMap> tasks;
  for (size_t i = 0; i < list.size(); ++i)
    if (list.match_element<StringMap>(i))
      tasks.push_back(list.get_as<StringMap>(i));
  auto stored = snapshot.task_configs.find(name);
  if (!snapshot.awaiting_task_configs.count(name) && stored != snapshot.task_configs.end() && stored->second == tasks)
    return; // stored already
  store(self, name, tasks); // should it fail, the owner offers them again
}

/// Takes the leadership when membership names this node and no other node's
/// lease is alive: fences every earlier leader, reads the config topic to its end
/// and adopts its newest assignment (a leader change moves nothing by itself).
void maybe_lead(node_actor* self) {
  auto& st = self->state;
  auto now = Clock::now();
  // Before the config topic was read to its end, this node cannot know whether
  // another node leads (a node that just started sees only itself, too).
  if (st.leading || !candidate(self) || !st.configs_read || st.reach->cut_off() || st.resync
      || now < st.retry_at)
    return;
  auto snapshot = st.settings.configs->snapshot();
  watch_lease(self, snapshot);
  if (st.lease->held_by_another(st.settings.member_id, now)) {
    if (!st.waiting_logged)
      spdlog::info("cluster: {} still renews the leadership in Kafka: waiting for it to lapse",
                   st.lease->holder());
    st.waiting_logged = true;
    return;
  }
  st.waiting_logged = false;
  try {
    st.settings.leadership->acquire(acquire_timeout);
    if (!st.settings.configs->catch_up(acquire_timeout))
      throw std::runtime_error("the config topic was not read to its end within 5 s");
  } catch (const std::exception& e) {
    spdlog::warn("cluster: cannot take the leadership: {}", e.what());
    step_down(self, e.what());
    return;
  }
  snapshot = st.settings.configs->snapshot();
  st.settings.herder->apply_configs(snapshot);
  st.rebalancer = std::make_unique<Rebalancer>(st.settings.max_delay);
  st.rebalancer->set_wanted(st.settings.herder->wanted_work());
  st.published = snapshot.assignment.value_or(PublishedAssignment{});
  st.rebalancer->adopt(st.settings.address, {}, st.published.generation);
  for (const auto& [address, node] : st.published.nodes)
    st.rebalancer->adopt(address, node.work, st.published.generation);
  st.rebalancer->set_live(live_addresses(st.members), now);
  st.leading = true;
  spdlog::info("cluster: this node leads: it holds the fenced leadership (transactional.id {}) from "
               "generation {}",
               st.settings.leadership->transactional_id(), st.published.generation);
  // The lease starts now: written again at once, under this node's name.
  auto renewal = st.published;
  renewal.leader = st.settings.member_id;
  if (publish(self, std::move(renewal)))
    supervise(self);
  offer_task_configs(self);
}

void on_members(node_actor* self, MembershipSnapshot snapshot) {
  auto& st = self->state;
  check_frozen(self);
  bool new_leader = snapshot.leader != st.members.leader;
  st.members = std::move(snapshot);
  st.settings.view->set_members(st.members);
  if (new_leader && !st.members.leader.empty())
    spdlog::info("cluster: leader candidate is {}", st.members.leader);
  if (st.leading && !candidate(self))
    step_down(self, "membership names " + st.members.leader + " the leader candidate");
  if (st.leading)
    st.rebalancer->set_live(live_addresses(st.members), Clock::now());
  maybe_lead(self);
  supervise(self);
}

void on_configs(node_actor* self) {
  auto& st = self->state;
  check_frozen(self);
  auto snapshot = st.settings.configs->snapshot();
  st.configs_read = true; // the log reports its first read to the end first
  watch_lease(self, snapshot);
  st.settings.herder->apply_configs(snapshot);
  apply_assignment(self, snapshot);
  offer_task_configs(self);
  if (st.leading) {
    st.rebalancer->set_wanted(st.settings.herder->wanted_work());
    supervise(self);
  }
}

void on_tick(node_actor* self) {
  auto& st = self->state;
  check_frozen(self);
  check_kafka(self);
  resync(self);
  maybe_lead(self);
  supervise(self);
  if (st.settings.herder->take_reconfigured() || st.store_again)
    offer_task_configs(self);
  if (st.leading && Clock::now() - st.renewed >= st.settings.unreachable_after / 3)
    publish(self, st.published);
  self->delayed_send(self, tick_interval, tick_atom::value);
}

caf::behavior node(node_actor* self, NodeSettings settings) {
  self->state.settings = std::move(settings);
  auto& st = self->state;
  if (!st.settings.liveness)
    st.settings.liveness = std::make_shared<Liveness>();
  st.reach.emplace(st.settings.unreachable_after);
  st.lease.emplace(st.settings.unreachable_after);
  self->send(self, tick_atom::value);
  return {
    [=](members_atom, MembershipSnapshot& snapshot) { on_members(self, std::move(snapshot)); },
    [=](configs_atom) { on_configs(self); },
    [=](applied_atom, const std::string& node, uint64_t generation) {
      auto& st = self->state;
      if (!st.leading)
        return;
      st.rebalancer->applied(node, generation);
      supervise(self);
    },
    [=](task_configs_atom, const std::string& connector, const StringMap& config, const caf::message& tasks,
        const std::string& from, uint64_t generation) {
      on_offered(self, connector, config, tasks, from, generation);
    },
    [=](restart_atom, const std::string& connector) {
      try {
        self->state.settings.herder->restart_connector(connector, Clock::now() + 60s);
      } catch (const std::exception& e) {
        spdlog::warn("cluster: cannot restart connector {}: {}", connector, e.what());
      }
    },
    [=](tick_atom) { on_tick(self); },
  };
}

} // namespace

caf::actor spawn_node(caf::actor_system& sys, NodeSettings settings) {
  return sys.spawn<caf::detached>(node, std::move(settings));
}

} // namespace weir::actors::cluster
