#include "engine/pipeline/join_gate.hpp"

#include <boost/test/unit_test.hpp>

#include <thread>

using weir::engine::pipeline::JoinGate;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(join_gate)

// A member waiting to join waits (as in an empty poll) instead of asking again at
// once, and goes as soon as the first member has its assignment.
BOOST_AUTO_TEST_CASE(a_member_waits_to_join_until_the_first_is_assigned) {
  JoinGate gate{2};
  auto first = gate.enroll();
  gate.enroll();
  BOOST_TEST(gate.take_first());
  auto asked = std::chrono::steady_clock::now();
  BOOST_TEST(!gate.wait_to_join(50ms));
  BOOST_TEST((std::chrono::steady_clock::now() - asked >= 50ms)); // it waited, not returned at once
  std::thread assign{[&] {
    std::this_thread::sleep_for(20ms);
    gate.assigned(first, 2);
  }};
  BOOST_TEST(gate.wait_to_join(60s)); // woken by the assignment, not the timeout
  assign.join();
}


// The start of 4 tasks on 4 partitions as the log of a real one showed it: the first
// member takes everything, gives three up, loses the fourth, and only the last
// generation spreads them. Reading is allowed only then.
BOOST_AUTO_TEST_CASE(members_read_only_once_every_partition_is_spread) {
  JoinGate gate{4};
  std::vector<size_t> m;
  for (int i = 0; i < 4; ++i)
    m.push_back(gate.enroll());
  BOOST_TEST(gate.take_first());
  BOOST_TEST(!gate.take_first());
  BOOST_TEST(!gate.may_join());
  gate.assigned(m[0], 4);
  BOOST_TEST(gate.may_join());
  BOOST_TEST(!gate.may_read()); // the others have not joined yet
  for (int i = 1; i < 4; ++i)
    gate.assigned(m[i], 0);
  BOOST_TEST(!gate.may_read()); // 4, 0, 0, 0: the handover is still to come
  gate.assigned(m[0], 1);
  BOOST_TEST(!gate.may_read()); // 1, 0, 0, 0: spread within one, but three unheld
  gate.assigned(m[0], 0);       // lost
  gate.assigned(m[1], 1);
  gate.assigned(m[2], 1);
  BOOST_TEST(!gate.may_read());
  gate.assigned(m[0], 1);
  gate.assigned(m[3], 1);
  BOOST_TEST(gate.may_read());
  gate.assigned(m[3], 0); // a later rebalance does not close it again
  BOOST_TEST(gate.may_read());
}

BOOST_AUTO_TEST_CASE(more_members_than_partitions_settle_with_some_empty) {
  JoinGate gate{2};
  auto a = gate.enroll(), b = gate.enroll(), c = gate.enroll();
  gate.assigned(a, 2);
  gate.assigned(b, 0);
  gate.assigned(c, 0);
  BOOST_TEST(!gate.may_read());
  gate.assigned(a, 1);
  gate.assigned(c, 1);
  BOOST_TEST(gate.may_read());
}

BOOST_AUTO_TEST_CASE(a_member_that_leaves_is_not_waited_for) {
  JoinGate gate{2};
  auto a = gate.enroll(), b = gate.enroll();
  gate.assigned(a, 2);
  BOOST_TEST(!gate.may_read());
  gate.leave(b);
  BOOST_TEST(gate.may_read());
  gate.assigned(b, 1); // after leaving: ignored
}

BOOST_AUTO_TEST_CASE(unknown_partition_count_settles_on_the_spread_alone) {
  JoinGate gate; // a topic regex
  auto a = gate.enroll(), b = gate.enroll();
  gate.assigned(a, 3);
  gate.assigned(b, 0);
  BOOST_TEST(!gate.may_read());
  gate.assigned(a, 2);
  gate.assigned(b, 1);
  BOOST_TEST(gate.may_read());
}

BOOST_AUTO_TEST_CASE(patience_ends_the_wait) {
  JoinGate gate{4, 0s, 0s};
  gate.enroll(); // never assigned
  BOOST_TEST(gate.may_join());
  BOOST_TEST(gate.may_read());
}

BOOST_AUTO_TEST_SUITE_END()
