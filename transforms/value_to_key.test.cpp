#include "transforms/value_to_key.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

BOOST_AUTO_TEST_SUITE(value_to_key)

BOOST_AUTO_TEST_CASE(schemaless) {
  struct Row {
    const char* name;
    std::string fields;
    std::optional<std::string> value;
    std::string key; ///< expected key, or "error: ..."
  };
  for (const auto& r : std::vector<Row>{
           {"two fields", "id,region", R"({"id":1,"region":"eu","x":true})", R"({"id":1,"region":"eu"})"},
           {"nested value copied", "o", R"({"o":{"a":[1]}})", R"({"o":{"a":[1]}})"},
           {"missing field is null", "id,nope", R"({"id":1})", R"({"id":1,"nope":null})"},
           {"tombstone is an error", "id", std::nullopt,
            "error: Only Map objects supported in absence of schema for [copying fields from value to key], found: null"},
       }) {
    BOOST_TEST_CONTEXT(r.name) {
      auto o = run_smt("ValueToKey", {{"fields", r.fields}}, Record{.value = r.value, .key = R"("old")"}, false);
      std::string got = o.error.empty() ? o.key : "error: " + o.error;
      BOOST_TEST(matches(got, r.key), got);
      if (o.error.empty())
        BOOST_TEST(o.value == *r.value); // the value is untouched
    }
  }
}

BOOST_AUTO_TEST_CASE(with_schema) {
  const std::string s =
      R"({"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"},)"
      R"({"type":"string","optional":true,"default":"eu","field":"region"}],"optional":false,"name":"V"})";
  auto o = run_smt("org.apache.kafka.connect.transforms.ValueToKey", {{"fields", "region,id"}},
                   Record{.value = envelope(s, R"({"id":1,"region":null})")}, true);
  BOOST_TEST(o.error == "");
  BOOST_TEST(o.key
             == envelope(R"({"type":"struct","fields":[{"type":"string","optional":true,"default":"eu","field":"region"},)"
                         R"({"type":"int64","optional":false,"field":"id"}],"optional":false})",
                         R"({"region":"eu","id":1})"),
             o.key);
  auto missing = run_smt("ValueToKey", {{"fields", "nope"}}, Record{.value = envelope(s, R"({"id":1})")}, true);
  BOOST_TEST(missing.error == "Field does not exist: nope");
  BOOST_CHECK_THROW(run_smt("ValueToKey$Value", {{"fields", "id"}}, Record{.value = "{}"}, false), weir::ConfigError);
  BOOST_CHECK_THROW(run_smt("ValueToKey", {}, Record{.value = "{}"}, false), weir::ConfigError);
}

BOOST_AUTO_TEST_CASE(nested_paths_with_field_syntax_v2) {
  auto schemaless = [](const std::string& fields, const std::string& version) {
    return run_smt("ValueToKey", {{"fields", fields}, {"field.syntax.version", version}},
                   Record{.value = R"({"a":{"b":1,"c.d":2},"a.b":3,"e":4})"}, false)
        .key;
  };
  BOOST_TEST(schemaless("a.b,e", "V2") == R"({"a.b":1,"e":4})");
  BOOST_TEST(schemaless("a.`c.d`", "V2") == R"({"a.`c.d`":2})");
  BOOST_TEST(schemaless("`a.b`", "V2") == R"({"`a.b`":3})");
  BOOST_TEST(schemaless("a.b", "V1") == R"({"a.b":3})", "V1 takes the dots literally");
  BOOST_TEST(schemaless("a.x", "V2") == R"({"a.x":null})");

  const std::string s = R"({"type":"struct","optional":false,"fields":[)"
                        R"({"type":"struct","optional":false,"field":"a","fields":[)"
                        R"({"type":"int32","optional":false,"field":"b"}]},)"
                        R"({"type":"string","optional":false,"field":"e"}]})";
  auto o = run_smt("ValueToKey", {{"fields", "a.b,e"}, {"field.syntax.version", "V2"}},
                   Record{.value = envelope(s, R"({"a":{"b":7},"e":"x"})")}, true);
  BOOST_TEST(o.error == "");
  BOOST_TEST(o.key == envelope(R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"a.b"},)"
                               R"({"type":"string","optional":false,"field":"e"}],"optional":false})",
                               R"({"a.b":7,"e":"x"})"));
  auto missing = run_smt("ValueToKey", {{"fields", "a.z"}, {"field.syntax.version", "V2"}},
                         Record{.value = envelope(s, R"({"a":{"b":7},"e":"x"})")}, true);
  BOOST_TEST(missing.error == "Field does not exist: a.z");
}

BOOST_AUTO_TEST_SUITE_END()
