#include "connectors/jdbc/copy_text.hpp"

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <limits>

#include "runtime/data/decimal.hpp"

using namespace weir::connectors::jdbc;
using namespace weir::runtime::data;

namespace {

std::string encode(Value v, const Schema* schema = nullptr) {
  CopyTextEncoder encoder;
  std::string out;
  encoder.append_value(out, Column{"c", v, schema});
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(jdbc_copy_text)

BOOST_AUTO_TEST_CASE(text_is_escaped_for_copy) {
  BOOST_TEST(encode(Value::string("plain")) == "plain");
  BOOST_TEST(encode(Value::string("a\tb\nc\rd\\e")) == "a\\tb\\nc\\rd\\\\e");
  BOOST_TEST(encode(Value::string("")) == "");
  BOOST_TEST(encode(Value()) == "\\N");
  // A literal "\N" string is not a null: its backslash is escaped.
  BOOST_TEST(encode(Value::string("\\N")) == "\\\\N");
}

BOOST_AUTO_TEST_CASE(numbers_and_booleans) {
  BOOST_TEST(encode(Value::boolean(true)) == "t");
  BOOST_TEST(encode(Value::boolean(false)) == "f");
  BOOST_TEST(encode(Value::int64(std::numeric_limits<int64_t>::min())) == "-9223372036854775808");
  BOOST_TEST(encode(Value::int8(-7)) == "-7");
  BOOST_TEST(encode(Value::float64(0.1)) == "0.1");
  BOOST_TEST(encode(Value::float64(1.0 / 3)) == "0.3333333333333333");
  BOOST_TEST(encode(Value::float32(0.1f)) == "0.1");
  BOOST_TEST(encode(Value::float64(std::nan(""))) == "NaN");
  BOOST_TEST(encode(Value::float64(-std::numeric_limits<double>::infinity())) == "-Infinity");
  BOOST_TEST(encode(Value::float32(std::numeric_limits<float>::infinity())) == "Infinity");
  BOOST_TEST(encode(Value::float64(1e300)) == "1e+300");
}

BOOST_AUTO_TEST_CASE(bytes_as_bytea_hex_and_decimals_exact) {
  BOOST_TEST(encode(Value::bytes(std::string_view("\x00\xff\x10", 3))) == "\\\\x00ff10");
  BOOST_TEST(encode(Value::bytes("")) == "\\\\x");
  auto decimal = SchemaBuilder::decimal(2).build();
  std::string unscaled = decimal_bytes(-12345);
  BOOST_TEST(encode(Value::bytes(unscaled), decimal.get()) == "-123.45");
}

BOOST_AUTO_TEST_CASE(times_as_iso_text_in_utc) {
  auto date = SchemaBuilder::date().build();
  auto time = SchemaBuilder::time().build();
  auto ts = SchemaBuilder::timestamp().build();
  BOOST_TEST(encode(Value::int32(19723), date.get()) == "2024-01-01");
  BOOST_TEST(encode(Value::int32(3723004), time.get()) == "01:02:03.004");
  BOOST_TEST(encode(Value::int64(1704067200123), ts.get()) == "2024-01-01 00:00:00.123");
  BOOST_TEST(encode(Value::int64(-1), ts.get()) == "1969-12-31 23:59:59.999");
}

BOOST_AUTO_TEST_CASE(nested_values_as_compact_json) {
  Arena arena;
  Value m = Value::map(arena, 2);
  m.put(arena, "k", Value::string("tab\there"));
  m.put(arena, "n", Value::int64(1));
  // The JSON escapes the tab as \t; COPY then escapes that backslash.
  BOOST_TEST(encode(m) == "{\"k\":\"tab\\\\there\",\"n\":1}");
}

BOOST_AUTO_TEST_CASE(postgres_types_by_schema_and_by_value) {
  auto type = [](Value v, const SchemaPtr& s) { return std::string(postgres_type(Column{"c", v, s.get()})); };
  BOOST_TEST(type(Value::int8(1), schemas::of(Type::Int8)) == "SMALLINT");
  BOOST_TEST(type(Value::int32(1), schemas::int32()) == "INTEGER");
  BOOST_TEST(type(Value::int64(1), schemas::int64()) == "BIGINT");
  BOOST_TEST(type(Value::float64(1), schemas::of(Type::Float64)) == "DOUBLE PRECISION");
  BOOST_TEST(type(Value::float32(1), schemas::of(Type::Float32)) == "REAL");
  BOOST_TEST(type(Value::boolean(true), schemas::of(Type::Boolean)) == "BOOLEAN");
  BOOST_TEST(type(Value::bytes("x"), schemas::of(Type::Bytes)) == "BYTEA");
  BOOST_TEST(type(Value::bytes("x"), SchemaBuilder::decimal(2).build()) == "NUMERIC");
  BOOST_TEST(type(Value::int64(1), SchemaBuilder::timestamp().build()) == "TIMESTAMP");
  BOOST_TEST(type(Value::int32(1), SchemaBuilder::date().build()) == "DATE");
  BOOST_TEST(type(Value::int32(1), SchemaBuilder::time().build()) == "TIME");
  BOOST_TEST(type(Value(), SchemaBuilder::array(schemas::int32()).build()) == "JSONB");
  Arena arena;
  BOOST_TEST(std::string(postgres_type(Column{"c", Value::map(arena, 1), nullptr})) == "JSONB");
  BOOST_TEST(std::string(postgres_type(Column{"c", Value::int64(1), nullptr})) == "BIGINT");
  BOOST_TEST(std::string(postgres_type(Column{"c", Value(), nullptr})) == "TEXT");
}

BOOST_AUTO_TEST_SUITE_END()
