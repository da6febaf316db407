#include <boost/test/unit_test.hpp>

#include "runtime/cluster/rebalancer.hpp"
#include "tests/support/cluster_unit.hpp"

using namespace weir::runtime::cluster;
using namespace std::chrono_literals;

namespace {

size_t count(const Rebalancer::WorkByNode& m) {
  size_t n = 0;
  for (const auto& [node, works] : m)
    n += works.size();
  return n;
}

/// A cluster of three nodes running one connector with six tasks, settled.
Rebalancer settled(std::chrono::milliseconds delay, Rebalancer::Clock::time_point t0) {
  Rebalancer r{delay};
  r.set_wanted(work_of("sink", 6));
  r.set_live({"a", "b", "c"}, t0);
  auto first = r.poll(t0);
  BOOST_REQUIRE(first.has_value());
  BOOST_TEST(first->revoke.empty());
  BOOST_TEST(count(first->assign) == 7u);
  BOOST_TEST(!r.poll(t0).has_value(), "nothing more to do");
  return r;
}

} // namespace

BOOST_AUTO_TEST_SUITE(rebalancer)

BOOST_AUTO_TEST_CASE(first_round_assigns_everything_balanced) {
  auto t0 = Rebalancer::Clock::now();
  auto r = settled(0ms, t0);
  BOOST_TEST(r.generation() == 1u);
  BOOST_TEST((test::tasks_per_node(r.assignment()) == std::map<std::string, int>{{"a", 2}, {"b", 2}, {"c", 2}}));
}

BOOST_AUTO_TEST_CASE(without_delay_a_departed_nodes_work_moves_at_once) {
  auto t0 = Rebalancer::Clock::now();
  auto r = settled(0ms, t0);
  auto before = r.assignment();
  r.set_live({"a", "b"}, t0 + 1s);
  auto round = r.poll(t0 + 1s);
  BOOST_REQUIRE(round.has_value());
  BOOST_TEST(round->revoke.empty(), "nothing on a healthy node stops");
  for (const auto& [node, works] : round->assign)
    for (const auto& w : works)
      BOOST_TEST(before.at(w) == "c", "only c's work moves");
  BOOST_TEST((test::tasks_per_node(r.assignment()) == std::map<std::string, int>{{"a", 3}, {"b", 3}}));
  BOOST_TEST(r.generation() == 2u);
}

BOOST_AUTO_TEST_CASE(with_a_delay_the_work_waits_for_the_node) {
  auto t0 = Rebalancer::Clock::now();
  auto r = settled(5000ms, t0);
  r.set_live({"a", "b"}, t0 + 1s);
  BOOST_TEST(!r.poll(t0 + 1s).has_value(), "held for the delay");
  BOOST_TEST((r.deadline() == t0 + 6s));
  BOOST_TEST(!r.poll(t0 + 5s).has_value());
  auto round = r.poll(t0 + 6s);
  BOOST_REQUIRE(round.has_value());
  BOOST_TEST((test::tasks_per_node(r.assignment()) == std::map<std::string, int>{{"a", 3}, {"b", 3}}));
  BOOST_TEST(!r.deadline().has_value());
}

BOOST_AUTO_TEST_CASE(a_node_back_within_the_delay_moves_nothing) {
  auto t0 = Rebalancer::Clock::now();
  auto r = settled(5000ms, t0);
  auto before = r.assignment();
  r.set_live({"a", "b"}, t0 + 1s);
  BOOST_TEST(!r.poll(t0 + 1s).has_value());
  r.set_live({"a", "b", "c"}, t0 + 2s);
  BOOST_TEST(!r.poll(t0 + 2s).has_value());
  BOOST_TEST((r.assignment() == before));
}

BOOST_AUTO_TEST_CASE(a_returning_node_gets_two_tasks_after_two_revocations) {
  auto t0 = Rebalancer::Clock::now();
  auto r = settled(0ms, t0);
  r.set_live({"a", "b"}, t0 + 1s);
  BOOST_REQUIRE(r.poll(t0 + 1s).has_value());
  r.set_live({"a", "b", "c"}, t0 + 2s);
  auto revoke = r.poll(t0 + 2s);
  BOOST_REQUIRE(revoke.has_value());
  BOOST_TEST(revoke->assign.empty(), "assignments wait for the revocations");
  BOOST_TEST(count(revoke->revoke) == 2u);
  BOOST_TEST((r.awaiting() == std::set<std::string>{"a", "b"}));
  BOOST_TEST(!r.poll(t0 + 2s).has_value());
  r.applied("a", revoke->generation);
  r.applied("b", revoke->generation - 1); // stale: ignored
  BOOST_TEST(!r.poll(t0 + 2s).has_value());
  r.applied("b", revoke->generation);
  auto assign = r.poll(t0 + 2s);
  BOOST_REQUIRE(assign.has_value());
  BOOST_TEST(assign->generation == revoke->generation);
  BOOST_TEST(count(assign->assign) == 2u);
  BOOST_TEST(assign->assign.count("c") == 1u);
  BOOST_TEST((test::tasks_per_node(r.assignment()) == std::map<std::string, int>{{"a", 2}, {"b", 2}, {"c", 2}}));
}

BOOST_AUTO_TEST_CASE(a_node_that_dies_with_a_revocation_pending_does_not_block_the_round) {
  auto t0 = Rebalancer::Clock::now();
  auto r = settled(0ms, t0);
  r.set_live({"a", "b", "c", "d"}, t0 + 1s);
  auto revoke = r.poll(t0 + 1s);
  BOOST_REQUIRE(revoke.has_value());
  BOOST_REQUIRE(!revoke->revoke.empty());
  std::string victim = revoke->revoke.begin()->first;
  std::vector<std::string> live;
  for (std::string n : {"a", "b", "c", "d"})
    if (n != victim)
      live.push_back(n);
  r.set_live(live, t0 + 2s);
  auto assign = r.poll(t0 + 2s);
  BOOST_REQUIRE(assign.has_value());
  BOOST_TEST(assign->revoke.empty());
  auto next = r.poll(t0 + 2s); // then the victim's own work is placed
  BOOST_REQUIRE(next.has_value());
  for (const auto& [w, node] : r.assignment())
    BOOST_TEST(node != victim);
  BOOST_TEST(r.assignment().size() == 7u);
}

BOOST_AUTO_TEST_CASE(a_new_leader_adopts_what_runs_and_moves_nothing) {
  auto t0 = Rebalancer::Clock::now();
  auto old = settled(0ms, t0);
  Rebalancer fresh{0ms};
  fresh.set_wanted(work_of("sink", 6));
  std::map<std::string, std::vector<Work>> by_node;
  for (const auto& [w, node] : old.assignment())
    by_node[node].push_back(w);
  for (const auto& [node, works] : by_node)
    fresh.adopt(node, works, old.generation());
  fresh.set_live({"a", "b", "c"}, t0);
  BOOST_TEST(!fresh.poll(t0).has_value(), "a balanced cluster stays as it is");
  BOOST_TEST(fresh.assignment() == old.assignment());
  BOOST_TEST(fresh.generation() == old.generation());
}

BOOST_AUTO_TEST_CASE(deleting_a_connector_revokes_its_work) {
  auto t0 = Rebalancer::Clock::now();
  auto r = settled(0ms, t0);
  r.set_wanted({});
  auto round = r.poll(t0 + 1s);
  BOOST_REQUIRE(round.has_value());
  BOOST_TEST(count(round->revoke) == 7u);
  BOOST_TEST(r.assignment().empty());
}

BOOST_AUTO_TEST_SUITE_END()
