#include "runtime/data/decimal.hpp"

#include <boost/test/unit_test.hpp>

#include "runtime/data/errors.hpp"

using namespace weir::runtime::data;

BOOST_AUTO_TEST_SUITE(decimal)

BOOST_AUTO_TEST_CASE(bytes_round_trip_like_biginteger) {
  // BigInteger.toByteArray: minimal two's complement.
  BOOST_TEST(decimal_bytes(0) == std::string("\x00", 1));
  BOOST_TEST(decimal_bytes(127) == "\x7f");
  BOOST_TEST(decimal_bytes(128) == std::string("\x00\x80", 2));
  BOOST_TEST(decimal_bytes(-1) == "\xff");
  BOOST_TEST(decimal_bytes(-129) == "\xff\x7f");
  for (int128 v : {int128(0), int128(1), int128(-1), int128(1234567), int128(-98765432109876LL)})
    BOOST_TEST((decimal_unscaled(decimal_bytes(v)) == v));
}

BOOST_AUTO_TEST_CASE(parse_rescales_exactly) {
  BOOST_TEST((decimal_parse("12.34", 2) == 1234));
  BOOST_TEST((decimal_parse("12.3", 2) == 1230));
  BOOST_TEST((decimal_parse("-0.5", 1) == -5));
  BOOST_TEST((decimal_parse("1e3", 0) == 1000));
  BOOST_TEST((decimal_parse("12.340", 2) == 1234));
  BOOST_CHECK_THROW(decimal_parse("12.345", 2), DataError);
  BOOST_CHECK_THROW(decimal_parse("abc", 2), DataError);
}

BOOST_AUTO_TEST_CASE(to_string_matches_bigdecimal) {
  struct Row {
    int64_t unscaled;
    int32_t scale;
    const char* expected;
  };
  for (auto r : {Row{1234, 2, "12.34"}, Row{-5, 1, "-0.5"}, Row{5, 3, "0.005"}, Row{0, 2, "0.00"},
                 Row{123, 0, "123"}, Row{1, -3, "1E+3"}, Row{12, 10, "1.2E-9"}})
    BOOST_TEST(decimal_to_string(r.unscaled, r.scale) == r.expected);
}

BOOST_AUTO_TEST_CASE(numeric_values) {
  BOOST_TEST(decimal_to_double(1234, 2) == 12.34);
  BOOST_TEST(decimal_to_long(1299, 2) == 12);
  BOOST_TEST(decimal_to_long(-1299, 2) == -12);
}

BOOST_AUTO_TEST_SUITE_END()
