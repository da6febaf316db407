#include "runtime/kafka/broker_watch.hpp"

#include <boost/test/unit_test.hpp>

using weir::runtime::kafka::BrokerWatch;

BOOST_AUTO_TEST_SUITE(broker_watch)

BOOST_AUTO_TEST_CASE(a_lost_connection_starts_the_wait_and_an_answer_ends_it) {
  BrokerWatch watch;
  BOOST_TEST(watch.describe().empty());
  BOOST_TEST(!watch.on_error(RD_KAFKA_RESP_ERR__FATAL)); // not about reaching the broker
  BOOST_TEST(!watch.down_since());
  BOOST_TEST(watch.on_error(RD_KAFKA_RESP_ERR__TRANSPORT));
  auto since = watch.down_since();
  BOOST_REQUIRE(since.has_value());
  BOOST_TEST(watch.on_error(RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN));
  BOOST_TEST((watch.down_since() == since)); // the wait began at the first error
  auto text = watch.describe();
  BOOST_TEST(text.starts_with("waiting for the broker since 20"), text);
  BOOST_TEST(text.ends_with("Z"), text);
  watch.answered();
  BOOST_TEST(!watch.down_since());
  BOOST_TEST(watch.describe().empty());
}

BOOST_AUTO_TEST_SUITE_END()
