#include <boost/test/unit_test.hpp>

#include "runtime/credit.hpp"

using weir::Credit;
using weir::runtime::CreditLedger;
using weir::runtime::CreditViolation;
using weir::runtime::CreditWindow;

BOOST_AUTO_TEST_SUITE(credit)

BOOST_AUTO_TEST_CASE(nothing_is_sendable_before_the_first_grant) {
  CreditWindow w;
  BOOST_TEST(!w.can_send(1));
  BOOST_TEST(w.sendable_bytes() == 0u);
  BOOST_CHECK_THROW(w.on_send(1), CreditViolation);
}

BOOST_AUTO_TEST_CASE(window_limits_batches_and_bytes) {
  CreditWindow w;
  w.grant({2, 1000});
  BOOST_TEST(w.can_send(600));
  w.on_send(600);
  BOOST_TEST(w.sendable_bytes() == 400u);
  BOOST_TEST(!w.can_send(500)); // bytes exhausted
  BOOST_TEST(w.can_send(400));
  w.on_send(400);
  BOOST_TEST(!w.can_send(1)); // batches exhausted
  BOOST_TEST(w.in_flight_batches() == 2u);
  BOOST_TEST(w.in_flight_bytes() == 1000u);
  w.grant({1, 600});
  BOOST_TEST(w.can_send(600));
  BOOST_TEST(!w.can_send(601));
  BOOST_TEST(w.max_in_flight_bytes() == 1000u);
}

BOOST_AUTO_TEST_CASE(oversized_batch_goes_alone) {
  CreditWindow w;
  w.grant({4, 100});
  BOOST_TEST(w.can_send(500)); // nothing in flight: admitted alone
  w.on_send(500);
  BOOST_TEST(!w.can_send(1));
  w.grant({1, 500});
  BOOST_TEST(w.can_send(100));
}

BOOST_AUTO_TEST_CASE(returning_unsent_credit_is_a_violation) {
  CreditWindow w;
  w.grant({1, 10});
  BOOST_CHECK_THROW(w.grant({1, 10}), CreditViolation);
}

BOOST_AUTO_TEST_CASE(ledger_detects_a_sender_that_ignores_credit) {
  CreditLedger l({1, 100});
  BOOST_TEST((l.initial_grant() == Credit{1, 100}));
  l.on_receive(80);
  BOOST_CHECK_THROW(l.on_receive(10), CreditViolation);
  BOOST_TEST((l.on_release(80) == Credit{1, 80}));
  BOOST_CHECK_THROW(l.on_release(80), CreditViolation);
}

BOOST_AUTO_TEST_CASE(window_and_ledger_agree_over_a_random_walk) {
  CreditWindow w;
  CreditLedger l({3, 1000});
  w.grant(l.initial_grant());
  std::vector<uint64_t> queue;
  uint64_t seed = 12345;
  for (int step = 0; step < 10000; ++step) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    uint64_t bytes = 1 + (seed >> 33) % 700;
    if ((seed >> 20) % 2 == 0 && w.can_send(bytes)) {
      w.on_send(bytes);
      l.on_receive(bytes);
      queue.push_back(bytes);
    } else if (!queue.empty()) {
      w.grant(l.on_release(queue.front()));
      queue.erase(queue.begin());
    }
    BOOST_REQUIRE(w.in_flight_batches() <= 3u);
    BOOST_REQUIRE(w.in_flight_batches() == l.held_batches());
    BOOST_REQUIRE(w.in_flight_bytes() == l.held_bytes());
  }
}

BOOST_AUTO_TEST_SUITE_END()
