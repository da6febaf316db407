// Filter and the three predicates (TopicNameMatches, HasHeaderKey, RecordIsTombstone),
// through the chain's predicate / negate wiring.
#include <boost/test/unit_test.hpp>

#include "transforms/has_header_key.hpp"
#include "transforms/record_is_tombstone.hpp"
#include "tests/support/smt_runner.hpp"
#include "transforms/topic_name_matches.hpp"

using namespace weir::transforms::testing;

namespace {

std::map<std::string, std::string> filter_when(std::string predicate_type,
                                               std::map<std::string, std::string> predicate_config,
                                               bool negate = false) {
  std::map<std::string, std::string> c{{"transforms", "drop"},
                                       {"transforms.drop.type", "org.apache.kafka.connect.transforms.Filter"},
                                       {"transforms.drop.predicate", "p"},
                                       {"predicates", "p"},
                                       {"predicates.p.type", std::move(predicate_type)}};
  if (negate)
    c["transforms.drop.negate"] = "true";
  for (auto& [k, v] : predicate_config)
    c["predicates.p." + k] = v;
  return c;
}

} // namespace

BOOST_AUTO_TEST_SUITE(predicates)

BOOST_AUTO_TEST_CASE(filter_without_predicate_drops_everything) {
  auto o = run_smt("Filter", {}, Record{.value = "{}"}, false);
  BOOST_TEST(o.dropped);
}

BOOST_AUTO_TEST_CASE(topic_name_matches) {
  struct Row {
    std::string pattern, topic;
    bool matches;
  };
  for (const auto& r : std::vector<Row>{
           {"orders", "orders", true},
           {"orders", "orders-eu", false}, // full match, not find
           {"orders.*", "orders-eu", true},
           {"(?i)ORDERS", "orders", true},
           {"a|b", "b", true},
           {"[a-c]+-\\d{2}", "abc-42", true},
           {"[a-c]+-\\d{2}", "abc-4", false},
           {"(?<!test-).*-orders", "eu-orders", true},
           {"(?<!test-)orders", "test-orders", false},
           {"\\p{Alpha}+", "orders", true},
           {"\\Qorders.eu\\E", "orders-eu", false},
           {"a|ab", "ab", true}, // matches() backtracks into the longer branch
       }) {
    BOOST_TEST_CONTEXT(r.pattern << " ~ " << r.topic) {
      auto config = filter_when("org.apache.kafka.connect.transforms.predicates.TopicNameMatches", {{"pattern", r.pattern}});
      BOOST_TEST(run_chain(config, Record{.value = "{}", .topic = r.topic}, false).dropped == r.matches);
      auto negated = filter_when("TopicNameMatches", {{"pattern", r.pattern}}, true);
      BOOST_TEST(run_chain(negated, Record{.value = "{}", .topic = r.topic}, false).dropped == !r.matches);
    }
  }
}

BOOST_AUTO_TEST_CASE(topic_name_matches_config_errors) {
  for (const char* bad : {"", "(", "[a&&b]", "\\p{InGreek}", "(?U)x"}) {
    try {
      weir::transforms::Chain::from_config(filter_when("TopicNameMatches", {{"pattern", bad}}));
      BOOST_ERROR("accepted " << bad);
    } catch (const weir::ConfigError& e) {
      BOOST_TEST(e.key() == "predicates.p.pattern", bad << ": " << e.what());
    }
  }
  try {
    weir::transforms::Chain::from_config(filter_when("TopicNameMatches", {}));
    BOOST_ERROR("accepted a missing pattern");
  } catch (const weir::ConfigError& e) {
    BOOST_TEST(e.key() == "predicates.p.pattern");
  }
}

BOOST_AUTO_TEST_CASE(has_header_key) {
  auto config = filter_when("HasHeaderKey", {{"name", "skip"}});
  BOOST_TEST(run_chain(config, Record{.value = "{}", .headers = {{"skip", std::nullopt}}}, false).dropped);
  BOOST_TEST(run_chain(config, Record{.value = "{}", .headers = {{"a", "1"}, {"skip", "x"}}}, false).dropped);
  BOOST_TEST(!run_chain(config, Record{.value = "{}", .headers = {{"Skip", "x"}}}, false).dropped);
  BOOST_TEST(!run_chain(config, Record{.value = "{}"}, false).dropped);
  BOOST_CHECK_THROW(weir::transforms::Chain::from_config(filter_when("HasHeaderKey", {{"name", ""}})),
                    weir::ConfigError);
}

BOOST_AUTO_TEST_CASE(record_is_tombstone) {
  auto config = filter_when("RecordIsTombstone", {});
  BOOST_TEST(run_chain(config, Record{.value = std::nullopt}, false).dropped);
  BOOST_TEST(run_chain(config, Record{.value = "null"}, false).dropped); // JSON null decodes to null
  BOOST_TEST(!run_chain(config, Record{.value = "{}"}, false).dropped);
  BOOST_TEST(!run_chain(filter_when("RecordIsTombstone", {}, true), Record{.value = std::nullopt}, false).dropped);
  BOOST_CHECK_THROW(weir::transforms::Chain::from_config(filter_when("RecordIsTombstone", {{"x", "1"}})),
                    weir::ConfigError);
}

BOOST_AUTO_TEST_CASE(predicate_gates_other_smts) {
  std::map<std::string, std::string> c{{"transforms", "ins"},
                                       {"transforms.ins.type", "InsertField$Value"},
                                       {"transforms.ins.static.field", "tag"},
                                       {"transforms.ins.static.value", "eu"},
                                       {"transforms.ins.predicate", "isEu"},
                                       {"predicates", "isEu"},
                                       {"predicates.isEu.type", "TopicNameMatches"},
                                       {"predicates.isEu.pattern", ".*-eu"}};
  BOOST_TEST(run_chain(c, Record{.value = R"({"a":1})", .topic = "o-eu"}, false).value == R"({"a":1,"tag":"eu"})");
  BOOST_TEST(run_chain(c, Record{.value = R"({"a":1})", .topic = "o-us"}, false).value == R"({"a":1})");
  c["transforms.ins.negate"] = "yes";
  BOOST_CHECK_EXCEPTION(weir::transforms::Chain::from_config(c), weir::ConfigError,
                        [](const weir::ConfigError& e) { return e.key() == "transforms.ins.negate"; });
}

BOOST_AUTO_TEST_SUITE_END()
