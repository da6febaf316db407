#include "connectors/jdbc/postgres_values.hpp"

#include <boost/test/unit_test.hpp>

#include "runtime/data/decimal.hpp"
#include "runtime/data/errors.hpp"

using namespace weir::connectors::jdbc;
using namespace weir::runtime::data;

namespace {

/// Big-endian bytes of the given 16-bit words.
std::string words(std::initializer_list<int> w) {
  std::string out;
  for (int v : w) {
    out += static_cast<char>((v >> 8) & 0xff);
    out += static_cast<char>(v & 0xff);
  }
  return out;
}

std::string be64(int64_t v) {
  std::string out;
  for (int i = 7; i >= 0; --i)
    out += static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
  return out;
}

std::string be32(int32_t v) { return be64(v).substr(4); }

PgColumn column(uint32_t oid, int32_t typmod = -1, bool not_null = false, uint32_t element = 0) {
  return {"c", oid, typmod, element, "type", not_null};
}

int32_t numeric_typmod(int precision, int scale) { return ((precision << 16) | scale) + 4; }

} // namespace

BOOST_AUTO_TEST_SUITE(postgres_values)

BOOST_AUTO_TEST_CASE(numeric_binary_reads_as_its_text) {
  // 12345.678: weight 1, digits 1 2345 6780, dscale 3
  BOOST_TEST(*numeric_text(words({3, 1, 0, 3, 1, 2345, 6780})) == "12345.678");
  // -0.05: weight -1, digit 500, dscale 2
  BOOST_TEST(*numeric_text(words({1, -1, 0x4000, 2, 500})) == "-0.05");
  // 0 with dscale 2
  BOOST_TEST(*numeric_text(words({0, 0, 0, 2})) == "0.00");
  // 20000 (weight 1, digit 2, trailing zero group dropped)
  BOOST_TEST(*numeric_text(words({1, 1, 0, 0, 2})) == "20000");
  BOOST_TEST(!numeric_text(words({0, 0, 0xC000, 0})).has_value()); // NaN
}

BOOST_AUTO_TEST_CASE(decimal_bytes_are_big_integer_twos_complement_at_the_scale) {
  BOOST_TEST(static_cast<int64_t>(decimal_unscaled(decimal_bytes_of("12.5", 2))) == 1250);
  BOOST_TEST(static_cast<int64_t>(decimal_unscaled(decimal_bytes_of("-12.5", 2))) == -1250);
  BOOST_TEST(static_cast<int64_t>(decimal_unscaled(decimal_bytes_of("0.125", 2))) == 13); // half up
  BOOST_TEST(static_cast<int64_t>(decimal_unscaled(decimal_bytes_of("-128", 0))) == -128);
  BOOST_TEST(decimal_bytes_of("-128", 0) == std::string(1, '\x80'));
  BOOST_TEST(decimal_bytes_of("128", 0) == std::string("\x00\x80", 2));
  BOOST_TEST(decimal_bytes_of("0", 5) == std::string(1, '\0'));
  // Beyond 128 bits: an unconstrained numeric at Confluent's scale 127.
  auto big = decimal_bytes_of("1.5", 127);
  BOOST_TEST(big.size() > 16u);
  BOOST_TEST((static_cast<unsigned char>(big[0]) & 0x80) == 0);
}

BOOST_AUTO_TEST_CASE(numeric_mapping_chooses_confluents_schemas) {
  auto decimal = plan_column(column(1700, numeric_typmod(10, 2)), NumericMapping::None);
  BOOST_TEST((decimal.schema->logical() == Logical::Decimal));
  BOOST_TEST(decimal.schema->decimal_scale() == 2);
  BOOST_TEST(*decimal.schema->parameter("connect.decimal.precision") == "10");

  auto unconstrained = plan_column(column(1700), NumericMapping::BestFit);
  BOOST_TEST(unconstrained.schema->decimal_scale() == 127);

  BOOST_TEST((plan_column(column(1700, numeric_typmod(9, 0)), NumericMapping::PrecisionOnly).schema->type() == Type::Int32));
  BOOST_TEST((plan_column(column(1700, numeric_typmod(18, 0)), NumericMapping::PrecisionOnly).schema->type() == Type::Int64));
  BOOST_TEST((plan_column(column(1700, numeric_typmod(2, 0)), NumericMapping::PrecisionOnly).schema->type() == Type::Int8));
  BOOST_TEST((plan_column(column(1700, numeric_typmod(10, 2)), NumericMapping::PrecisionOnly).schema->logical() == Logical::Decimal));
  BOOST_TEST((plan_column(column(1700, numeric_typmod(10, 2)), NumericMapping::BestFit).schema->type() == Type::Float64));
  BOOST_TEST((plan_column(column(1700, numeric_typmod(30, 2)), NumericMapping::BestFit).schema->logical() == Logical::Decimal));
  BOOST_TEST((plan_column(column(1700, numeric_typmod(30, 2)), NumericMapping::BestFitEagerDouble).schema->type() == Type::Float64));
  BOOST_TEST((plan_column(column(1700, numeric_typmod(30, 0)), NumericMapping::BestFitEagerDouble).schema->logical() == Logical::Decimal));
}

BOOST_AUTO_TEST_CASE(types_map_as_confluent_maps_them) {
  BOOST_TEST((plan_column(column(16, -1, true), NumericMapping::None).schema->type() == Type::Boolean));
  BOOST_TEST(!plan_column(column(16, -1, true), NumericMapping::None).schema->optional());
  BOOST_TEST((plan_column(column(21), NumericMapping::None).schema->type() == Type::Int16));
  BOOST_TEST((plan_column(column(23), NumericMapping::None).schema->type() == Type::Int32));
  BOOST_TEST((plan_column(column(20), NumericMapping::None).schema->type() == Type::Int64));
  BOOST_TEST((plan_column(column(700), NumericMapping::None).schema->type() == Type::Float32));
  BOOST_TEST((plan_column(column(3802), NumericMapping::None).schema->type() == Type::String));
  BOOST_TEST((plan_column(column(2950), NumericMapping::None).schema->type() == Type::String));
  BOOST_TEST((plan_column(column(17), NumericMapping::None).schema->type() == Type::Bytes));
  BOOST_TEST((plan_column(column(1082), NumericMapping::None).schema->logical() == Logical::Date));
  BOOST_TEST((plan_column(column(1083), NumericMapping::None).schema->logical() == Logical::Time));
  BOOST_TEST((plan_column(column(1184), NumericMapping::None).schema->logical() == Logical::Timestamp));
  auto array = plan_column(column(1007, -1, false, 23), NumericMapping::None);
  BOOST_TEST((array.schema->type() == Type::Array));
  BOOST_TEST((array.schema->value_schema()->type() == Type::Int32));
  BOOST_TEST(!plan_column(column(600), NumericMapping::None).schema); // point: left out
}

BOOST_AUTO_TEST_CASE(binary_values_decode) {
  Arena arena;
  auto ts = plan_column(column(1114), NumericMapping::None);
  // 2000-01-01 00:00:01.5 is 1.5 s after PostgreSQL's epoch.
  BOOST_TEST(decode_binary(ts, be64(1500000), arena, "ts").as_int() == 946684801500);
  BOOST_TEST(binary_timestamp_micros(be64(1500000)) == 946684801500000);
  auto date = plan_column(column(1082), NumericMapping::None);
  BOOST_TEST(decode_binary(date, be32(-10957), arena, "d").as_int() == 0);
  BOOST_CHECK_THROW(decode_binary(date, be32(INT32_MAX), arena, "d"), DataError);
  auto uuid = plan_column(column(2950), NumericMapping::None);
  std::string raw(16, '\0');
  raw[0] = '\x12';
  raw[15] = '\xff';
  BOOST_TEST(decode_binary(uuid, raw, arena, "u").as_string() == "12000000-0000-0000-0000-0000000000ff");
  auto jsonb = plan_column(column(3802), NumericMapping::None);
  BOOST_TEST(decode_binary(jsonb, "\x01{\"a\": 1}", arena, "j").as_string() == "{\"a\": 1}");
  auto money = plan_column(column(1700, numeric_typmod(10, 2)), NumericMapping::None);
  BOOST_TEST(static_cast<int64_t>(decimal_unscaled(decode_binary(money, words({2, 0, 0, 2, 12, 5000}), arena, "m").as_string())) == 1250);
  BOOST_TEST(static_cast<int64_t>(decimal_unscaled(decode_binary(money, words({1, -1, 0x4000, 2, 500}), arena, "m").as_string())) == -5);
  BOOST_TEST(static_cast<int64_t>(decimal_unscaled(decode_binary(money, words({1, 1, 0, 0, 2}), arena, "m").as_string())) == 2000000);
  BOOST_TEST(static_cast<int64_t>(decimal_unscaled(decode_binary(money, words({0, 0, 0, 2}), arena, "m").as_string())) == 0);
  // More digits than the scale (a value PostgreSQL rounded differently): rounded half up.
  BOOST_TEST(static_cast<int64_t>(decimal_unscaled(decode_binary(money, words({2, 0, 0, 3, 1, 2350}), arena, "m").as_string())) == 124);
  auto narrow = plan_column(column(1700, numeric_typmod(9, 0)), NumericMapping::PrecisionOnly);
  BOOST_TEST(decode_binary(narrow, words({2, 1, 0x4000, 0, 12, 3456}), arena, "n").as_int() == -123456);
  BOOST_CHECK_THROW(decode_binary(money, words({0, 0, 0xC000, 0}), arena, "m"), DataError);
  auto eager = plan_column(column(1700, numeric_typmod(10, 2)), NumericMapping::BestFit);
  BOOST_TEST(decode_binary(eager, words({2, 0, 0, 2, 12, 5000}), arena, "m").as_double() == 12.5);
  BOOST_TEST(binary_integer(be32(-7)) == -7);

  // int4[] {1, NULL, 3}: ndim 1, has nulls, element oid 23, size 3, lower bound 1.
  auto ints = plan_column(column(1007, -1, false, 23), NumericMapping::None);
  std::string array = be32(1) + be32(1) + be32(23) + be32(3) + be32(1) + be32(4) + be32(1) + be32(-1) + be32(4) + be32(3);
  auto v = decode_binary(ints, array, arena, "a");
  BOOST_TEST(v.size() == 3u);
  BOOST_TEST(v.items()[0].as_int() == 1);
  BOOST_TEST(v.items()[1].is_null());
  BOOST_TEST(v.items()[2].as_int() == 3);
  std::string matrix = be32(2) + be32(0) + be32(23) + be32(1) + be32(1) + be32(1) + be32(1);
  BOOST_CHECK_THROW(decode_binary(ints, matrix, arena, "a"), DataError);
}

BOOST_AUTO_TEST_SUITE_END()
