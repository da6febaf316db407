#include "engine/pipeline/topic_creation.hpp"

#include <boost/test/unit_test.hpp>

#include "weir/config.hpp"

using weir::ConfigError;
using weir::engine::pipeline::TopicCreation;

namespace {

std::string error_key(const std::map<std::string, std::string>& c) {
  try {
    TopicCreation::parse(c, true);
  } catch (const ConfigError& e) {
    return e.key() + ": " + e.what();
  }
  return "<none>";
}

} // namespace

BOOST_AUTO_TEST_SUITE(topic_creation)

BOOST_AUTO_TEST_CASE(off_unless_configured_and_enabled) {
  BOOST_TEST(!TopicCreation::parse({{"name", "c"}}, true).has_value());
  std::map<std::string, std::string> c{{"topic.creation.default.partitions", "3"},
                                       {"topic.creation.default.replication.factor", "1"}};
  BOOST_TEST(!TopicCreation::parse(c, false).has_value(), "topic.creation.enable=false on the worker");
  BOOST_TEST(TopicCreation::parse(c, true).has_value());
}

BOOST_AUTO_TEST_CASE(groups_pick_their_topics_in_order_and_the_default_takes_the_rest) {
  auto creation = TopicCreation::parse({{"topic.creation.groups", "compacted, big"},
                                        {"topic.creation.default.partitions", "3"},
                                        {"topic.creation.default.replication.factor", "-1"},
                                        {"topic.creation.default.compression.type", "lz4"},
                                        {"topic.creation.compacted.include", "status-.*, config-(?!old).*"},
                                        {"topic.creation.compacted.exclude", "status-tmp"},
                                        {"topic.creation.compacted.cleanup.policy", "compact"},
                                        {"topic.creation.big.include", ".*"},
                                        {"topic.creation.big.partitions", "12"}},
                                       true);
  BOOST_REQUIRE(creation.has_value());
  auto compacted = creation->new_topic("status-a");
  BOOST_TEST(compacted.partitions == 3, "the default group's count when the group has none");
  BOOST_TEST(compacted.replication == -1);
  BOOST_TEST(compacted.configs.size() == 1u);
  BOOST_TEST(compacted.configs.at("cleanup.policy") == "compact");
  BOOST_TEST(creation->new_topic("config-new").configs.count("cleanup.policy") == 1u);
  auto excluded = creation->new_topic("status-tmp"); // excluded there: the next group takes it
  BOOST_TEST(excluded.partitions == 12);
  BOOST_TEST(excluded.configs.empty());
  BOOST_TEST(creation->new_topic("config-old").partitions == 12, "a lookahead, as Java reads it");

  auto only_default = TopicCreation::parse({{"topic.creation.default.partitions", "5"},
                                            {"topic.creation.default.replication.factor", "1"},
                                            {"topic.creation.default.retention.ms", "1000"}},
                                           true);
  auto t = only_default->new_topic("anything");
  BOOST_TEST(t.name == "anything");
  BOOST_TEST(t.partitions == 5);
  BOOST_TEST(t.replication == 1);
  BOOST_TEST(t.configs.at("retention.ms") == "1000");
}

BOOST_AUTO_TEST_CASE(mistakes_name_their_key) {
  BOOST_TEST(error_key({{"topic.creation.default.partitions", "3"}}) ==
             "topic.creation.default.replication.factor: Missing required configuration "
             "\"topic.creation.default.replication.factor\" which has no default value.");
  BOOST_TEST(error_key({{"topic.creation.default.partitions", "0"}, {"topic.creation.default.replication.factor", "1"}})
                 .starts_with("topic.creation.default.partitions: Invalid value 0"));
  BOOST_TEST(error_key({{"topic.creation.default.partitions", "x"}, {"topic.creation.default.replication.factor", "1"}})
                 .starts_with("topic.creation.default.partitions: Invalid value x"));
  BOOST_TEST(error_key({{"topic.creation.default.partitions", "1"}, {"topic.creation.default.replication.factor", "-2"}})
                 .starts_with("topic.creation.default.replication.factor: Invalid value -2"));
  BOOST_TEST(error_key({{"topic.creation.default.partitions", "1"},
                        {"topic.creation.default.replication.factor", "1"},
                        {"topic.creation.groups", "g"},
                        {"topic.creation.g.include", "("}})
                 .starts_with("topic.creation.g.include: Invalid value ( for configuration"));
  BOOST_TEST(error_key({{"topic.creation.default.partitions", "1"},
                        {"topic.creation.default.replication.factor", "1"},
                        {"topic.creation.h.include", "x"}})
                 .starts_with("topic.creation.h.include: Configuration topic.creation.h.include names the topic "
                              "creation group 'h'"));
}

BOOST_AUTO_TEST_SUITE_END()
