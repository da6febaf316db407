#include "transforms/header_from.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

// Headers as "k=v|k=v" (Boost.Test cannot print pairs).
[[maybe_unused]] std::string show(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string s;
  for (const auto& [k, v] : headers)
    s += (s.empty() ? "" : "|") + k + "=" + v;
  return s;
}

using Headers = std::vector<std::pair<std::string, std::string>>;

struct Row {
  const char* name;
  std::vector<std::string> fields, headers;
  const char* operation;
  std::string value;    ///< the input value (schemaless JSON or an envelope)
  std::string expected; ///< the output value, or "error: ..."
  Headers added;        ///< headers after the existing one
};

std::map<std::string, std::string> config(const Row& r) {
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v)
      s += (s.empty() ? "" : ",") + x;
    return s;
  };
  return {{"fields", join(r.fields)}, {"headers", join(r.headers)}, {"operation", r.operation}};
}

void run_table(const std::vector<Row>& rows, bool schemas) {
  for (const auto& row : rows) {
    for (bool key : {false, true}) {
      BOOST_TEST_CONTEXT(row.name << (key ? " ($Key)" : " ($Value)")) {
        const std::string other = schemas ? envelope(R"({"type":"string","optional":false})", R"("other")")
                                          : R"("other")";
        Record r{.headers = {{"existing", "existing-value"}}};
        (key ? r.key : r.value) = row.value;
        (key ? r.value : r.key) = other;
        auto o = run_smt(key ? "HeaderFrom$Key" : "org.apache.kafka.connect.transforms.HeaderFrom$Value", config(row),
                         r, schemas);
        std::string got = !o.error.empty() ? "error: " + o.error : key ? o.key : o.value;
        BOOST_TEST(matches(got, row.expected), got << " != " << row.expected);
        if (o.error.empty()) {
          Headers expected{{"existing", "existing-value"}};
          expected.insert(expected.end(), row.added.begin(), row.added.end());
          BOOST_TEST(show(o.headers) == show(expected));
          BOOST_TEST((key ? o.value : o.key) == other);
        }
      }
    }
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(header_from)

BOOST_AUTO_TEST_CASE(schemaless) {
  const std::string in = R"({"field1":"field1-value","field2":"field2-value","n":{"a":1}})";
  run_table(
      {
          {"basic copy", {"field1"}, {"inserted1"}, "copy", in, in, {{"inserted1", "field1-value"}}},
          {"basic move", {"field1"}, {"inserted1"}, "move", in, R"({"field2":"field2-value","n":{"a":1}})",
           {{"inserted1", "field1-value"}}},
          {"copy onto a preexisting header name appends", {"field1"}, {"existing"}, "copy", in, in,
           {{"existing", "field1-value"}}},
          {"two headers from the same field", {"field1", "field1"}, {"inserted1", "inserted2"}, "move", in,
           R"({"field2":"field2-value","n":{"a":1}})", {{"inserted1", "field1-value"}, {"inserted2", "field1-value"}}},
          {"two fields to the same header", {"field1", "field2"}, {"inserted1", "inserted1"}, "move", in,
           R"({"n":{"a":1}})", {{"inserted1", "field1-value"}, {"inserted1", "field2-value"}}},
          {"map value as a header", {"n"}, {"h"}, "copy", in, in, {{"h", R"({"a":1})"}}},
          {"missing field gives a null header", {"nope"}, {"h"}, "move", in, in, {{"h", "null"}}},
          {"null value is an error", {"field1"}, {"h"}, "copy", "null",
           "error: Only Map objects supported in absence of schema for [header copy], found: null", {}},
          {"not a map is an error", {"field1"}, {"h"}, "move", "[1]",
           "error: Only Map objects supported in absence of schema for [header move], found: java.util.ArrayList", {}},
      },
      false);
}

BOOST_AUTO_TEST_CASE(with_schema) {
  const std::string schema =
      R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"field1"},)"
      R"({"type":"string","optional":true,"default":"default","field":"field2"},)"
      R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"foo"}],"optional":false,"field":"s"}],)"
      R"("optional":false,"name":"R"})";
  const std::string value = R"({"field1":"field1-value","field2":"field2-value","s":{"foo":"foo-value"}})";
  const std::string without_field1 =
      R"({"type":"struct","fields":[{"type":"string","optional":true,"default":"default","field":"field2"},)"
      R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"foo"}],"optional":false,"field":"s"}],)"
      R"("optional":false,"name":"R"})";
  const std::string without_s = R"({"type":"struct","fields":[{"type":"string","optional":false,"field":"field1"},)"
                                R"({"type":"string","optional":true,"default":"default","field":"field2"}],)"
                                R"("optional":false,"name":"R"})";
  run_table(
      {
          {"basic copy", {"field1"}, {"inserted1"}, "copy", envelope(schema, value), envelope(schema, value),
           {{"inserted1", "field1-value"}}},
          {"basic move", {"field1"}, {"inserted1"}, "move", envelope(schema, value),
           envelope(without_field1, R"({"field2":"field2-value","s":{"foo":"foo-value"}})"),
           {{"inserted1", "field1-value"}}},
          {"move a struct", {"s"}, {"inserted1"}, "move", envelope(schema, value),
           envelope(without_s, R"({"field1":"field1-value","field2":"field2-value"})"),
           {{"inserted1", R"({"foo":"foo-value"})"}}},
          {"two headers from the same field", {"field1", "field1"}, {"inserted1", "inserted2"}, "move",
           envelope(schema, value), envelope(without_field1, R"({"field2":"field2-value","s":{"foo":"foo-value"}})"),
           {{"inserted1", "field1-value"}, {"inserted2", "field1-value"}}},
          {"null field reads as its default", {"field2"}, {"h"}, "copy",
           envelope(schema, R"({"field1":"x","field2":null,"s":{"foo":"f"}})"),
           envelope(schema, R"({"field1":"x","field2":"default","s":{"foo":"f"}})"), {{"h", "default"}}},
          {"missing field is an error", {"nope"}, {"h"}, "copy", envelope(schema, value),
           "error: because the return value of \"org.apache.kafka.connect.data.Schema.field(String)\" is null", {}},
          {"null struct is an error", {"field1"}, {"h"}, "copy",
           envelope(R"({"type":"struct","fields":[{"type":"string","optional":true,"field":"field1"}],)"
                    R"("optional":true})",
                    "null"),
           "error: Only Struct objects supported for [header copy], found: null", {}},
          {"not a struct is an error", {"field1"}, {"h"}, "move", envelope(R"({"type":"int32","optional":false})", "1"),
           "error: Only Struct objects supported for [header move], found: java.lang.Integer", {}},
      },
      true);
}

BOOST_AUTO_TEST_CASE(header_keeps_the_field_schema_and_defaults_switch) {
  const std::string schema = R"({"type":"struct","fields":[{"type":"int32","optional":true,"default":7,"field":"n"}],)"
                             R"("optional":false})";
  for (bool replace : {true, false}) {
    std::map<std::string, std::string> conv{{"schemas.enable", "true"}, {"replace.null.with.default", "false"}};
    weir::runtime::convert::RecordCodec codec(weir::runtime::convert::make_converter("JsonConverter", conv, true),
                                              weir::runtime::convert::make_converter("JsonConverter", conv, false));
    weir::Batch raw;
    std::string value = envelope(schema, R"({"n":null})");
    raw.append("t", 0, 1, 1, std::nullopt, std::string_view(value));
    auto batch = codec.decode(std::move(raw));
    weir::transforms::Chain::from_config({{"transforms", "h"},
                                          {"transforms.h.type", "HeaderFrom$Value"},
                                          {"transforms.h.fields", "n"},
                                          {"transforms.h.headers", "hn"},
                                          {"transforms.h.operation", "move"},
                                          {"transforms.h.replace.null.with.default", replace ? "true" : "false"}})
        .apply_all(batch);
    BOOST_REQUIRE(batch.errors().empty());
    BOOST_REQUIRE(batch[0].headers.size() == 1u);
    const auto& h = batch[0].headers[0];
    BOOST_TEST(h.key == "hn");
    BOOST_REQUIRE(h.schema != nullptr);
    BOOST_TEST((h.schema->type() == weir::runtime::data::Type::Int32));
    if (replace)
      BOOST_TEST(h.value.as_int() == 7);
    else
      BOOST_TEST(h.value.is_null());
    BOOST_TEST(batch[0].value.size() == 0u); // moved out
  }
}

BOOST_AUTO_TEST_CASE(logical_types_are_written_as_connects_header_converter_writes_them) {
  // SimpleHeaderConverter (Values.convertToString): ISO-8601 dates and times, the
  // decimal's text, bytes in Base64, numbers as Java prints them, containers quoted.
  const std::string schema =
      R"({"type":"struct","fields":[)"
      R"({"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","field":"ts"},)"
      R"({"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","field":"d"},)"
      R"({"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Time","field":"t"},)"
      R"({"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal",)"
      R"("parameters":{"scale":"2"},"field":"dec"},)"
      R"({"type":"bytes","optional":false,"field":"b"},)"
      R"({"type":"double","optional":false,"field":"x"},)"
      R"({"type":"array","items":{"type":"string","optional":false},"optional":false,"field":"a"}],"optional":false})";
  const std::string value =
      R"({"ts":1700000000123,"d":19675,"t":45000000,"dec":"BNI=","b":"AQID","x":1.0E10,"a":["p","q\"r"]})";
  run_table({{"logical types", {"ts", "d", "t", "dec", "b", "x", "a"}, {"ts", "d", "t", "dec", "b", "x", "a"}, "copy",
              envelope(schema, value), envelope(schema, value),
              {{"ts", "2023-11-14T22:13:20.123Z"},
               {"d", "2023-11-14"},
               {"t", "12:30:00.000Z"},
               {"dec", "12.34"},
               {"b", "AQID"},
               {"x", "1.0E10"},
               {"a", R"(["p","q\"r"])"}}}},
            true);
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_key) {
  auto key_of = [](std::map<std::string, std::string> own) -> std::string {
    try {
      run_smt("HeaderFrom$Value", own, Record{.value = "{}"}, false);
    } catch (const weir::ConfigError& e) {
      return e.key();
    }
    return "<none>";
  };
  BOOST_TEST(key_of({{"fields", "a,b"}, {"headers", "a"}, {"operation", "copy"}}) == "transforms.t.headers");
  BOOST_TEST(key_of({{"fields", "a"}, {"headers", "a,b"}, {"operation", "copy"}}) == "transforms.t.headers");
  BOOST_TEST(key_of({{"fields", ""}, {"headers", ""}, {"operation", "copy"}}) == "transforms.t.fields");
  BOOST_TEST(key_of({{"fields", "a"}, {"headers", "a"}, {"operation", "rename"}}) == "transforms.t.operation");
  BOOST_TEST(key_of({{"fields", "a"}, {"headers", "a"}}) == "transforms.t.operation");
  BOOST_TEST(key_of({{"fields", "a"}, {"headers", "a"}, {"operation", "Copy"}}) == "transforms.t.operation");
  BOOST_TEST(key_of({{"fields", "a"}, {"headers", "h"}, {"operation", "copy"}}) == "<none>");
}

BOOST_AUTO_TEST_SUITE_END()
