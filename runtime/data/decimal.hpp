// Connect's Decimal logical type in weir's value model: the value is Bytes holding
// the unscaled integer (big-endian two's complement, as BigInteger.toByteArray), the
// scale is the schema's `scale` parameter. Arithmetic here is limited to unscaled
// values of at most 128 bits (38 decimal digits, the usual DECIMAL(38, s) maximum);
// larger ones raise DataError where Java's BigDecimal would go on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace weir::runtime::data {

using int128 = __int128;

/// The unscaled integer of decimal bytes; throws DataError beyond 128 bits or empty.
int128 decimal_unscaled(std::string_view bytes);
/// Minimal two's complement big-endian bytes of `unscaled` (BigInteger.toByteArray).
std::string decimal_bytes(int128 unscaled);
/// Parses decimal text (`-12.5`, `1e3`) as an unscaled integer at `scale`; throws
/// DataError if that loses digits (Java's setScale without rounding) or overflows.
int128 decimal_parse(std::string_view text, int32_t scale);
/// new BigDecimal(text): the unscaled value and the scale the text implies
/// (`1.50` -> {150, 2}, `1e3` -> {1, -3}); throws DataError for non-numbers.
struct ParsedDecimal {
  int128 unscaled;
  int32_t scale;
};
ParsedDecimal decimal_parse_natural(std::string_view text);
/// Rescales exactly; throws DataError when digits would be lost.
int128 decimal_rescale(int128 unscaled, int32_t from_scale, int32_t to_scale);
/// BigDecimal.toString(): plain unless the exponent calls for scientific notation.
std::string decimal_to_string(int128 unscaled, int32_t scale);
/// BigDecimal.doubleValue() / longValue() (fraction truncated, then low 64 bits).
double decimal_to_double(int128 unscaled, int32_t scale);
int64_t decimal_to_long(int128 unscaled, int32_t scale);
/// Decimal digits of |v|.
std::string int128_digits(int128 v);

} // namespace weir::runtime::data
