#include "runtime/cluster/lease.hpp"

#include <boost/test/unit_test.hpp>

using namespace weir::runtime::cluster;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(lease)

BOOST_AUTO_TEST_CASE(a_node_silent_with_kafka_for_the_timeout_is_cut_off_until_it_answers) {
  KafkaReach reach{2s};
  auto t0 = KafkaReach::Clock::now();
  BOOST_TEST((reach.update(t0, t0 + 1s) == KafkaReach::Change::none));
  BOOST_TEST((reach.update(t0, t0 + 2s) == KafkaReach::Change::none), "exactly the timeout is not yet silence");
  BOOST_TEST((reach.update(t0, t0 + 2100ms) == KafkaReach::Change::lost));
  BOOST_TEST(reach.cut_off());
  BOOST_TEST(reach.silence().count() == 2100);
  BOOST_TEST((reach.update(t0, t0 + 5s) == KafkaReach::Change::none), "said once");
  BOOST_TEST((reach.update(t0 + 5s, t0 + 5s) == KafkaReach::Change::regained));
  BOOST_TEST(!reach.cut_off());
}

BOOST_AUTO_TEST_CASE(silence_during_a_freeze_is_not_the_brokers) {
  KafkaReach reach{2s};
  auto t0 = KafkaReach::Clock::now();
  reach.resumed(t0 + 15s); // frozen from t0 to t0 + 15 s: no probe could run
  BOOST_TEST((reach.update(t0, t0 + 15s + 500ms) == KafkaReach::Change::none));
  BOOST_TEST((reach.update(t0, t0 + 17s + 100ms) == KafkaReach::Change::lost), "silent after the freeze too");
}

BOOST_AUTO_TEST_CASE(another_leaders_lease_holds_while_its_record_moves) {
  LeaderLease lease{2s};
  auto t0 = LeaderLease::Clock::now();
  BOOST_TEST(!lease.held_by_another("me", t0), "no record: nobody leads");
  lease.observe(5, "other", t0);
  BOOST_TEST(lease.held_by_another("me", t0 + 1s));
  BOOST_TEST(!lease.held_by_another("other", t0 + 1s), "its own lease never stops the holder");
  lease.observe(5, "other", t0 + 1500ms); // the same record again: not a renewal
  BOOST_TEST(!lease.held_by_another("me", t0 + 2100ms), "lapsed");
  lease.observe(9, "other", t0 + 2200ms); // renewed
  BOOST_TEST(lease.held_by_another("me", t0 + 3s));
  BOOST_TEST(lease.holder() == "other");
  lease.observe(12, "me", t0 + 3s);
  BOOST_TEST(!lease.held_by_another("me", t0 + 3s));
}

BOOST_AUTO_TEST_SUITE_END()
