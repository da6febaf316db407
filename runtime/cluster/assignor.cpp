#include "runtime/cluster/assignor.hpp"

#include <algorithm>

namespace weir::runtime::cluster {

namespace {

/// Balances one kind of work (connectors or tasks) over the live nodes.
void balance(const AssignmentInput& in, bool connectors, AssignmentPlan& plan) {
  auto kind = [&](const Work& w) { return w.is_connector() == connectors; };
  std::set<std::string> held = in.held;
  for (const auto& n : in.live)
    held.erase(n);

  // Sticky: keep what is wanted and already on a live node.
  std::map<std::string, std::vector<Work>> load;
  for (const auto& n : in.live)
    load[n];
  std::vector<Work> unplaced;
  for (const auto& w : in.wanted) {
    if (!kind(w))
      continue;
    auto it = in.previous.find(w);
    if (it != in.previous.end() && load.count(it->second))
      load[it->second].push_back(w);
    else if (it != in.previous.end() && held.count(it->second))
      plan.next[w] = it->second; // waits for its node, or for the delay to run out
    else
      unplaced.push_back(w);
  }
  if (in.live.empty())
    return; // nothing can run it: the work waits for a node

  // Targets: every node gets `base`, and `extra` of them one more. The extra slots go
  // to the nodes that already hold the most, so the fewest units move.
  size_t total = unplaced.size();
  for (const auto& [n, ws] : load)
    total += ws.size();
  size_t base = total / in.live.size();
  size_t extra = total % in.live.size();
  std::vector<std::string> by_load = in.live;
  std::stable_sort(by_load.begin(), by_load.end(), [&](const auto& a, const auto& b) {
    return load[a].size() > load[b].size();
  });
  std::map<std::string, size_t> target;
  for (size_t i = 0; i < by_load.size(); ++i)
    target[by_load[i]] = base + (i < extra ? 1 : 0);

  // Shed surplus: the highest-numbered work of a connector leaves first, so task 0
  // (often the busiest to restart) tends to stay.
  for (const auto& n : in.live) {
    auto& ws = load[n];
    std::sort(ws.begin(), ws.end());
    while (ws.size() > target[n]) {
      plan.revoked[ws.back()] = n;
      unplaced.push_back(ws.back());
      ws.pop_back();
    }
  }
  // Fill: the least loaded node (first in `live` order on ties) takes the next unit.
  std::sort(unplaced.begin(), unplaced.end());
  for (const auto& w : unplaced) {
    const std::string* best = nullptr;
    for (const auto& n : in.live)
      if (load[n].size() < target[n] && (!best || load[n].size() < load[*best].size()))
        best = &n;
    load[*best].push_back(w);
    plan.assigned[w] = *best;
  }
  for (const auto& [n, ws] : load)
    for (const auto& w : ws)
      plan.next[w] = n;
}

} // namespace

std::set<Work> work_of(const std::string& connector, int tasks) {
  std::set<Work> out{{connector, Work::connector_instance}};
  for (int t = 0; t < tasks; ++t)
    out.insert({connector, t});
  return out;
}

AssignmentPlan assign(const AssignmentInput& input) {
  AssignmentPlan plan;
  balance(input, true, plan);
  balance(input, false, plan);
  // Work that is no longer wanted stops where it runs.
  for (const auto& [w, node] : input.previous)
    if (!input.wanted.count(w) && std::find(input.live.begin(), input.live.end(), node)
                                    != input.live.end())
      plan.revoked[w] = node;
  return plan;
}

} // namespace weir::runtime::cluster
