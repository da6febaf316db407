#include "transforms/cast.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

const std::string type = "org.apache.kafka.connect.transforms.Cast$Value";

void run_table(const std::vector<Case>& cases, bool schemas) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto o = run_smt(type, c.config, Record{.value = c.value}, schemas);
      BOOST_TEST(matches(o.summary(), c.expected), o.summary() << " != " << c.expected);
    }
  }
}

std::string prim(const std::string& t, const std::string& extra = "") {
  return R"({"type":")" + t + R"(","optional":false)" + extra + "}";
}

} // namespace

BOOST_AUTO_TEST_SUITE(cast)

BOOST_AUTO_TEST_CASE(schemaless_fields) {
  run_table(
      {
          {"numbers", {{"spec", "a:int8,b:int32,c:float32,d:string,e:boolean"}},
           R"({"a":300,"b":2.9,"c":1,"d":12,"e":0})", R"({"a":44,"b":2,"c":1.0,"d":"12","e":false})"},
          // Integers to numbers and strings to float64 take an inline path; the same
          // answers as every other cast.
          {"integers to every type", {{"spec", "a:int8,b:int16,c:int32,d:int64,e:float32,f:float64,g:boolean,h:boolean,i:string"}},
           R"({"a":-129,"b":70000,"c":1099511627781,"d":-9,"e":16777217,"f":9007199254740993,"g":0,"h":-5,"i":-7})",
           R"({"a":127,"b":4464,"c":5,"d":-9,"e":1.6777216E7,"f":9.007199254740992E15,"g":false,"h":true,"i":"-7"})"},
          {"strings to float64", {{"spec", "a:float64,b:float64,c:float64"}}, R"({"a":"436.36","b":"-1e-7","c":"NaN"})",
           R"({"a":436.36,"b":-1.0E-7,"c":"NaN"})"},
          {"unparsable string to float64", {{"spec", "a:float64"}}, R"({"a":"x1"})",
           "error: Value (x1) was out of range for requested data type"},
          {"strings parse like Java", {{"spec", "a:int16,b:float64,c:boolean,d:boolean"}},
           R"({"a":"-12","b":" 1.5e3 ","c":"TRUE","d":"yes"})", R"({"a":-12,"b":1500.0,"c":true,"d":false})"},
          {"decimal strings", {{"spec", "a:float64,b:float64,c:float64,d:float64,e:float64"}},
           R"({"a":"340.40","b":"-0.0","c":".5","d":"5.","e":"0.1"})",
           R"({"a":340.4,"b":-0.0,"c":0.5,"d":5.0,"e":0.1})"},
          {"a field named twice", {{"spec", "a:int64,a:string,nope:int8"}}, R"({"a":1.5})",
           R"({"a":"1","nope":null})"},
          {"unparsable string", {{"spec", "a:int32"}}, R"({"a":"1.5"})",
           "error: Value (1.5) was out of range for requested data type"},
          {"int32 overflow from a string", {{"spec", "a:int32"}}, R"({"a":"3000000000"})",
           "error: was out of range for requested data type"},
          {"booleans to numbers and strings", {{"spec", "a:int64,b:float64,c:string"}}, R"({"a":true,"b":false,"c":true})",
           R"({"a":1,"b":0.0,"c":"true"})"},
          {"double to string is Java's", {{"spec", "a:string,b:string"}}, R"({"a":1.0,"b":1e20})",
           R"({"a":"1.0","b":"1.0E20"})"},
          {"missing field becomes null", {{"spec", "zz:int8"}}, R"({"a":1})", R"({"a":1,"zz":null})"},
          {"null field stays null", {{"spec", "a:int8"}}, R"({"a":null})", R"({"a":null})"},
          {"maps cannot be cast", {{"spec", "a:string"}}, R"({"a":{"x":1}})",
           "error: Cast transformation does not support casting from MAP; supported types are [INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]"},
          {"arrays cannot be cast", {{"spec", "a:int8"}}, R"({"a":[1]})",
           "error: does not support casting from ARRAY"},
          {"tombstone passes", {{"spec", "a:int8"}}, std::nullopt, "null"},
          {"value must be a map", {{"spec", "a:int8"}}, "5",
           "error: Only Map objects supported in absence of schema for [cast types], found: java.lang.Long"},
      },
      false);
}

BOOST_AUTO_TEST_CASE(schemaless_whole_value) {
  run_table(
      {
          {"long to string", {{"spec", "string"}}, "42", R"("42")"},
          {"string to int64", {{"spec", "int64"}}, R"("42")", "42"},
          {"long to int16", {{"spec", "int16"}}, "65537", "1"},
          {"string to float64", {{"spec", "float64"}}, R"("2.50")", "2.5"},
          {"map as a whole", {{"spec", "string"}}, R"({"a":1})", "error: does not support casting from MAP"},
      },
      false);
}

BOOST_AUTO_TEST_CASE(with_schema) {
  const std::string s =
      R"({"type":"struct","fields":[{"type":"int64","optional":false,"field":"id"},)"
      R"({"type":"string","optional":true,"default":"7","field":"n"},)"
      R"({"type":"bytes","optional":false,"field":"raw"},)"
      R"({"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"},"field":"dec"},)"
      R"({"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1,"field":"ts"},)"
      R"({"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1,"field":"day"}],)"
      R"("optional":false,"name":"C"})";
  const std::string v = R"({"id":5,"n":null,"raw":"aGk=","dec":"BNI=","ts":1700000000123,"day":19000})";
  auto o = run_smt(type, {{"spec", "id:int32,n:int32,raw:string,dec:string,ts:string,day:string"}},
                   Record{.value = envelope(s, v)}, true);
  BOOST_TEST(o.error == "");
  BOOST_TEST(o.value
             == envelope(R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},)"
                         R"({"type":"int32","optional":true,"default":7,"field":"n"},)"
                         R"({"type":"string","optional":false,"field":"raw"},)"
                         R"({"type":"string","optional":false,"field":"dec"},)"
                         R"({"type":"string","optional":false,"field":"ts"},)"
                         R"({"type":"string","optional":false,"field":"day"}],"optional":false,"name":"C"})",
                         R"({"id":5,"n":7,"raw":"aGk=","dec":"12.34","ts":"2023-11-14T22:13:20.123Z","day":"2022-01-08"})"),
             o.value);

  auto numbers = run_smt(type, {{"spec", "dec:int32,ts:int64,day:int32"}}, Record{.value = envelope(s, v)}, true);
  BOOST_TEST(numbers.value.find(R"("payload":{"id":5,"n":"7","raw":"aGk=","dec":12,"ts":1700000000123,"day":19000})")
                 != std::string::npos,
             numbers.value);

  run_table(
      {
          {"bytes to a number", {{"spec", "raw:int32"}}, envelope(s, v),
           "error: Unexpected type in Cast transformation: class [B"},
          {"whole struct", {{"spec", "string"}}, envelope(s, v), "error: does not support casting from STRUCT"},
          {"whole primitive keeps schema basics",
           {{"spec", "int32"}},
           envelope(prim("int64", R"(,"name":"n","version":2)"), "7"),
           envelope(R"({"type":"int32","optional":false,"name":"n","version":2})", "7")},
          {"whole optional with default",
           {{"spec", "string"}},
           envelope(R"({"type":"int64","optional":true,"default":3})", "null"),
           envelope(R"({"type":"string","optional":true,"default":"3"})", R"("3")")},
      },
      true);
}

BOOST_AUTO_TEST_CASE(config_errors) {
  for (const char* spec : {"a:int9", "bytes", "a:struct", "int8,a:int8", "a:b:c", ""}) {
    try {
      run_smt(type, {{"spec", spec}}, Record{.value = "{}"}, false);
      BOOST_ERROR("accepted " << spec);
    } catch (const weir::ConfigError& e) {
      BOOST_TEST(e.key() == "transforms.t.spec", spec << ": " << e.what());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
