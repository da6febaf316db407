#include "runtime/cluster/rebalancer.hpp"

#include <algorithm>

namespace weir::runtime::cluster {

void Rebalancer::set_wanted(std::set<Work> wanted) {
  if (wanted != wanted_)
    dirty_ = true;
  wanted_ = std::move(wanted);
}

void Rebalancer::set_live(std::vector<std::string> live, Clock::time_point now) {
  if (live == live_)
    return;
  auto is_live = [&](const std::string& n) {
    return std::find(live.begin(), live.end(), n) != live.end();
  };
  // Nodes that hold work and are gone start their delay; returning ones end it.
  for (const auto& [w, node] : current_)
    if (!is_live(node))
      departed_.try_emplace(node, now + max_delay_);
  std::erase_if(departed_, [&](const auto& d) { return is_live(d.first); });
  // A node that died with a revocation pending cannot confirm it: its work stopped.
  std::erase_if(awaiting_, [&](const auto& n) { return !is_live(n); });
  live_ = std::move(live);
  dirty_ = true;
}

void Rebalancer::adopt(const std::string& node, const std::vector<Work>& work, uint64_t generation) {
  for (const auto& w : work)
    current_[w] = node;
  generation_ = std::max(generation_, generation);
  dirty_ = true;
}

void Rebalancer::applied(const std::string& node, uint64_t generation) {
  if (generation == generation_)
    awaiting_.erase(node);
}

std::optional<Rebalancer::Round> Rebalancer::poll(Clock::time_point now) {
  // A round in progress finishes first: assignments wait for every revocation.
  if (!pending_assign_.empty() || !awaiting_.empty()) {
    if (!awaiting_.empty())
      return std::nullopt;
    Round round{generation_, {}, std::move(pending_assign_)};
    pending_assign_.clear();
    for (const auto& [node, works] : round.assign)
      for (const auto& w : works)
        current_[w] = node;
    return round;
  }
  for (auto it = departed_.begin(); it != departed_.end();) {
    if (it->second <= now) {
      it = departed_.erase(it);
      dirty_ = true;
    } else {
      ++it;
    }
  }
  if (!dirty_)
    return std::nullopt;
  dirty_ = false;

  AssignmentInput input{current_, wanted_, live_, {}};
  for (const auto& [node, until] : departed_)
    input.held.insert(node);
  auto plan = assign(input);
  if (plan.moves() == 0)
    return std::nullopt;

  ++generation_;
  Round round{generation_, {}, {}};
  for (const auto& [w, node] : plan.revoked) {
    round.revoke[node].push_back(w);
    current_.erase(w);
    awaiting_.insert(node);
  }
  // Work of a node that is gone for good needs no revocation: it stopped with it.
  for (auto it = current_.begin(); it != current_.end();)
    it = plan.next.count(it->first) && plan.next.at(it->first) == it->second ? std::next(it)
                                                                              : current_.erase(it);
  WorkByNode assign;
  for (const auto& [w, node] : plan.assigned)
    assign[node].push_back(w);
  if (round.revoke.empty()) {
    round.assign = std::move(assign);
    for (const auto& [node, works] : round.assign)
      for (const auto& w : works)
        current_[w] = node;
  } else {
    pending_assign_ = std::move(assign);
  }
  return round;
}

std::optional<Rebalancer::Clock::time_point> Rebalancer::deadline() const {
  std::optional<Clock::time_point> first;
  for (const auto& [node, until] : departed_)
    if (!first || until < *first)
      first = until;
  return first;
}

} // namespace weir::runtime::cluster
