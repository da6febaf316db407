#include "transforms/mask_field.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

const std::string type = "org.apache.kafka.connect.transforms.MaskField$Value";

void run_table(const std::vector<Case>& cases, bool schemas) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto o = run_smt(type, c.config, Record{.value = c.value}, schemas);
      BOOST_TEST(matches(o.summary(), c.expected), o.summary() << " != " << c.expected);
    }
  }
}

// A struct with one field of every maskable (and one unmaskable) type.
const std::string all_types =
    R"({"type":"struct","fields":[)"
    R"({"type":"int8","optional":false,"field":"i8"},{"type":"int16","optional":false,"field":"i16"},)"
    R"({"type":"int32","optional":false,"field":"i32"},{"type":"int64","optional":false,"field":"i64"},)"
    R"({"type":"float","optional":false,"field":"f32"},{"type":"double","optional":false,"field":"f64"},)"
    R"({"type":"boolean","optional":false,"field":"b"},{"type":"string","optional":false,"field":"s"},)"
    R"({"type":"array","items":{"type":"int32","optional":false},"optional":false,"field":"arr"},)"
    R"({"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},"optional":false,"field":"m"},)"
    R"({"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"dec"},)"
    R"({"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},)"
    R"({"type":"string","optional":true,"field":"opt"},)"
    R"({"type":"bytes","optional":true,"field":"raw"}],"optional":false})";
const std::string all_values =
    R"({"i8":1,"i16":2,"i32":3,"i64":4,"f32":1.5,"f64":2.5,"b":true,"s":"secret","arr":[1,2],"m":{"k":1},)"
    R"("dec":"BNI=","ts":1700000000000,"opt":null,"raw":"AQI="})";

std::string payload_of(const std::string& encoded) {
  auto p = encoded.find(R"("payload":)");
  return p == std::string::npos ? encoded : encoded.substr(p + 10, encoded.size() - p - 11);
}

} // namespace

BOOST_AUTO_TEST_SUITE(mask_field)

BOOST_AUTO_TEST_CASE(schemaless) {
  const std::string in = R"({"n":42,"d":1.5,"s":"secret","b":true,"a":[1],"m":{"x":1},"z":null})";
  run_table(
      {
          {"by type", {{"fields", "n,d,s,b,a,m,z"}}, in, R"({"n":0,"d":0.0,"s":"","b":false,"a":[],"m":{},"z":null})"},
          {"missing field is added as null", {{"fields", "nope"}}, R"({"n":1})", R"({"n":1,"nope":null})"},
          {"a field named twice", {{"fields", "s,nope,s,nope"}}, R"({"s":"secret"})", R"({"s":"","nope":null})"},
          {"several fields, some missing", {{"fields", "z,s,x,n"}}, R"({"n":4,"s":"secret"})",
           R"({"n":0,"s":"","z":null,"x":null})"},
          {"numeric replacement", {{"fields", "n,d"}, {"replacement", "12.7"}}, R"({"n":1,"d":2.0})",
           R"({"n":12,"d":12.7})"},
          {"string replacement", {{"fields", "s"}, {"replacement", "***"}}, in.substr(0, 0) + R"({"s":"secret"})",
           R"({"s":"***"})"},
          {"non-numeric replacement for a number", {{"fields", "n"}, {"replacement", "xx"}}, R"({"n":1})",
           "error: Unable to convert xx (class java.lang.String) to a number"},
          {"replacement for a boolean", {{"fields", "b"}, {"replacement", "1"}}, R"({"b":true})",
           "error: Cannot mask value of type class java.lang.Boolean with custom replacement."},
          {"replacement for a list", {{"fields", "a"}, {"replacement", "1"}}, R"({"a":[1]})",
           "error: Cannot mask value of type class java.util.ArrayList with custom replacement."},
          {"tombstone is an error (as in Kafka)", {{"fields", "n"}}, std::nullopt,
           "error: Only Map objects supported in absence of schema for [mask fields], found: null"},
      },
      false);
}

BOOST_AUTO_TEST_CASE(with_schema) {
  auto o = run_smt(type, {{"fields", "i8,i16,i32,i64,f32,f64,b,s,arr,m,dec,ts,opt"}},
                   Record{.value = envelope(all_types, all_values)}, true);
  BOOST_TEST(o.error == "");
  BOOST_TEST(payload_of(o.value)
             == R"({"i8":0,"i16":0,"i32":0,"i64":0,"f32":0.0,"f64":0.0,"b":false,"s":"","arr":[],"m":{},)"
                R"("dec":"AA==","ts":0,"opt":null,"raw":"AQI="})");
  // The schema is unchanged.
  BOOST_TEST(o.value.find(all_types) != std::string::npos);

  run_table(
      {
          {"bytes cannot be masked", {{"fields", "raw"}}, envelope(all_types, all_values),
           "error: Cannot mask value of type: class [B"},
          {"timestamp with replacement", {{"fields", "ts"}, {"replacement", "5"}}, envelope(all_types, all_values),
           "error: Cannot mask value of type class java.util.Date with custom replacement."},
          {"struct cannot be masked", {{"fields", "inner"}},
           envelope(R"({"type":"struct","fields":[{"type":"struct","fields":[],"optional":false,"field":"inner"}],"optional":false})",
                    R"({"inner":{}})"),
           "error: Cannot mask value of type: class org.apache.kafka.connect.data.Struct"},
      },
      true);
  auto dec = run_smt(type, {{"fields", "dec"}, {"replacement", "1.5"}}, Record{.value = envelope(all_types, all_values)}, true);
  BOOST_TEST(payload_of(dec.value).find(R"("dec":"AJY=")") != std::string::npos, dec.value); // 150 at scale 2
  auto s = run_smt(type, {{"fields", "s"}, {"replacement", "XXX"}}, Record{.value = envelope(all_types, all_values)}, true);
  BOOST_TEST(payload_of(s.value).find(R"("s":"XXX")") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(config_errors) {
  auto key_of = [](std::map<std::string, std::string> own) -> std::string {
    try {
      run_smt(type, own, Record{.value = "{}"}, false);
    } catch (const weir::ConfigError& e) {
      return e.key();
    }
    return "";
  };
  BOOST_TEST(key_of({}) == "transforms.t.fields");
  BOOST_TEST(key_of({{"fields", ""}}) == "transforms.t.fields");
  BOOST_TEST(key_of({{"fields", "a"}, {"replacement", ""}}) == "transforms.t.replacement");
}

BOOST_AUTO_TEST_SUITE_END()
