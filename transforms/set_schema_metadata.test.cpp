#include "transforms/set_schema_metadata.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

const std::string type = "org.apache.kafka.connect.transforms.SetSchemaMetadata$Value";

void run_table(const std::vector<Case>& cases, bool schemas) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto o = run_smt(type, c.config, Record{.value = c.value}, schemas);
      BOOST_TEST(matches(o.summary(), c.expected), o.summary() << " != " << c.expected);
    }
  }
}

const std::string record_schema =
    R"({"type":"struct","fields":[{"type":"string","optional":true,"default":"default","field":"f1"},)"
    R"({"type":"int32","optional":false,"field":"f2"}],"optional":false,"name":"my.orig.SchemaDefn","doc":"d"})";
std::string renamed(const std::string& name_and_version) {
  return R"({"type":"struct","fields":[{"type":"string","optional":true,"default":"default","field":"f1"},)"
         R"({"type":"int32","optional":false,"field":"f2"}],"optional":false,)"
         + name_and_version + R"(,"doc":"d"})";
}

} // namespace

BOOST_AUTO_TEST_SUITE(set_schema_metadata)

BOOST_AUTO_TEST_CASE(with_schema) {
  const std::string value = R"({"f1":"value1","f2":1})";
  run_table({
                {"name", {{"schema.name", "foo"}}, envelope(record_schema, value),
                 envelope(renamed(R"("name":"foo")"), value)},
                {"version keeps the name", {{"schema.version", "42"}}, envelope(record_schema, value),
                 envelope(renamed(R"("name":"my.orig.SchemaDefn","version":42)"), value)},
                {"both", {{"schema.name", "foo"}, {"schema.version", "42"}}, envelope(record_schema, value),
                 envelope(renamed(R"("name":"foo","version":42)"), value)},
                {"null field takes its default", {{"schema.name", "foo"}},
                 envelope(record_schema, R"({"f1":null,"f2":1})"),
                 envelope(renamed(R"("name":"foo")"), R"({"f1":"default","f2":1})")},
                {"primitive with parameters and default",
                 {{"schema.name", "n"}},
                 envelope(R"({"type":"int64","optional":true,"default":5,"parameters":{"p":"v"}})", "7"),
                 envelope(R"({"type":"int64","optional":true,"name":"n","parameters":{"p":"v"},"default":5})", "7")},
                {"array", {{"schema.version", "2"}},
                 envelope(R"({"type":"array","items":{"type":"int32","optional":false},"optional":false})", "[1,2]"),
                 envelope(R"({"type":"array","items":{"type":"int32","optional":false},"optional":false,)"
                          R"("version":2})",
                          "[1,2]")},
                {"renamed to a logical type, it is one", {{"schema.name", "org.apache.kafka.connect.data.Date"}},
                 envelope(R"({"type":"int32","optional":false})", "19737"),
                 envelope(R"({"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date"})", "19737")},
                {"null value with a schema", {{"schema.name", "foo"}},
                 envelope(R"({"type":"struct","fields":[],"optional":true})", "null"),
                 envelope(R"({"type":"struct","fields":[],"optional":true,"name":"foo"})", "null")},
                {"empty name is a name", {{"schema.name", ""}}, envelope(R"({"type":"int32","optional":false})", "1"),
                 envelope(R"({"type":"int32","optional":false,"name":""})", "1")},
                // weir difference: the key/value struct schema's own default is dropped.
                {"struct default is dropped", {{"schema.name", "S"}},
                 envelope(R"({"type":"struct","fields":[{"type":"int32","optional":true,"field":"a"}],)"
                          R"("optional":true,"default":{"a":1}})",
                          R"({"a":2})"),
                 envelope(R"({"type":"struct","fields":[{"type":"int32","optional":true,"field":"a"}],)"
                          R"("optional":true,"name":"S"})",
                          R"({"a":2})")},
            },
            true);
}

BOOST_AUTO_TEST_CASE(schemaless) {
  run_table({
                {"value needs a schema", {{"schema.name", "foo"}}, "42",
                 "error: Schema required for [updating schema metadata]"},
                {"a map too", {{"schema.name", "foo"}}, R"({"a":1})",
                 "error: Schema required for [updating schema metadata]"},
                {"json null passes through", {{"schema.name", "foo"}}, "null", "null"},
                {"tombstone passes through", {{"schema.name", "foo"}}, std::nullopt, "null"},
            },
            false);
}

BOOST_AUTO_TEST_CASE(replace_null_with_default_off) {
  std::map<std::string, std::string> conv{{"schemas.enable", "true"}, {"replace.null.with.default", "false"}};
  for (bool smt_replaces : {true, false}) {
    weir::runtime::convert::RecordCodec codec(weir::runtime::convert::make_converter("JsonConverter", conv, true),
                                              weir::runtime::convert::make_converter("JsonConverter", conv, false));
    weir::Batch raw;
    std::string value = envelope(record_schema, R"({"f1":null,"f2":1})");
    raw.append("t", 0, 1, 1, std::nullopt, std::string_view(value));
    auto batch = codec.decode(std::move(raw));
    weir::transforms::Chain::from_config({{"transforms", "s"},
                                          {"transforms.s.type", "SetSchemaMetadata$Value"},
                                          {"transforms.s.schema.name", "foo"},
                                          {"transforms.s.replace.null.with.default", smt_replaces ? "true" : "false"}})
        .apply_all(batch);
    BOOST_REQUIRE(batch.errors().empty());
    BOOST_TEST(*batch[0].value_schema->name() == "foo");
    BOOST_TEST(batch[0].value.schema() == batch[0].value_schema); // re-pointed at the renamed schema
    const auto& f1 = batch[0].value.fields()[0];
    if (smt_replaces)
      BOOST_TEST(f1.as_string() == "default");
    else
      BOOST_TEST(f1.is_null());
  }
}

BOOST_AUTO_TEST_CASE(key_variant) {
  Record r{.value = envelope(R"({"type":"int32","optional":false})", "1"),
           .key = envelope(R"({"type":"string","optional":false})", R"("k")")};
  auto o = run_smt("SetSchemaMetadata$Key", {{"schema.name", "K"}}, r, true);
  BOOST_TEST(o.key == envelope(R"({"type":"string","optional":false,"name":"K"})", R"("k")"));
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_key) {
  auto key_of = [](std::map<std::string, std::string> own) -> std::string {
    try {
      run_smt(type, own, Record{.value = "null"}, false);
    } catch (const weir::ConfigError& e) {
      return e.key();
    }
    return "<none>";
  };
  BOOST_TEST(key_of({}) == "transforms.t"); // neither name nor version
  BOOST_TEST(key_of({{"schema.version", "x"}}) == "transforms.t.schema.version");
  BOOST_TEST(key_of({{"schema.version", ""}}) == "transforms.t.schema.version");
  BOOST_TEST(key_of({{"schema.version", "99999999999"}}) == "transforms.t.schema.version");
  BOOST_TEST(key_of({{"schema.name", "a"}, {"schema.nmae", "b"}}) == "transforms.t.schema.nmae");
  BOOST_TEST(key_of({{"schema.version", "-1"}}) == "<none>");
}

BOOST_AUTO_TEST_SUITE_END()
