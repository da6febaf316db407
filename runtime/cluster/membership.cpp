#include "runtime/cluster/membership.hpp"

#include <algorithm>

namespace weir::runtime::cluster {

std::string_view to_string(MemberStatus s) noexcept {
  switch (s) {
    case MemberStatus::up: return "Up";
    case MemberStatus::leaving: return "Leaving";
    case MemberStatus::down: return "Down";
  }
  return "?";
}

MembershipView::MembershipView(Member self) : self_id_(self.id) {
  members_.emplace(self.id, std::move(self));
}

bool MembershipView::merge(const std::vector<Member>& gossip) {
  bool changed = false;
  for (const auto& m : gossip) {
    if (m.id == self_id_)
      continue; // only this node speaks for itself
    auto [it, inserted] = members_.try_emplace(m.id, m);
    if (!inserted && m.version > it->second.version) {
      it->second = m;
      inserted = true;
    }
    changed = changed || inserted;
  }
  return changed;
}

void MembershipView::set_self_status(MemberStatus status) {
  auto& me = members_.at(self_id_);
  me.status = status;
  ++me.version;
}

std::vector<Member> MembershipView::members() const {
  std::vector<Member> out;
  out.reserve(members_.size());
  for (const auto& [id, m] : members_)
    out.push_back(m);
  return out;
}

void MembershipView::heard_from(const std::string& id, Clock::time_point now) {
  last_heard_[id] = now;
  unreachable_.erase(id);
}

void MembershipView::mark_down(const std::string& id) {
  auto it = members_.find(id);
  if (it == members_.end() || id == self_id_ || it->second.status == MemberStatus::down)
    return;
  it->second.status = MemberStatus::down;
  ++it->second.version;
  unreachable_.erase(id);
}

std::vector<std::string> MembershipView::detect(Clock::time_point now, Clock::duration timeout) {
  std::vector<std::string> newly;
  for (const auto& [id, m] : members_) {
    if (id == self_id_ || m.status == MemberStatus::down || unreachable_.count(id))
      continue;
    // A member learnt of by gossip but never heard from directly gets a full timeout
    // from the moment it is first checked.
    auto [it, fresh] = last_heard_.try_emplace(id, now);
    if (!fresh && now - it->second > timeout) {
      unreachable_.insert(id);
      newly.push_back(id);
    }
  }
  return newly;
}

bool MembershipView::reachable(const std::string& id) const {
  return id == self_id_ || !unreachable_.count(id);
}

std::vector<std::string> MembershipView::live() const {
  std::vector<const Member*> up;
  for (const auto& [id, m] : members_)
    if (m.status == MemberStatus::up && reachable(id))
      up.push_back(&m);
  std::sort(up.begin(), up.end(), [](const Member* a, const Member* b) {
    return a->started_ms != b->started_ms ? a->started_ms < b->started_ms : a->id < b->id;
  });
  std::vector<std::string> out;
  out.reserve(up.size());
  for (const auto* m : up)
    out.push_back(m->id);
  return out;
}

std::optional<std::string> MembershipView::leader() const {
  auto up = live();
  if (up.empty())
    return std::nullopt;
  return up.front();
}

} // namespace weir::runtime::cluster
