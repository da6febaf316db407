#include "runtime/kafka/admin.hpp"
#include "runtime/kafka/client_config.hpp"
#include "runtime/kafka/consumer.hpp"
#include "runtime/kafka/embedded_cluster.hpp"
#include "runtime/kafka/producer.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace weir::runtime::kafka;

namespace {

// True when `e`'s message contains `needle`, so a failure prints the message.
bool mentions(const KafkaError& e, const std::string& needle) {
  BOOST_TEST_MESSAGE(e.what());
  return std::string(e.what()).find(needle) != std::string::npos;
}

} // namespace

BOOST_AUTO_TEST_SUITE(kafka_client_config)

BOOST_AUTO_TEST_CASE(unknown_property_names_the_key) {
  try {
    make_conf({{"bootstrap.servers", "127.0.0.1:1"}, {"linger.mss", "5"}});
    BOOST_FAIL("expected KafkaError");
  } catch (const KafkaError& e) {
    BOOST_TEST(mentions(e, "linger.mss"));
  }
}

BOOST_AUTO_TEST_CASE(invalid_value_names_the_key) {
  try {
    make_conf({{"linger.ms", "soon"}});
    BOOST_FAIL("expected KafkaError");
  } catch (const KafkaError& e) {
    BOOST_TEST(mentions(e, "linger.ms"));
  }
}

BOOST_AUTO_TEST_CASE(clients_reject_bad_properties_before_connecting) {
  Properties bad{{"bootstrap.servers", "embedded"}, {"group.id", "g"}, {"fetch.wait.maxx.ms", "1"}};
  BOOST_CHECK_EXCEPTION(Consumer{bad}, KafkaError,
                        [](const KafkaError& e) { return mentions(e, "fetch.wait.maxx.ms"); });
  BOOST_CHECK_EXCEPTION((Producer{{{"bootstrap.servers", "embedded"}, {"acks", "some"}}, {}}),
                        KafkaError, [](const KafkaError& e) { return mentions(e, "acks"); });
}

BOOST_AUTO_TEST_CASE(consumer_requires_group_and_owns_commits) {
  BOOST_CHECK_EXCEPTION(Consumer(Properties{{"bootstrap.servers", "embedded"}}), KafkaError,
                        [](const KafkaError& e) { return mentions(e, "group.id"); });
  BOOST_CHECK_EXCEPTION(
    Consumer(Properties{
      {"bootstrap.servers", "embedded"}, {"group.id", "g"}, {"enable.auto.commit", "true"}}),
    KafkaError, [](const KafkaError& e) { return mentions(e, "enable.auto.commit"); });
  BOOST_CHECK_EXCEPTION(Consumer(Properties{{"group.id", "g"}}), KafkaError,
                        [](const KafkaError& e) { return mentions(e, "bootstrap.servers"); });
}

BOOST_AUTO_TEST_CASE(embedded_bootstrap_resolves_to_the_mock_cluster) {
  auto props = resolve_bootstrap({{"bootstrap.servers", "embedded"}, {"client.id", "x"}});
  const auto& address = EmbeddedCluster::instance().bootstrap();
  BOOST_TEST(!address.empty());
  BOOST_TEST(props.at("bootstrap.servers") == address);
  BOOST_TEST(props.at("client.id") == "x");
  BOOST_TEST(EmbeddedCluster::is_embedded("embedded"));
  BOOST_TEST(EmbeddedCluster::is_embedded(address));
  BOOST_TEST(!EmbeddedCluster::is_embedded("localhost:9092"));
  // Other bootstrap values pass through untouched.
  BOOST_TEST(resolve_bootstrap({{"bootstrap.servers", "h:1"}}).at("bootstrap.servers") == "h:1");
}

BOOST_AUTO_TEST_CASE(admin_creates_topics_and_counts_partitions) {
  Properties props{{"bootstrap.servers", "embedded"}};
  create_topics(props, {{"admin-test-a", 3}, {"admin-test-b", 5}});
  create_topics(props, {{"admin-test-a", 3}}); // already there: not an error
  BOOST_TEST(partition_count(props, "admin-test-a").value_or(-1) == 3);
  BOOST_TEST(partition_count(props, "admin-test-b").value_or(-1) == 5);
  BOOST_TEST(!partition_count(props, "admin-test-missing").has_value());

  EmbeddedCluster::set_default_partitions(2);
  BOOST_TEST(EmbeddedCluster::instance().create_topic("admin-test-default"));
  BOOST_TEST(!EmbeddedCluster::instance().create_topic("admin-test-default"));
  BOOST_TEST(partition_count(props, "admin-test-default").value_or(-1) == 2);
  EmbeddedCluster::set_default_partitions(4);
}

BOOST_AUTO_TEST_CASE(a_partition_counter_answers_as_partition_count_and_follows_new_props) {
  Properties props{{"bootstrap.servers", "embedded"}};
  create_topics(props, {{"counter-test-a", 3}, {"counter-test-b", 6}});
  PartitionCounter counter;
  BOOST_TEST(counter.count(props, "counter-test-a").value_or(-1) == 3);
  BOOST_TEST(counter.count(props, "counter-test-b").value_or(-1) == 6);
  BOOST_TEST(!counter.count(props, "counter-test-missing").has_value());
  // Other client properties: a client made with them (a bad one says so).
  auto bad = props;
  bad["security.protocol"] = "carrier-pigeon";
  BOOST_CHECK_EXCEPTION(counter.count(bad, "counter-test-a"), KafkaError, [](const KafkaError& e) {
    return std::string{e.what()}.find("security.protocol") != std::string::npos;
  });
  BOOST_TEST(counter.count(props, "counter-test-a").value_or(-1) == 3);
}

BOOST_AUTO_TEST_SUITE_END()
