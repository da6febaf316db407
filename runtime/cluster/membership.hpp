// One node's view of the cluster: who the members are (gossiped), which of them it
// can reach (its own failure detection), and who leads.
//
// CAF-free: the membership actor feeds it gossip, heartbeats and connection losses,
// and acts on what it derives. Membership only places work; correctness never
// depends on it being right (Kafka fences commits, DESIGN.md principle 3).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace weir::runtime::cluster {

enum class MemberStatus : uint8_t {
  up,      ///< takes work
  leaving, ///< shutting down cleanly: gets no new work
  down,    ///< gone for good (its next start is a new incarnation)
};

std::string_view to_string(MemberStatus s) noexcept;

struct Member {
  std::string id;          ///< unique per process incarnation (listen address + start)
  std::string address;     ///< host:port of its middleman
  int64_t started_ms = 0;  ///< wall clock at start: the oldest member leads
  MemberStatus status = MemberStatus::up;
  uint64_t version = 0;    ///< bumped by the member itself on every change
  std::string rest_url = {}; ///< where its REST API listens (writes are forwarded to the leader's)

  bool operator==(const Member&) const = default;
};

class MembershipView {
public:
  using Clock = std::chrono::steady_clock;

  explicit MembershipView(Member self);

  const Member& self() const { return members_.at(self_id_); }

  /// Merges a member list received by gossip: for each member, the entry with the
  /// higher version wins; a member's own entry about itself is never overwritten by
  /// others. Returns true when anything changed (worth gossiping on).
  bool merge(const std::vector<Member>& gossip);

  /// Changes this node's own status (e.g. leaving at shutdown) and bumps its version.
  void set_self_status(MemberStatus status);

  /// Every member known, by id.
  std::vector<Member> members() const;

  /// Failure detection: any message from a member counts as a heartbeat. (A lost
  /// connection alone proves nothing: the membership actor redials, and the member
  /// stays reachable as long as it is heard from.)
  void heard_from(const std::string& id, Clock::time_point now);
  /// A member is gone for good (a new incarnation at its address joined): marked
  /// Down with a newer version, so gossip spreads the verdict.
  void mark_down(const std::string& id);
  /// Members not heard from within `timeout` become unreachable; returns the ones
  /// that did so in this call.
  std::vector<std::string> detect(Clock::time_point now, Clock::duration timeout);
  bool reachable(const std::string& id) const;

  /// Up members this node can reach, itself included, oldest first: the nodes that
  /// take work, in the order the assignor uses.
  std::vector<std::string> live() const;

  /// The oldest Up member this node can reach (no election: every node that sees
  /// the same members derives the same leader).
  std::optional<std::string> leader() const;


private:
  std::string self_id_;
  std::map<std::string, Member> members_;
  std::map<std::string, Clock::time_point> last_heard_;
  std::set<std::string> unreachable_;
};

} // namespace weir::runtime::cluster
