#include "runtime/convert/header_text.hpp"

#include <boost/test/unit_test.hpp>

#include "runtime/data/arena.hpp"
#include "runtime/data/decimal.hpp"

using namespace weir::runtime::data;
using weir::runtime::convert::append_header_text;

namespace {

std::string text(const Value& v, const Schema* schema = nullptr) {
  std::string out;
  append_header_text(v, schema, out);
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(header_text)

BOOST_AUTO_TEST_CASE(scalars_as_java_prints_them) {
  BOOST_TEST(text(Value::int32(-7)) == "-7");
  BOOST_TEST(text(Value::boolean(true)) == "true");
  BOOST_TEST(text(Value::float64(1.5)) == "1.5");
  BOOST_TEST(text(Value::float64(1e10)) == "1.0E10");
  BOOST_TEST(text(Value::float32(0.1f)) == "0.1");
  BOOST_TEST(text(Value::string("a \"b\"")) == "a \"b\"", "top-level strings are not quoted");
  BOOST_TEST(text(Value::bytes(std::string_view("\x01\x02\x03", 3))) == "AQID");
}

BOOST_AUTO_TEST_CASE(dates_pick_their_form_from_the_value) {
  BOOST_TEST(text(Value::int32(19675), SchemaBuilder::date().build().get()) == "2023-11-14");
  BOOST_TEST(text(Value::int32(45'000'000), SchemaBuilder::time().build().get()) == "12:30:00.000Z");
  BOOST_TEST(text(Value::java_date(1700000000123)) == "2023-11-14T22:13:20.123Z");
  BOOST_TEST(text(Value::int64(45'000'000)) == "45000000", "a plain Long is a number");
  BOOST_TEST(text(Value::int64(1700000000123), schemas::timestamp().get()) == "2023-11-14T22:13:20.123Z");
}

BOOST_AUTO_TEST_CASE(decimals_and_containers) {
  auto dec = SchemaBuilder::decimal(2).build();
  std::string unscaled = decimal_bytes(-1234);
  BOOST_TEST(text(Value::bytes(unscaled), dec.get()) == "-12.34");
  Arena arena;
  Value list = Value::array(arena, 3);
  list.push_back(arena, Value::string("x\\y"));
  list.push_back(arena, Value());
  list.push_back(arena, Value::int32(3));
  BOOST_TEST(text(list) == R"(["x\\y",null,3])");
  Value map = Value::map(arena, 1);
  map.put(arena, "k", Value::bytes("\x01\x02\x03"));
  BOOST_TEST(text(map) == R"({"k":"AQID"})");
}

BOOST_AUTO_TEST_CASE(a_raw_header_round_trips_as_connect_rewrites_it) {
  auto again = [](std::string_view raw) {
    std::string out;
    return weir::runtime::convert::reserialize_header_text(raw, out) ? out : std::string("<null>");
  };
  BOOST_TEST(again("1.50") == "1.5");
  BOOST_TEST(again("null") == "<null>");
  BOOST_TEST(again(" null ") == "<null>");
  BOOST_TEST(again("null x") == "null x");
  BOOST_TEST(again(R"({ "a" : 1, "b" : "x" })") == R"({"a":1,"b":"x"})");
  BOOST_TEST(again(R"(["a\"b"])") == R"(["a\\\"b"])", "the backslash is kept, then both are escaped");
  BOOST_TEST(again("[1, 300]") == "[1,300]");
  BOOST_TEST(again("[1,") == "[1,", "not an array: the text as it was");
  BOOST_TEST(again("0.1") == "0.1");
  BOOST_TEST(again("3.14159265358979") == "3.1415927", "a float holds it, as Connect reads it");
  BOOST_TEST(again("1.0E30") == "1.0E30");
  BOOST_TEST(again("-0.0") == "0");
  BOOST_TEST(again("text with spaces ") == "text with spaces ");
  BOOST_TEST(again("   ") == "   ");
  BOOST_TEST(again("") == "");
  BOOST_TEST(again("12\\:30\\:00.000Z") == "12:30:00.000Z", "escaped colons");
  BOOST_TEST(again("1970-01-01") == "00:00:00.000Z", "Connect prints the epoch day as a time");
}

BOOST_AUTO_TEST_CASE(parsed_values_carry_connects_schemas) {
  Arena arena;
  using weir::runtime::convert::parse_header_text;
  auto p = parse_header_text("40000", arena);
  BOOST_TEST((p.value.kind() == Kind::Int32));
  BOOST_TEST((p.schema->type() == Type::Int32));
  p = parse_header_text("2024-01-15", arena);
  BOOST_TEST((p.schema->logical() == Logical::Date));
  BOOST_TEST(p.value.as_int() == 19737);
  p = parse_header_text("12345678901234567890.5", arena);
  BOOST_TEST((p.schema->type() == Type::Float32));
  p = parse_header_text("123456789012345678901234", arena);
  BOOST_TEST((p.schema->logical() == Logical::Decimal));
  BOOST_TEST(p.schema->decimal_scale() == 0);
  p = parse_header_text("[1, \"x\"]", arena);
  BOOST_TEST((p.value.kind() == Kind::Array));
  BOOST_TEST(!p.schema, "no common schema: Connect's array of null");
  p = parse_header_text("null", arena);
  BOOST_TEST(p.value.is_null());
  BOOST_TEST(!p.schema);
}

BOOST_AUTO_TEST_SUITE_END()
