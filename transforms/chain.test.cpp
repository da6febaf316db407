#include "transforms/chain.hpp"

#include <boost/test/unit_test.hpp>

#include "transforms/transform_registry.hpp"
#include "tests/support/smt_runner.hpp"

using namespace weir;
using namespace weir::transforms;
using namespace weir::transforms::testing;
using namespace weir::runtime::data;

namespace {

std::string error_key(const std::map<std::string, std::string>& config) {
  try {
    Chain::from_config(config);
  } catch (const ConfigError& e) {
    return e.key();
  }
  return "<no error>";
}

} // namespace

BOOST_AUTO_TEST_SUITE(chain)

BOOST_AUTO_TEST_CASE(names_resolve_full_and_short) {
  BOOST_TEST(find_transformation("org.apache.kafka.connect.transforms.InsertField$Value")->class_name
             == "org.apache.kafka.connect.transforms.InsertField$Value");
  BOOST_TEST((find_transformation("InsertField$Key")->side == Side::Key));
  BOOST_TEST(!find_transformation("InsertField"));        // abstract in Kafka
  BOOST_TEST(!find_transformation("InsertField$Other"));
  BOOST_TEST(!find_transformation("com.example.InsertField$Value"));
}

BOOST_AUTO_TEST_CASE(stages_are_exposed_in_order) {
  auto c = Chain::from_config({{"transforms", "a, b"},
                               {"transforms.a.type", "InsertField$Value"},
                               {"transforms.a.topic.field", "t"},
                               {"transforms.b.type", "org.apache.kafka.connect.transforms.InsertField$Key"},
                               {"transforms.b.static.field", "s"},
                               {"transforms.b.static.value", "v"},
                               {"transforms.unlisted.type", "Nope"}, // ignored, as in Kafka
                               {"connector.class", "whatever"}});
  BOOST_TEST(c.size() == 2u);
  BOOST_TEST(c.name(0) == "a");
  BOOST_TEST(c.name(1) == "b");
  BOOST_TEST(c.class_name(1) == "org.apache.kafka.connect.transforms.InsertField$Key");
  BOOST_TEST(c.stage(0)->alias() == "a");
  BOOST_TEST(Chain::from_config({}).empty());
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_exact_key) {
  BOOST_TEST(error_key({{"transforms", "a"}}) == "transforms.a.type");
  BOOST_TEST(error_key({{"transforms", "a"}, {"transforms.a.type", "NoSuch$Value"}}) == "transforms.a.type");
  BOOST_TEST(error_key({{"transforms", "a,a"}, {"transforms.a.type", "InsertField$Value"}}) == "transforms");
  BOOST_TEST(error_key({{"transforms", "a"},
                        {"transforms.a.type", "InsertField$Value"},
                        {"transforms.a.topic.field", "t"},
                        {"transforms.a.predicate", "p"}})
             == "transforms.a.predicate");
  BOOST_TEST(error_key({{"predicates", "p"}}) == "predicates.p.type");
  BOOST_TEST(error_key({{"predicates", "p"}, {"predicates.p.type", "Nope"}}) == "predicates.p.type");
}

BOOST_AUTO_TEST_CASE(a_failing_record_does_not_abort_the_batch) {
  auto chain = Chain::from_config(
      {{"transforms", "a"}, {"transforms.a.type", "InsertField$Value"}, {"transforms.a.topic.field", "t"}});
  auto codec = runtime::convert::RecordCodec(
      runtime::convert::make_converter("JsonConverter", {{"schemas.enable", "false"}}, true),
      runtime::convert::make_converter("JsonConverter", {{"schemas.enable", "false"}}, false));
  Batch raw;
  raw.append("x", 0, 1, 1, std::nullopt, std::string_view(R"({"a":1})"));
  raw.append("x", 0, 2, 1, std::nullopt, std::string_view(R"([1])"));
  raw.append("x", 0, 3, 1, std::nullopt, std::string_view(R"({"a":3})"));
  auto batch = codec.decode(std::move(raw));
  RecordErrors errors;
  chain.apply(0, batch, errors);
  BOOST_TEST(batch[0].live());
  BOOST_TEST((batch[1].state == RecordState::Failed));
  BOOST_TEST(batch[2].live());
  BOOST_REQUIRE(errors.size() == 1u);
  BOOST_TEST(errors.all()[0].index == 1u);
  BOOST_TEST(to_string(errors.all()[0].stage) == "TRANSFORMATION");
  BOOST_TEST(errors.all()[0].class_name == "org.apache.kafka.connect.transforms.InsertField$Value");
  BOOST_TEST(batch[2].value.find("t")->as_string() == "x");
}

// A stage loops over the batch inside the SMT (apply_from): a record that throws is
// marked wherever it is (first, middle, last) and the loop resumes after it; records
// that are no longer Live are skipped; a drop marks the record Dropped, also through
// the default apply_from of an SMT that does not override it (Filter).
BOOST_AUTO_TEST_CASE(batch_loop_marks_each_failure_and_drop) {
  auto chain = Chain::from_config({{"transforms", "cast,drop"},
                                   {"transforms.cast.type", "Cast$Value"},
                                   {"transforms.cast.spec", "n:int32"},
                                   {"transforms.drop.type", "Filter"}});
  auto codec = runtime::convert::RecordCodec(
      runtime::convert::make_converter("JsonConverter", {{"schemas.enable", "false"}}, true),
      runtime::convert::make_converter("JsonConverter", {{"schemas.enable", "false"}}, false));
  Batch raw;
  for (const char* v : {R"({"n":"x"})", R"({"n":"5"})", R"([1])", R"({"n":"7"})", R"({"n":"y"})"})
    raw.append("x", 0, 1, 1, std::nullopt, std::string_view(v));
  auto batch = codec.decode(std::move(raw));
  RecordErrors errors;
  chain.apply(0, batch, errors);
  std::vector<uint32_t> failed;
  for (const auto& e : errors.all())
    failed.push_back(e.index);
  BOOST_TEST(failed == (std::vector<uint32_t>{0, 2, 4}), boost::test_tools::per_element());
  for (uint32_t i : {0u, 2u, 4u})
    BOOST_TEST((batch[i].state == RecordState::Failed));
  BOOST_TEST(batch[1].value.find("n")->as_int() == 5);
  BOOST_TEST((batch[1].value.find("n")->kind() == Kind::Int32));
  BOOST_TEST(batch[3].value.find("n")->as_int() == 7);
  chain.apply(1, batch, errors);
  BOOST_TEST(errors.size() == 3u);
  for (uint32_t i : {0u, 2u, 4u})
    BOOST_TEST((batch[i].state == RecordState::Failed));
  for (uint32_t i : {1u, 3u})
    BOOST_TEST((batch[i].state == RecordState::Dropped));
}

BOOST_AUTO_TEST_SUITE_END()
