// A JSON number token read as Kafka's JsonConverter reads it, from its exact text.
//
// Connect's JsonDeserializer builds Jackson's tree with exact BigDecimals
// (USE_BIG_DECIMAL_FOR_FLOATS, JsonNodeFactory(true)): an integer token becomes an
// IntNode, LongNode or BigIntegerNode by its size, and a token with a fraction or an
// exponent a DecimalNode holding the exact text. JsonConverter then calls those nodes'
// intValue()/longValue()/floatValue()/doubleValue()/isInt() (TO_CONNECT_CONVERTERS,
// the Date/Time/Timestamp converters, schemaless INT64/FLOAT64 inference), and
// decimalValue() for a Decimal. The functions here give the same results, value for
// value, without building a BigInteger or BigDecimal.
//
// Both JSON readers use them: the schemaless fast decoder (json_fast_decode.cpp) for
// its rare cases, and the envelope reader (json_dom_numbers.hpp) for every number
// whose value alone does not settle the result.
//
// A token here is valid by JSON's grammar with leading zeros allowed, as Connect's
// JsonDeserializer allows them (ALLOW_LEADING_ZEROS_FOR_NUMBERS, KAFKA-15012):
// -?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)? (check with is_token()). Leading zeros count
// for nothing: `007` is 7, `-00.50` is -0.50.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace weir::runtime::convert::json_number {

/// Jackson's StreamReadConstraints.DEFAULT_MAX_NUM_LEN (2.15 and later; Kafka uses
/// 2.16): a number with more digits (integer, fraction and exponent digits together)
/// fails the whole record.
inline constexpr size_t max_digits = 1000;

/// Whether `token` is a whole JSON number (leading zeros allowed).
bool is_token(std::string_view token) noexcept;

/// An integer token (no fraction, no exponent): Jackson's isIntegralNumber().
inline bool integral(std::string_view token) noexcept {
  return token.find_first_of(".eE") == std::string_view::npos;
}

/// Why Connect's Jackson refuses the token, or nothing: more than max_digits digits
/// (StreamReadConstraints), or an exponent or scale that java.math.BigDecimal cannot
/// hold (an int32 each; new BigDecimal("1e9999999999") throws). Kafka wraps either in a
/// DataException for the whole record.
std::optional<std::string> problem(std::string_view token);

/// longValue(): an integer's low 64 bits (Java's long, BigInteger.longValue()); a
/// fraction truncated toward zero first (BigDecimal.longValue()), so 1e19 gives
/// 10^19 - 2^64 and 1e400 gives 0.
int64_t long_value(std::string_view token) noexcept;

/// intValue(): the low 32 bits of longValue() (Java's (int) of a long,
/// BigInteger.intValue(), BigDecimal.intValue()).
inline int32_t int_value(std::string_view token) noexcept {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(long_value(token))));
}

/// isInt(): an integer token within int32's range (an IntNode); what Connect's Date
/// and Time converters require.
bool is_int(std::string_view token) noexcept;

/// doubleValue() / floatValue(): the correctly rounded value of the exact number
/// (overflow gives an infinity, underflow a zero of the number's sign), except that a
/// number whose digits are all zero is +0.0 (`-0`, `-0.0`: IntNode 0, BigDecimal has
/// no negative zero). floatValue() rounds the exact number once, not through a double.
double double_value(std::string_view token) noexcept;
float float_value(std::string_view token) noexcept;

} // namespace weir::runtime::convert::json_number
