#include "transforms/insert_field.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

const std::string value_type = "org.apache.kafka.connect.transforms.InsertField$Value";

// A struct schema with a required int64 id and an optional string with a default.
const std::string schema_in =
    R"({"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"},)"
    R"({"type":"string","optional":true,"default":"n/a","field":"note"}],"optional":false,"name":"V"})";

} // namespace

BOOST_AUTO_TEST_SUITE(insert_field)

BOOST_AUTO_TEST_CASE(schemaless) {
  std::vector<Case> cases{
      {"all metadata",
       {{"topic.field", "t"}, {"partition.field", "p"}, {"offset.field", "o"}, {"timestamp.field", "ts"},
        {"static.field", "s"}, {"static.value", "v"}},
       R"({"id":1})",
       R"({"id":1,"t":"orders","p":1,"o":42,"ts":1700000000000,"s":"v"})"},
      {"suffixes are stripped", {{"topic.field", "t!"}, {"partition.field", "p?"}}, R"({"id":1})",
       R"({"id":1,"t":"orders","p":1})"},
      {"existing field is replaced in place", {{"topic.field", "id"}}, R"({"id":1,"x":2})",
       R"({"id":"orders","x":2})"},
      {"one name for two fields: the later put wins", {{"topic.field", "m"}, {"offset.field", "m"}}, R"({"id":1})",
       R"({"id":1,"m":42})"},
      {"some replaced, some added", {{"topic.field", "t"}, {"offset.field", "id"}, {"timestamp.field", "x"}},
       R"({"x":0,"id":1})", R"({"x":1700000000000,"id":42,"t":"orders"})"},
      {"tombstone passes through", {{"topic.field", "t"}}, std::nullopt, "null"},
      {"json null passes through", {{"topic.field", "t"}}, "null", "null"},
      {"not a map is an error", {{"topic.field", "t"}}, R"([1,2])",
       "error: Only Map objects supported in absence of schema for [field insertion], found: java.util.ArrayList"},
      {"a string is an error", {{"topic.field", "t"}}, R"("s")", "error: found: java.lang.String"},
      {"nested values are kept", {{"static.field", "s"}, {"static.value", "x"}}, R"({"a":{"b":[1,{"c":null}]}})",
       R"({"a":{"b":[1,{"c":null}]},"s":"x"})"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto o = run_smt(value_type, c.config, Record{.value = c.value}, false);
      BOOST_TEST(matches(o.summary(), c.expected), o.summary() << " != " << c.expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(with_schema) {
  const std::string out_optional =
      R"({"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"},)"
      R"({"type":"string","optional":true,"default":"n/a","field":"note"},)"
      R"({"type":"string","optional":true,"field":"t"},)"
      R"({"type":"int32","optional":true,"field":"p"},)"
      R"({"type":"int64","optional":true,"field":"o"},)"
      R"({"type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},)"
      R"({"type":"string","optional":false,"field":"s"}],"optional":false,"name":"V"})";
  std::vector<Case> cases{
      {"all metadata, static required",
       {{"topic.field", "t"}, {"partition.field", "p"}, {"offset.field", "o"}, {"timestamp.field", "ts"},
        {"static.field", "s!"}, {"static.value", "v"}},
       envelope(schema_in, R"({"id":1,"note":"x"})"),
       envelope(out_optional, R"({"id":1,"note":"x","t":"orders","p":1,"o":42,"ts":1700000000000,"s":"v"})")},
      {"null field takes its default", {{"topic.field", "t"}}, envelope(schema_in, R"({"id":1,"note":null})"),
       R"({"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"},)"
       R"({"type":"string","optional":true,"default":"n/a","field":"note"},)"
       R"({"type":"string","optional":true,"field":"t"}],"optional":false,"name":"V"},)"
       R"("payload":{"id":1,"note":"n/a","t":"orders"}})"},
      {"duplicate field name is a record error", {{"topic.field", "id"}}, envelope(schema_in, R"({"id":1})"),
       "error: Cannot create field because of field name duplication id"},
      {"schema'd non-struct is an error", {{"topic.field", "t"}}, envelope(R"({"type":"int32","optional":false})", "5"),
       "error: Only Struct objects supported for [field insertion], found: java.lang.Integer"},
      {"schema'd null passes through", {{"topic.field", "t"}},
       envelope(R"({"type":"struct","fields":[],"optional":true})", "null"),
       R"({"schema":{"type":"struct","fields":[],"optional":true},"payload":null})"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto o = run_smt(value_type, c.config, Record{.value = c.value}, true);
      BOOST_TEST(matches(o.summary(), c.expected), o.summary() << " != " << c.expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(key_variant_and_replace_null_with_default_off) {
  Record r{.value = R"({"schema":null,"payload":{"v":1}})", .key = envelope(schema_in, R"({"id":7,"note":null})")};
  auto o = run_smt("InsertField$Key", {{"partition.field", "p"}, {"replace.null.with.default", "false"}}, r, true);
  BOOST_TEST(o.error == "");
  // The payload keeps the null; the JsonConverter would serialize the default for
  // it only if its own replace.null.with.default is on (it is by default).
  BOOST_TEST(o.key.find(R"("payload":{"id":7,"note":"n/a","p":1})") != std::string::npos, o.key);
  BOOST_TEST(o.value == R"({"schema":null,"payload":{"v":1}})");
}

BOOST_AUTO_TEST_CASE(record_without_offset_is_not_a_sink_record) {
  Record r{.value = R"({"a":1})", .offset = -1};
  auto o = run_smt(value_type, {{"offset.field", "o"}}, r, false);
  BOOST_TEST(o.error.find("Only SinkRecord supported for [field insertion]") != std::string::npos, o.error);
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_key) {
  auto fails_with_key = [](std::map<std::string, std::string> own, std::string key) {
    try {
      run_smt(value_type, own, Record{.value = "{}"}, false);
    } catch (const weir::ConfigError& e) {
      BOOST_TEST(e.key() == key, e.what());
      return;
    }
    BOOST_ERROR("no ConfigError for key " << key);
  };
  fails_with_key({}, "transforms.t");                          // nothing to insert
  fails_with_key({{"static.field", "s"}}, "transforms.t.static.value");
  fails_with_key({{"topic.field", "t"}, {"topic.feild", "x"}}, "transforms.t.topic.feild");
  fails_with_key({{"topic.field", "t"}, {"replace.null.with.default", "maybe"}},
                 "transforms.t.replace.null.with.default");
}

BOOST_AUTO_TEST_SUITE_END()
