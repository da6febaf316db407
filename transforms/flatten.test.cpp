#include "transforms/flatten.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

const std::string type = "org.apache.kafka.connect.transforms.Flatten$Value";

void run_table(const std::vector<Case>& cases, bool schemas) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto o = run_smt(type, c.config, Record{.value = c.value}, schemas);
      BOOST_TEST(matches(o.summary(), c.expected), o.summary() << " != " << c.expected);
    }
  }
}

std::string field(const std::string& name, const std::string& schema) {
  return schema.substr(0, schema.size() - 1) + R"(,"field":")" + name + R"("})";
}
std::string structure(std::vector<std::string> fields, bool optional = false, const std::string& extra = "") {
  std::string s = R"({"type":"struct","fields":[)";
  for (size_t i = 0; i < fields.size(); ++i)
    s += (i ? "," : "") + fields[i];
  return s + R"(],"optional":)" + (optional ? "true" : "false") + extra + "}";
}
const std::string i32 = R"({"type":"int32","optional":false})";
const std::string opt_i32 = R"({"type":"int32","optional":true})";
const std::string str = R"({"type":"string","optional":false})";
const std::string opt_str = R"({"type":"string","optional":true})";

} // namespace

BOOST_AUTO_TEST_SUITE(flatten)

BOOST_AUTO_TEST_CASE(schemaless) {
  run_table({
                {"nested maps", {}, R"({"A":{"B":{"int":8,"s":"x","b":true,"f":1.5}},"top":1})",
                 R"({"A.B.int":8,"A.B.s":"x","A.B.b":true,"A.B.f":1.5,"top":1})"},
                {"delimiter", {{"delimiter", "#"}}, R"({"A":{"B":{"c":1}}})", R"({"A#B#c":1})"},
                {"empty delimiter", {{"delimiter", ""}}, R"({"A":{"B":1}})", R"({"AB":1})"},
                {"null fields kept in order", {},
                 R"({"firstNull":null,"firstNonNull":"nonNull","secondNull":null,"n":{"x":null}})",
                 R"({"firstNull":null,"firstNonNull":"nonNull","secondNull":null,"n.x":null})"},
                {"arrays kept as they are", {}, R"({"foo":["bar",{"baz":{"lfg":"lfg"}}]})",
                 R"({"foo":["bar",{"baz":{"lfg":"lfg"}}]})"},
                {"empty nested map vanishes", {}, R"({"a":{},"b":1})", R"({"b":1})"},
                {"colliding names: the later wins in place", {}, R"({"a.b":1,"a":{"b":2},"c":3})",
                 R"({"a.b":2,"c":3})"},
                {"empty top-level key flattens without a delimiter", {}, R"({"":{"x":1}})", R"({"x":1})"},
                {"tombstone passes through", {}, std::nullopt, "null"},
                {"json null passes through", {}, "null", "null"},
                {"top level must be a map", {}, "42",
                 "error: Only Map objects supported in absence of schema for [flattening], found: java.lang.Long"},
            },
            false);
}

BOOST_AUTO_TEST_CASE(with_schema) {
  const std::string inner = structure({field("int", i32), field("s", str)}, false, R"(,"name":"Inner")");
  const std::string nested = structure({field("A", structure({field("B", inner)})), field("top", opt_i32)}, false,
                                       R"(,"name":"Outer","version":3,"doc":"d")");
  const std::string flat = structure({field("A.B.int", i32), field("A.B.s", str), field("top", opt_i32)}, false,
                                     R"(,"name":"Outer","version":3,"doc":"d")");
  // An optional child struct with a default struct: its fields become optional and
  // take defaults from it (Kafka's testOptionalAndDefaultValuesNested).
  const std::string child = structure(
      {field("req_field", str), field("opt_field", R"({"type":"string","optional":true,"default":"child_default"})")},
      true, R"(,"default":{"req_field":"req_default","opt_field":null})");
  const std::string with_defaults = structure({field("c", child)});
  const std::string flat_defaults =
      structure({field("c.req_field", R"({"type":"string","optional":true,"default":"req_default"})"),
                 field("c.opt_field", R"({"type":"string","optional":true,"default":"child_default"})")});
  const std::string with_array =
      structure({field("foo", R"({"type":"array","items":)" + structure({field("baz", i32)}) + R"(,"optional":false})")});
  run_table({
                {"nested structs", {}, envelope(nested, R"({"A":{"B":{"int":8,"s":"x"}},"top":null})"),
                 envelope(flat, R"({"A.B.int":8,"A.B.s":"x","top":null})")},
                {"delimiter", {{"delimiter", "_"}}, envelope(structure({field("a", structure({field("b", i32)}))}),
                                                             R"({"a":{"b":1}})"),
                 envelope(structure({field("a_b", i32)}), R"({"a_b":1})")},
                {"optional and default values from ancestors", {}, envelope(with_defaults, R"({"c":null})"),
                 envelope(flat_defaults, R"({"c.req_field":"req_default","c.opt_field":"child_default"})")},
                {"optional parent makes children optional", {},
                 envelope(structure({field("p", structure({field("x", i32)}, true))}), R"({"p":{"x":1}})"),
                 envelope(structure({field("p.x", opt_i32)}), R"({"p.x":1})")},
                {"null optional nested struct", {},
                 envelope(structure({field("p", structure({field("x", i32), field("y", str)}, true)), field("z", i32)}),
                          R"({"p":null,"z":2})"),
                 envelope(structure({field("p.x", opt_i32), field("p.y", opt_str), field("z", i32)}),
                          R"({"p.x":null,"p.y":null,"z":2})")},
                {"arrays of structs are kept", {}, envelope(with_array, R"({"foo":[{"baz":1}]})"),
                 envelope(with_array, R"({"foo":[{"baz":1}]})")},
                // An optional top level makes every field optional; the struct itself is required.
                {"top-level optionality goes to the fields", {},
                 envelope(structure({field("a", i32)}, true), R"({"a":1})"),
                 envelope(structure({field("a", opt_i32)}), R"({"a":1})")},
                {"null value keeps its schema", {}, envelope(structure({field("a", opt_i32)}, true), "null"),
                 envelope(structure({field("a", opt_i32)}, true), "null")},
                {"map field is an error", {},
                 envelope(structure({field("m", R"({"type":"map","keys":{"type":"string","optional":false},)"
                                                R"("values":{"type":"int32","optional":false},"optional":false})")}),
                          R"({"m":{"k":1}})"),
                 "error: Flatten transformation does not support MAP for record with schemas (for field m)."},
                {"colliding names are an error", {},
                 envelope(structure({field("a.b", i32), field("a", structure({field("b", i32)}))}),
                          R"({"a.b":1,"a":{"b":2}})"),
                 "error: Cannot create field because of field name duplication a.b"},
                {"not a struct", {}, envelope(i32, "42"),
                 "error: Only Struct objects supported for [flattening], found: java.lang.Integer"},
            },
            true);
}

BOOST_AUTO_TEST_CASE(key_variant) {
  Record r{.value = R"({"v":{"w":1}})", .key = R"({"A":{"B":12}})"};
  auto o = run_smt("Flatten$Key", {}, r, false);
  BOOST_TEST(o.key == R"({"A.B":12})");
  BOOST_TEST(o.value == R"({"v":{"w":1}})");
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_key) {
  try {
    run_smt(type, {{"delimeter", "_"}}, Record{.value = "{}"}, false);
    BOOST_ERROR("no error");
  } catch (const weir::ConfigError& e) {
    BOOST_TEST(e.key() == "transforms.t.delimeter");
  }
}

BOOST_AUTO_TEST_SUITE_END()
