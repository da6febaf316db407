#include "runtime/convert/json_number.hpp"

#include <cmath>
#include <cstring>

#include <boost/test/unit_test.hpp>

using namespace weir::runtime::convert;

namespace {

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof a) == 0;
}

} // namespace

// Expected values are what Java gives for the node Jackson builds in Connect
// (BigIntegerNode / DecimalNode / IntNode / LongNode): BigInteger.longValue() and
// intValue() keep the low 64 / 32 bits, (byte) and (short) then narrow further,
// BigDecimal.longValue() truncates toward zero first. Worked out with exact integer
// arithmetic (e.g. 123456789012345678901234567890 mod 2^64 = 2^64 - 4362896299872285998).
BOOST_AUTO_TEST_SUITE(json_number_values)

BOOST_AUTO_TEST_CASE(integers_wider_than_64_bits_keep_their_low_bits) {
  BOOST_TEST(json_number::long_value("123456789012345678901234567890") == -4362896299872285998);
  BOOST_TEST(json_number::int_value("123456789012345678901234567890") == 1312754386);
  BOOST_TEST(static_cast<int8_t>(json_number::int_value("123456789012345678901234567890")) == -46);
  BOOST_TEST(static_cast<int16_t>(json_number::int_value("123456789012345678901234567890")) == 2770);
  BOOST_TEST(json_number::long_value("-123456789012345678901234567890") == 4362896299872285998);
  BOOST_TEST(json_number::long_value("-1180591620717411303424") == 0);          // -2^70
  BOOST_TEST(json_number::long_value("-1180591620717411315769") == -12345);     // -2^70 - 12345
  BOOST_TEST(json_number::long_value("18446744073709551617") == 1);             // 2^64 + 1
  BOOST_TEST(json_number::long_value("-9223372036854775808") == INT64_MIN);
  BOOST_TEST(json_number::long_value("-0") == 0);
}

BOOST_AUTO_TEST_CASE(fractions_truncate_then_keep_their_low_bits) {
  BOOST_TEST(json_number::long_value("3.99") == 3);
  BOOST_TEST(json_number::long_value("-3.99") == -3);
  BOOST_TEST(json_number::long_value("9.99e-1") == 0);
  BOOST_TEST(json_number::long_value("12345e-2") == 123);
  BOOST_TEST(json_number::long_value("12345.678e2") == 1234567);
  BOOST_TEST(json_number::long_value("1.5E3") == 1500);
  BOOST_TEST(json_number::long_value("1e19") == -8446744073709551616);      // 10^19 - 2^64
  BOOST_TEST(json_number::long_value("-1e20") == -7766279631452241920);     // -(10^20 mod 2^64)
  BOOST_TEST(json_number::int_value("1e19") == -1981284352);
  BOOST_TEST(json_number::long_value("1e400") == 0);                        // 10^400 is a multiple of 2^64
  BOOST_TEST(json_number::long_value("1e-400") == 0);
  BOOST_TEST(json_number::int_value("4294967297.5") == 1);
}

BOOST_AUTO_TEST_CASE(is_int_is_an_integer_in_int32_range) {
  BOOST_TEST(json_number::is_int("2147483647"));
  BOOST_TEST(json_number::is_int("-2147483648"));
  BOOST_TEST(json_number::is_int("-0"));
  BOOST_TEST(!json_number::is_int("2147483648"));
  BOOST_TEST(!json_number::is_int("18446744073709551615"));
  BOOST_TEST(!json_number::is_int("4294967296"));
  BOOST_TEST(!json_number::is_int("1.0"));
  BOOST_TEST(!json_number::is_int("1e2"));
  BOOST_TEST(json_number::is_int("-0000000000002147483648")); // leading zeros count for nothing
  BOOST_TEST(!json_number::is_int("0002147483648"));
  BOOST_TEST(json_number::is_int("000"));
}

// Connect's JsonDeserializer allows leading zeros (ALLOW_LEADING_ZEROS_FOR_NUMBERS).
BOOST_AUTO_TEST_CASE(leading_zeros_count_for_nothing) {
  BOOST_TEST(json_number::is_token("007"));
  BOOST_TEST(json_number::is_token("-00.50e01"));
  BOOST_TEST(json_number::long_value("007") == 7);
  BOOST_TEST(json_number::long_value("-0018446744073709551617") == -1);
  BOOST_TEST(json_number::double_value("-00.50e01") == -5.0);
  std::string zeros(2000, '0');
  BOOST_TEST(!json_number::problem(zeros + "1").has_value(), "Jackson counts digits after the zeros it skips");
  BOOST_TEST(!json_number::problem(zeros).has_value());
}

BOOST_AUTO_TEST_CASE(floating_values_are_rounded_once_from_the_exact_number) {
  // BigInteger.doubleValue() / floatValue(): correctly rounded.
  BOOST_TEST(same_bits(json_number::double_value("123456789012345678901234567890"), 0x1.8ee90ff6c373ep+96));
  BOOST_TEST(same_bits(json_number::float_value("123456789012345678901234567890"), 0x1.8ee91p+96f));
  // (float) of the long 2^60 + 2^36 + 1 rounds up to 2^60 + 2^37; through a double it
  // would first become 2^60 + 2^36, a tie, and then round to even, 2^60.
  BOOST_TEST(same_bits(json_number::float_value("1152921573326323713"), 0x1.000002p+60f));
  BOOST_TEST(same_bits(json_number::double_value("0.1"), 0.1));
  BOOST_TEST(same_bits(json_number::float_value("0.1"), 0.1f));
  BOOST_TEST(std::isinf(json_number::double_value("1e400")));
  BOOST_TEST(std::isinf(json_number::float_value("1e39")));
  BOOST_TEST(std::isinf(json_number::double_value("-" + std::string(400, '9'))));
  // An exact zero has no sign (IntNode 0, BigDecimal); an underflow keeps its sign.
  for (const char* zero : {"-0", "-0.0", "-0.000e7", "0e-5"}) {
    BOOST_TEST(same_bits(json_number::double_value(zero), 0.0), zero);
    BOOST_TEST(same_bits(json_number::float_value(zero), 0.0f), zero);
  }
  BOOST_TEST(same_bits(json_number::double_value("-1e-400"), -0.0));
  BOOST_TEST(same_bits(json_number::float_value("-1e-50"), -0.0f));
}

BOOST_AUTO_TEST_CASE(numbers_jackson_refuses) {
  std::string thousand(1000, '7');
  BOOST_TEST(!json_number::problem(thousand).has_value());
  BOOST_TEST(!json_number::problem("-" + thousand).has_value());
  BOOST_TEST(!json_number::problem(std::string(500, '1') + "." + std::string(490, '2') + "e-1234567890").has_value());
  auto too_long = json_number::problem(thousand + "1");
  BOOST_REQUIRE(too_long);
  BOOST_TEST(too_long->find("Number value length (1001) exceeds the maximum allowed (1000") == 0);
  BOOST_TEST(json_number::problem("1." + thousand).has_value()); // 1001 digits in all
  // new BigDecimal(...): exponent and scale must be ints, at most 10 exponent digits.
  BOOST_TEST(!json_number::problem("1e2147483647").has_value());
  BOOST_TEST(!json_number::problem("1e0000000000005").has_value());
  BOOST_TEST(json_number::problem("1e12345678901")->find("Too many nonzero exponent digits") != std::string::npos);
  BOOST_TEST(json_number::problem("1e2147483648")->find("Exponent overflow") != std::string::npos);
  BOOST_TEST(json_number::problem("1e-2147483648")->find("Scale out of range") != std::string::npos);
  BOOST_TEST(json_number::problem("0.5e-2147483647")->find("Scale out of range") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(tokens_follow_json_grammar_with_leading_zeros) {
  BOOST_TEST(json_number::is_token("-0.5E+7"));
  BOOST_TEST(json_number::is_token("01"));
  BOOST_TEST(!json_number::is_token("1."));
  BOOST_TEST(!json_number::is_token("-"));
  BOOST_TEST(!json_number::is_token("+1"));
  BOOST_TEST(!json_number::is_token("1.e5"));
  BOOST_TEST(!json_number::is_token("1e"));
  BOOST_TEST(!json_number::is_token(".5"));
}

BOOST_AUTO_TEST_SUITE_END()
