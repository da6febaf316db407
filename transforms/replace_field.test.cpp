#include "transforms/replace_field.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

const std::string type = "org.apache.kafka.connect.transforms.ReplaceField$Value";

std::string field(const std::string& t, const std::string& name, bool optional = false) {
  return R"({"type":")" + t + R"(","optional":)" + (optional ? "true" : "false") + R"(,"field":")" + name + R"("})";
}
std::string schema(const std::vector<std::string>& fields) {
  std::string s = R"({"type":"struct","fields":[)";
  for (size_t i = 0; i < fields.size(); ++i)
    s += (i ? "," : "") + fields[i];
  return s + R"(],"optional":false,"name":"R","version":1})";
}

void run_table(const std::vector<Case>& cases, bool schemas) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto o = run_smt(type, c.config, Record{.value = c.value}, schemas);
      BOOST_TEST(matches(o.summary(), c.expected), o.summary() << " != " << c.expected);
    }
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(replace_field)

BOOST_AUTO_TEST_CASE(schemaless) {
  const std::string in = R"({"a":1,"b":"x","c":{"d":2},"e":[1]})";
  run_table(
      {
          {"exclude", {{"exclude", "a,c"}}, in, R"({"b":"x","e":[1]})"},
          {"include", {{"include", "c,a"}}, in, R"({"a":1,"c":{"d":2}})"},
          {"exclude wins over include", {{"include", "a,b"}, {"exclude", "a"}}, in, R"({"b":"x"})"},
          {"rename", {{"renames", "a:alpha,b:beta"}}, in, R"({"alpha":1,"beta":"x","c":{"d":2},"e":[1]})"},
          {"rename onto a kept field overwrites it", {{"renames", "a:b"}}, R"({"a":1,"b":2})", R"({"b":2})"},
          {"include then rename", {{"include", "a"}, {"renames", "a:z"}}, in, R"({"z":1})"},
          {"missing fields are ignored", {{"exclude", "nope"}, {"include", "a,nope"}}, in, R"({"a":1})"},
          {"deprecated blacklist", {{"blacklist", "a,b,c"}}, in, R"({"e":[1]})"},
          {"deprecated whitelist", {{"whitelist", "b"}}, in, R"({"b":"x"})"},
          {"exclude beats blacklist", {{"exclude", "a"}, {"blacklist", "b"}}, R"({"a":1,"b":2})", R"({"b":2})"},
          {"nested fields are not touched", {{"exclude", "d"}}, in, in},
          // A repeated key is one field, its last value at its first place (Jackson's tree).
          {"repeated key: exclude removes it", {{"exclude", "a"}}, R"({"a":1,"b":2,"a":3})", R"({"b":2})"},
          {"repeated key: rename sees the last value", {{"renames", "a:z"}}, R"({"a":1,"b":2,"a":3})", R"({"z":3,"b":2})"},
          {"tombstone passes", {{"exclude", "a"}}, std::nullopt, "null"},
          {"array is an error", {{"exclude", "a"}}, "[1]", "error: Only Map objects supported in absence of schema for [field replacement], found: java.util.ArrayList"},
      },
      false);
}

BOOST_AUTO_TEST_CASE(with_schema) {
  const std::string s = schema({field("int32", "a"), field("string", "b", true),
                                R"({"type":"int64","optional":true,"default":9,"field":"n"})"});
  auto out = [](const std::vector<std::string>& fields, const std::string& payload) {
    return envelope(schema(fields), payload);
  };
  run_table(
      {
          {"exclude", {{"exclude", "b"}}, envelope(s, R"({"a":1,"b":"x","n":3})"),
           out({field("int32", "a"), R"({"type":"int64","optional":true,"default":9,"field":"n"})"}, R"({"a":1,"n":3})")},
          {"include and rename", {{"include", "b,a"}, {"renames", "a:id"}}, envelope(s, R"({"a":1,"b":"x"})"),
           out({field("int32", "id"), field("string", "b", true)}, R"({"id":1,"b":"x"})")},
          {"null with default takes the default", {{"include", "n"}}, envelope(s, R"({"a":1,"n":null})"),
           out({R"({"type":"int64","optional":true,"default":9,"field":"n"})"}, R"({"n":9})")},
          {"rename collision is a record error", {{"renames", "a:b"}}, envelope(s, R"({"a":1,"b":"x"})"),
           "error: Cannot create field because of field name duplication b"},
          {"schema'd null passes", {{"exclude", "a"}},
           envelope(R"({"type":"struct","fields":[],"optional":true})", "null"),
           R"({"schema":{"type":"struct","fields":[],"optional":true},"payload":null})"},
          {"not a struct", {{"exclude", "a"}}, envelope(R"({"type":"string","optional":false})", R"("s")"),
           "error: Only Struct objects supported for [field replacement], found: java.lang.String"},
      },
      true);
}

BOOST_AUTO_TEST_CASE(bad_renames_name_the_key) {
  for (const char* bad : {"a", "a:b:c", "a:"}) {
    try {
      run_smt(type, {{"renames", bad}}, Record{.value = "{}"}, false);
      BOOST_ERROR("accepted " << bad);
    } catch (const weir::ConfigError& e) {
      BOOST_TEST(e.key() == "transforms.t.renames");
      BOOST_TEST(std::string(e.what()).find("Invalid rename mapping") != std::string::npos);
    }
  }
}

BOOST_AUTO_TEST_CASE(key_variant) {
  Record r{.value = "{}", .key = R"({"k":1,"drop":2})"};
  auto o = run_smt("ReplaceField$Key", {{"exclude", "drop"}}, r, false);
  BOOST_TEST(o.key == R"({"k":1})");
  BOOST_TEST(o.value == "{}");
}

BOOST_AUTO_TEST_SUITE_END()
