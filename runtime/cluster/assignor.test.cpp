#include <boost/test/unit_test.hpp>

#include "runtime/cluster/assignor.hpp"
#include "tests/support/cluster_unit.hpp"

using namespace weir::runtime::cluster;

namespace {

/// Applies a plan as the supervisor would and checks it is self-consistent.
Assignment apply(const AssignmentInput& in, const AssignmentPlan& plan) {
  for (const auto& w : in.wanted)
    if (!in.live.empty())
      BOOST_TEST(plan.next.count(w) == 1u, "unassigned: " << w.connector << "/" << w.task);
  for (const auto& [w, n] : plan.revoked) {
    auto it = in.previous.find(w);
    BOOST_TEST((it != in.previous.end() && it->second == n), "revoked from a node it was not on");
  }
  return plan.next;
}

} // namespace

BOOST_AUTO_TEST_SUITE(assignor)

BOOST_AUTO_TEST_CASE(three_nodes_six_tasks_is_two_each) {
  AssignmentInput in{{}, work_of("sink", 6), {"a", "b", "c"}, {}};
  auto plan = assign(in);
  auto next = apply(in, plan);
  BOOST_TEST((test::tasks_per_node(next) == std::map<std::string, int>{{"a", 2}, {"b", 2}, {"c", 2}}));
  BOOST_TEST(plan.revoked.empty());
  BOOST_TEST(plan.assigned.size() == 7u); // the connector and its six tasks
}

BOOST_AUTO_TEST_CASE(a_lost_node_moves_only_its_own_tasks) {
  AssignmentInput in{{}, work_of("sink", 6), {"a", "b", "c"}, {}};
  auto before = assign(in).next;
  in.previous = before;
  in.live = {"a", "b"}; // c was killed, no delay
  auto plan = assign(in);
  auto next = apply(in, plan);
  BOOST_TEST(plan.revoked.empty(), "a surviving task was stopped");
  for (const auto& [w, n] : before)
    if (n != "c")
      BOOST_TEST(next.at(w) == n, "task " << w.task << " moved off a healthy node");
  BOOST_TEST((test::tasks_per_node(next) == std::map<std::string, int>{{"a", 3}, {"b", 3}}));
}

BOOST_AUTO_TEST_CASE(a_returning_node_gets_two_tasks_back_with_two_moves) {
  AssignmentInput in{{}, work_of("sink", 6), {"a", "b", "c"}, {}};
  in.previous = assign(in).next;
  in.live = {"a", "b"};
  in.previous = assign(in).next;
  in.live = {"a", "b", "c"};
  auto plan = assign(in);
  auto next = apply(in, plan);
  BOOST_TEST((test::tasks_per_node(next) == std::map<std::string, int>{{"a", 2}, {"b", 2}, {"c", 2}}));
  size_t task_moves = 0;
  for (const auto& [w, n] : plan.assigned)
    task_moves += w.is_connector() ? 0 : 1;
  BOOST_TEST(task_moves == 2u);
  BOOST_TEST(plan.revoked.size() == 2u); // one from each of a and b
}

BOOST_AUTO_TEST_CASE(a_fourth_node_is_balanced_within_one_with_fewest_moves) {
  AssignmentInput in{{}, work_of("sink", 6), {"a", "b", "c"}, {}};
  in.previous = assign(in).next;
  in.live = {"a", "b", "c", "d"};
  auto plan = assign(in);
  auto next = apply(in, plan);
  auto counts = test::tasks_per_node(next);
  int lo = 99, hi = 0;
  for (const auto& [n, c] : counts)
    lo = std::min(lo, c), hi = std::max(hi, c);
  BOOST_TEST(counts.size() == 4u);
  BOOST_TEST(hi - lo <= 1);
  size_t task_moves = 0;
  for (const auto& [w, n] : plan.assigned)
    task_moves += w.is_connector() ? 0 : 1;
  BOOST_TEST(task_moves == 1u); // 6 over 4 is 2,2,1,1: d takes one task, nothing else moves
}

BOOST_AUTO_TEST_CASE(held_nodes_keep_their_work_until_the_delay_runs_out) {
  AssignmentInput in{{}, work_of("sink", 6), {"a", "b", "c"}, {}};
  in.previous = assign(in).next;
  in.live = {"a", "b"};
  in.held = {"c"};
  auto plan = assign(in);
  BOOST_TEST(plan.moves() == 0u);
  BOOST_TEST(test::tasks_per_node(plan.next)["c"] == 2);
  in.held.clear(); // the delay ran out
  plan = assign(in);
  BOOST_TEST((test::tasks_per_node(plan.next) == std::map<std::string, int>{{"a", 3}, {"b", 3}}));
}

BOOST_AUTO_TEST_CASE(connectors_and_tasks_are_balanced_separately) {
  std::set<Work> wanted = work_of("x", 2);
  wanted.merge(work_of("y", 2));
  wanted.merge(work_of("z", 2));
  AssignmentInput in{{}, wanted, {"a", "b", "c"}, {}};
  auto next = assign(in).next;
  std::map<std::string, int> connectors;
  for (const auto& [w, n] : next)
    connectors[n] += w.is_connector() ? 1 : 0;
  BOOST_TEST((connectors == std::map<std::string, int>{{"a", 1}, {"b", 1}, {"c", 1}}));
  BOOST_TEST((test::tasks_per_node(next) == std::map<std::string, int>{{"a", 2}, {"b", 2}, {"c", 2}}));
}

BOOST_AUTO_TEST_CASE(deleted_connectors_are_revoked_and_the_rest_rebalanced) {
  std::set<Work> wanted = work_of("x", 4);
  wanted.merge(work_of("y", 2));
  AssignmentInput in{{}, wanted, {"a", "b"}, {}};
  in.previous = assign(in).next;
  in.wanted = work_of("x", 4);
  auto plan = assign(in);
  for (const auto& [w, n] : in.previous)
    if (w.connector == "y")
      BOOST_TEST(plan.revoked.count(w) == 1u);
  BOOST_TEST(plan.next.size() == 5u);
  auto counts = test::tasks_per_node(plan.next);
  BOOST_TEST(counts["a"] == 2);
  BOOST_TEST(counts["b"] == 2);
}

BOOST_AUTO_TEST_CASE(the_same_input_gives_the_same_plan) {
  std::set<Work> wanted = work_of("x", 7);
  wanted.merge(work_of("y", 3));
  AssignmentInput in{{}, wanted, {"n1", "n2", "n3"}, {}};
  BOOST_TEST((assign(in).next == assign(in).next));
}

BOOST_AUTO_TEST_CASE(without_live_nodes_nothing_is_placed) {
  AssignmentInput in{{}, work_of("x", 2), {}, {}};
  auto plan = assign(in);
  BOOST_TEST(plan.next.empty());
  BOOST_TEST(plan.moves() == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
