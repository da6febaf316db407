#include "transforms/extract_field.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

const std::string type = "org.apache.kafka.connect.transforms.ExtractField$Value";

void run_table(const std::vector<Case>& cases, bool schemas) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto o = run_smt(type, c.config, Record{.value = c.value}, schemas);
      BOOST_TEST(matches(o.summary(), c.expected), o.summary() << " != " << c.expected);
    }
  }
}

std::map<std::string, std::string> v2(std::string field) {
  return {{"field", std::move(field)}, {"field.syntax.version", "v2"}};
}

// magic: int32; nested: optional struct {foo: int32, `a.b`: string}; dflt: optional int32 default 42.
const std::string schema =
    R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"magic"},)"
    R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"foo"},)"
    R"({"type":"string","optional":true,"field":"a.b"}],"optional":true,"name":"N","field":"nested"},)"
    R"({"type":"int32","optional":true,"default":42,"field":"dflt"}],"optional":true,"name":"V"})";
const std::string int32 = R"({"type":"int32","optional":false})";
const std::string nested_schema = R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"foo"},)"
                                  R"({"type":"string","optional":true,"field":"a.b"}],"optional":true,"name":"N"})";

} // namespace

BOOST_AUTO_TEST_SUITE(extract_field)

BOOST_AUTO_TEST_CASE(schemaless) {
  run_table({
                {"top-level field", {{"field", "magic"}}, R"({"magic":42,"x":1})", "42"},
                {"struct-like value", {{"field", "m"}}, R"({"m":{"a":[1,2]}})", R"({"a":[1,2]})"},
                {"missing field is null", {{"field", "nonexistent"}}, R"({"magic":42})", "null"},
                {"null field", {{"field", "magic"}}, R"({"magic":null})", "null"},
                {"repeated key: the last value", {{"field", "magic"}}, R"({"magic":1,"x":2,"magic":{"a":3}})",
                 R"({"a":3})"},
                {"repeated nested key: the last value (V2)", v2("m.k"), R"({"m":{"k":1,"k":2}})", "2"},
                {"V1 takes dots literally", {{"field", "a.b"}}, R"({"a.b":1,"a":{"b":2}})", "1"},
                {"V2 nested", v2("magic.foo"), R"({"magic":{"foo":42}})", "42"},
                {"V2 backticks", v2("`a.b`.c"), R"({"a.b":{"c":"x"},"a":{"b":{"c":"y"}}})", R"("x")"},
                {"V2 missing nested is null", v2("magic.nonexistent"), R"({"magic":{"foo":42}})", "null"},
                {"V2 missing parent is null", v2("un.known"), R"({"magic":{"foo":42}})", "null"},
                {"V2 null parent is null", v2("magic.foo"), R"({"magic":null})", "null"},
                {"V2 non-map parent is an error", v2("magic.foo"), R"({"magic":5})",
                 "error: Only Map objects supported in absence of schema for [nested field access], found: "
                 "java.lang.Long"},
                {"tombstone passes through", {{"field", "magic"}}, std::nullopt, "null"},
                {"json null passes through", {{"field", "magic"}}, "null", "null"},
                {"not a map is an error", {{"field", "magic"}}, "[1]",
                 "error: Only Map objects supported in absence of schema for [field extraction], found: "
                 "java.util.ArrayList"},
            },
            false);
}

BOOST_AUTO_TEST_CASE(with_schema) {
  const std::string value = R"({"magic":42,"nested":{"foo":7,"a.b":"x"},"dflt":null})";
  run_table({
                {"top-level field takes its schema", {{"field", "magic"}}, envelope(schema, value),
                 envelope(int32, "42")},
                {"struct field", {{"field", "nested"}}, envelope(schema, value),
                 envelope(nested_schema, R"({"foo":7,"a.b":"x"})")},
                {"null takes the default", {{"field", "dflt"}}, envelope(schema, value),
                 envelope(R"({"type":"int32","optional":true,"default":42})", "42")},
                {"V2 nested", v2("nested.foo"), envelope(schema, value), envelope(int32, "7")},
                {"repeated key in the payload: the last value", {{"field", "magic"}},
                 envelope(schema, R"({"magic":1,"nested":null,"magic":2})"), envelope(int32, "2")},
                {"V2 backticks", v2("nested.`a.b`"), envelope(schema, value),
                 envelope(R"({"type":"string","optional":true})", R"("x")")},
                {"V2 null parent gives null", v2("nested.`a.b`"),
                 envelope(schema, R"({"magic":1,"nested":null,"dflt":1})"),
                 envelope(R"({"type":"string","optional":true})", "null")},
                {"unknown field is an error", {{"field", "nonexistent"}}, envelope(schema, value),
                 "error: Unknown field: nonexistent"},
                {"V2 unknown nested field is an error", v2("nested.nonexistent"), envelope(schema, value),
                 "error: Unknown field: nested.nonexistent"},
                {"V2 step into a primitive is an error", v2("magic.x"), envelope(schema, value),
                 "error: Cannot look up fields on non-struct type"},
                {"null value keeps the field's schema", {{"field", "nested"}}, envelope(schema, "null"),
                 envelope(nested_schema, "null")},
                // A null under a required schema: Kafka's JsonConverter refuses it too.
                {"null under a required schema fails in the converter", {{"field", "magic"}},
                 envelope(schema, "null"),
                 "error: Conversion error: null value for field that is required and has no default value"},
                {"null value, unknown field is still an error", {{"field", "nope"}}, envelope(schema, "null"),
                 "error: Unknown field: nope"},
                {"not a struct is an error", {{"field", "magic"}}, envelope(int32, "5"),
                 "error: Only Struct objects supported for [field extraction], found: java.lang.Integer"},
            },
            true);
}

BOOST_AUTO_TEST_CASE(replace_null_with_default_off) {
  auto o = run_smt(type, {{"field", "dflt"}, {"replace.null.with.default", "false"}},
                   Record{.value = envelope(schema, R"({"magic":1,"nested":null,"dflt":null})")}, true);
  // The record holds null; the JsonConverter (replace.null.with.default=true) writes
  // a null with a default as the default, as Kafka's does.
  BOOST_TEST(o.error == "");
  BOOST_TEST(o.value == envelope(R"({"type":"int32","optional":true,"default":42})", "42"));
}

BOOST_AUTO_TEST_CASE(key_variant_and_failures_name_the_class) {
  Record r{.value = R"({"v":1})", .key = R"({"id":{"n":3}})"};
  auto o = run_smt("ExtractField$Key", v2("id.n"), r, false);
  BOOST_TEST(o.key == "3");
  BOOST_TEST(o.value == R"({"v":1})");

  std::map<std::string, std::string> conv{{"schemas.enable", "true"}};
  auto cfg = std::map<std::string, std::string>{
      {"transforms", "x"}, {"transforms.x.type", "ExtractField$Value"}, {"transforms.x.field", "nope"}};
  weir::runtime::convert::RecordCodec codec(weir::runtime::convert::make_converter("JsonConverter", conv, true),
                                            weir::runtime::convert::make_converter("JsonConverter", conv, false));
  weir::Batch raw;
  raw.append("t", 0, 1, 1, std::nullopt, std::string_view(envelope(schema, "null")));
  auto batch = codec.decode(std::move(raw));
  weir::transforms::Chain::from_config(cfg).apply_all(batch);
  BOOST_REQUIRE(batch.errors().size() == 1u);
  BOOST_TEST(batch.errors().all()[0].class_name == "org.apache.kafka.connect.transforms.ExtractField$Value");
  BOOST_TEST(batch.errors().all()[0].exception_class == "java.lang.IllegalArgumentException");
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_key) {
  auto key_of = [](std::map<std::string, std::string> own) -> std::string {
    try {
      run_smt(type, own, Record{.value = "{}"}, false);
    } catch (const weir::ConfigError& e) {
      return e.key();
    }
    return "<none>";
  };
  BOOST_TEST(key_of({}) == "transforms.t.field");
  BOOST_TEST(key_of({{"field", "a"}, {"field.syntax.version", "V3"}}) == "transforms.t.field.syntax.version");
  BOOST_TEST(key_of({{"field", "`a.b"}, {"field.syntax.version", "V2"}}) == "transforms.t.field");
  BOOST_TEST(key_of({{"field", ""}, {"field.syntax.version", "V2"}}) == "transforms.t.field");
  BOOST_TEST(key_of({{"field", "a"}, {"replace.null.with.default", "yes"}}) == "transforms.t.replace.null.with.default");
  BOOST_TEST(key_of({{"field", "a"}, {"fields", "a"}}) == "transforms.t.fields");
  BOOST_TEST(key_of({{"field", "`a.b`"}, {"field.syntax.version", "V1"}}) == "<none>");
}

BOOST_AUTO_TEST_SUITE_END()
