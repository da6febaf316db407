#include "runtime/convert/json_text.hpp"

#include <boost/test/unit_test.hpp>
#include <charconv>
#include <cmath>
#include <cstring>
#include <random>

#include "runtime/data/schema.hpp"
#include "runtime/data/value.hpp"

using namespace weir::runtime::convert;

BOOST_AUTO_TEST_SUITE(json_text)

BOOST_AUTO_TEST_CASE(java_double_formatting) {
  struct Row {
    double d;
    const char* expected;
  };
  for (auto r : {Row{1.0, "1.0"}, Row{0.1, "0.1"}, Row{-2.5, "-2.5"}, Row{100.0, "100.0"},
                 Row{1e7, "1.0E7"}, Row{1.5e10, "1.5E10"}, Row{1e-3, "0.001"}, Row{1e-4, "1.0E-4"},
                 Row{123456.789, "123456.789"}, Row{0.0, "0.0"}, Row{-0.0, "-0.0"},
                 Row{9999999.0, "9999999.0"}, Row{1.2345e-5, "1.2345E-5"}}) {
    std::string out;
    append_java_double(r.d, out);
    BOOST_TEST(out == r.expected);
  }
  std::string f;
  append_java_float(1.1f, f);
  BOOST_TEST(f == "1.1");
  std::string nan;
  append_json_double(std::nan(""), nan);
  BOOST_TEST(nan == "\"NaN\"");
}

// The plain range [1e-3, 1e7) has a fast path for values with few digits; it must
// print exactly the shortest fixed digits (to_chars) with Java's ".0" for whole numbers.
BOOST_AUTO_TEST_CASE(java_double_plain_range_matches_shortest_digits) {
  auto reference = [](double d) {
    char buf[64];
    char* e = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::fixed).ptr;
    std::string s(buf, e);
    if (s.find('.') == std::string::npos)
      s += ".0";
    return s;
  };
  std::mt19937_64 rng(42);
  std::vector<double> values{0.001, 0.0015, 0.3, 0.1 + 0.2, 340.4, 9999999.999999998, 2.9999999999999996,
                             1234567.125, 0.00123456789012345, 5e-3, 999.995, 1e6, 4.35, 0.07};
  for (int i = 0; i < 20000; ++i) {
    values.push_back(static_cast<double>(rng() % 100000000) / 100.0);         // prices
    values.push_back(static_cast<double>(rng() % 10000000000ULL) / 1000.0);   // 3 decimals
    values.push_back(std::ldexp(static_cast<double>(rng() >> 11), -53) * 1e4); // full precision
    values.push_back(static_cast<double>(rng() % 1000000) * 1e-6 + 1e-3);
  }
  for (double d : values) {
    if (!(d >= 1e-3 && d < 1e7))
      continue;
    for (double v : {d, -d}) {
      std::string out;
      append_java_double(v, out);
      std::string want = reference(v);
      if (out != want)
        BOOST_TEST(out == want);
    }
  }
}

// What Java's toString() prints for the value Kafka Connect holds (FileStreamSink's
// lines, StringConverter, Cast to string), through both outputs.
BOOST_AUTO_TEST_CASE(java_to_string_like_kafka_connect) {
  using namespace weir::runtime::data;
  Arena arena;
  Value nested = Value::map(arena, 0);
  nested.put(arena, "k", Value::int64(1));
  Value list = Value::array(arena, 0);
  list.push_back(arena, Value::int32(1));
  list.push_back(arena, Value::string("two"));
  list.push_back(arena, nested);
  Value record = Value::map(arena, 0);
  record.put(arena, "id", Value::int64(-42));
  record.put(arena, "name", Value::string("a b=c"));
  record.put(arena, "score", Value::float64(1e7));
  record.put(arena, "ok", Value::boolean(true));
  record.put(arena, "none", Value());
  record.put(arena, "list", list);
  record.put(arena, "", Value::float32(1.1f));

  auto point = SchemaBuilder::struct_().field("x", schemas::int32()).field("y", schemas::optional_string()).build();
  Value with_null = Value::structure(arena, *point);
  *with_null.field("x") = Value::int32(4);
  Value full = Value::structure(arena, *point);
  *full.field("x") = Value::int32(5);
  *full.field("y") = Value::string("s");

  auto money = SchemaBuilder::decimal(2).build();
  const char unscaled[] = {'\x30', '\x39'}; // 12345, big-endian
  auto counts = SchemaBuilder::map(schemas::int64(), schemas::string()).build();
  Value by_int = Value::map(arena, 0);
  by_int.append(arena, Value::int64(1), Value::string("a"));
  by_int.append(arena, Value::int64(2), Value::string("b"));

  struct Case {
    const char* name;
    Value value;
    const Schema* schema;
    const char* want;
  };
  const Case cases[] = {
      {"null", Value(), nullptr, "null"},
      {"string as is", Value::string("x\"y"), nullptr, "x\"y"},
      {"double", Value::float64(0.5), nullptr, "0.5"},
      {"schemaless map", record, nullptr, "{id=-42, name=a b=c, score=1.0E7, ok=true, none=null, list=[1, two, {k=1}], =1.1}"},
      {"empty map", Value::map(arena, 0), nullptr, "{}"},
      {"struct skips null fields", with_null, nullptr, "Struct{x=4}"},
      {"struct", full, nullptr, "Struct{x=5,y=s}"},
      {"decimal", Value::bytes(std::string_view(unscaled, 2)), money.get(), "123.45"},
      {"map with int keys", by_int, counts.get(), "{1=a, 2=b}"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      std::string text = "> ";
      append_java_to_string(c.value, c.schema, text);
      BOOST_TEST(text == std::string("> ") + c.want);
      JsonBuffer buffer;
      buffer += "> ";
      append_java_to_string(c.value, c.schema, buffer);
      BOOST_TEST(buffer.view() == std::string("> ") + c.want);
    }
  }
}

BOOST_AUTO_TEST_CASE(string_escaping_like_jackson) {
  std::string out;
  append_json_string("a\"b\\c\n\x01/é", out);
  BOOST_TEST(out == "\"a\\\"b\\\\c\\n\\u0001/é\"");
}


// write_int must print exactly what std::to_chars prints, at every digit count and
// around every block boundary of its 8-digit SWAR.
BOOST_AUTO_TEST_CASE(write_int_matches_to_chars) {
  auto check = [](int64_t v) {
    char want[32], got[32];
    char* w = std::to_chars(want, want + sizeof want, v).ptr;
    char* g = write_int(v, got);
    BOOST_TEST(std::string(got, g) == std::string(want, w));
  };
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, INT64_MAX, INT64_MIN, INT64_MIN + 1})
    check(v);
  for (int64_t v = -120; v <= 120; ++v) // one digit (a path of its own), two, three
    check(v);
  for (uint64_t p = 1; p <= 1000000000000000000ULL; p *= 10)
    for (int64_t d : {-1, 0, 1}) {
      check(static_cast<int64_t>(p) + d);
      check(-(static_cast<int64_t>(p) + d));
    }
  std::mt19937_64 rng(42);
  for (int i = 0; i < 200000; ++i) {
    uint64_t r = rng();
    check(static_cast<int64_t>(r >> (r % 64))); // every magnitude
  }
}
BOOST_AUTO_TEST_SUITE_END()
