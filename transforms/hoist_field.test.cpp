#include "transforms/hoist_field.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

void run_table(const std::string& type, const std::vector<Case>& cases, bool schemas) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto o = run_smt(type, c.config, Record{.value = c.value, .key = c.value}, schemas);
      BOOST_TEST(matches(o.summary(), c.expected), o.summary() << " != " << c.expected);
    }
  }
}

const std::map<std::string, std::string> magic{{"field", "magic"}};

} // namespace

BOOST_AUTO_TEST_SUITE(hoist_field)

BOOST_AUTO_TEST_CASE(schemaless) {
  run_table("HoistField$Value",
            {
                {"number", magic, "42", R"({"magic":42})"},
                {"map", magic, R"({"a":{"b":1}})", R"({"magic":{"a":{"b":1}}})"},
                {"array", magic, "[1,2]", R"({"magic":[1,2]})"},
                {"string", magic, R"("s")", R"({"magic":"s"})"},
                // No pass-through: Kafka hoists nulls and tombstones too.
                {"json null", magic, "null", R"({"magic":null})"},
                {"tombstone", magic, std::nullopt, R"({"magic":null})"},
                {"empty field name", {{"field", ""}}, "1", R"({"":1})"},
            },
            false);
}

BOOST_AUTO_TEST_CASE(with_schema) {
  const std::string int32 = R"({"type":"int32","optional":false})";
  const std::string opt_int32 = R"({"type":"int32","optional":true})";
  const std::string named = R"({"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"}],)"
                            R"("optional":true,"name":"Inner","version":2})";
  run_table("org.apache.kafka.connect.transforms.HoistField$Value",
            {
                {"primitive", magic, envelope(int32, "42"),
                 envelope(R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"magic"}],)"
                          R"("optional":false})",
                          R"({"magic":42})")},
                {"struct keeps its schema", magic, envelope(named, R"({"id":7})"),
                 envelope(R"({"type":"struct","fields":[{"type":"struct","fields":[{"type":"int64","optional":false,)"
                          R"("field":"id"}],"optional":true,"name":"Inner","version":2,"field":"magic"}],)"
                          R"("optional":false})",
                          R"({"magic":{"id":7}})")},
                {"optional null is wrapped", magic, envelope(opt_int32, "null"),
                 envelope(R"({"type":"struct","fields":[{"type":"int32","optional":true,"field":"magic"}],)"
                          R"("optional":false})",
                          R"({"magic":null})")},
                {"empty field name is a record error", {{"field", ""}}, envelope(int32, "1"),
                 "error: fieldName cannot be null."},
            },
            true);
}

BOOST_AUTO_TEST_CASE(key_variant) {
  Record r{.value = R"({"v":1})", .key = "7"};
  auto o = run_smt("HoistField$Key", magic, r, false);
  BOOST_TEST(o.error == "");
  BOOST_TEST(o.key == R"({"magic":7})");
  BOOST_TEST(o.value == R"({"v":1})");
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_key) {
  auto key_of = [](std::map<std::string, std::string> own) -> std::string {
    try {
      run_smt("HoistField$Value", own, Record{.value = "1"}, false);
    } catch (const weir::ConfigError& e) {
      return e.key();
    }
    return "<none>";
  };
  BOOST_TEST(key_of({}) == "transforms.t.field");
  BOOST_TEST(key_of({{"field", "a"}, {"feild", "b"}}) == "transforms.t.feild");
}

BOOST_AUTO_TEST_SUITE_END()
