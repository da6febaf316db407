#include "runtime/data/decimal.hpp"

#include <cmath>
#include <cstdlib>

#include "runtime/data/errors.hpp"

namespace weir::runtime::data {

namespace {

constexpr int128 int128_max = static_cast<int128>((~static_cast<unsigned __int128>(0)) >> 1);

bool mul10(int128& v, int digit) {
  if (v > (int128_max - digit) / 10)
    return false;
  v = v * 10 + digit;
  return true;
}

} // namespace

int128 decimal_unscaled(std::string_view bytes) {
  if (bytes.empty())
    throw DataError("Invalid bytes for Decimal field: empty");
  if (bytes.size() > 16)
    throw DataError("Decimal unscaled value wider than 128 bits is not supported");
  // Sign-extend from the first byte.
  unsigned __int128 u = static_cast<int8_t>(bytes[0]) < 0 ? ~static_cast<unsigned __int128>(0) : 0;
  for (char c : bytes)
    u = (u << 8) | static_cast<uint8_t>(c);
  return static_cast<int128>(u);
}

std::string decimal_bytes(int128 unscaled) {
  char buf[16];
  auto u = static_cast<unsigned __int128>(unscaled);
  for (int i = 15; i >= 0; --i) {
    buf[i] = static_cast<char>(u & 0xff);
    u >>= 8;
  }
  // Drop leading bytes that only repeat the sign.
  int start = 0;
  while (start < 15) {
    auto b = static_cast<uint8_t>(buf[start]);
    auto next = static_cast<uint8_t>(buf[start + 1]);
    if ((b == 0x00 && next < 0x80) || (b == 0xff && next >= 0x80))
      ++start;
    else
      break;
  }
  return std::string(buf + start, 16 - start);
}

int128 decimal_parse(std::string_view text, int32_t scale) {
  auto fail = [&](const char* why) -> int128 {
    throw DataError("Invalid decimal value " + std::string(text) + ": " + why);
  };
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+'))
    negative = text[i++] == '-';
  int128 v = 0;
  int32_t frac_digits = 0;
  bool seen_point = false, any_digit = false;
  // Digits beyond 38 are kept only while they are zeros we can drop later.
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.') {
      if (seen_point)
        return fail("two decimal points");
      seen_point = true;
    } else if (c >= '0' && c <= '9') {
      any_digit = true;
      if (!mul10(v, c - '0'))
        return fail("more than 38 digits");
      if (seen_point)
        ++frac_digits;
    } else if (c == 'e' || c == 'E') {
      break;
    } else {
      return fail("not a number");
    }
  }
  if (!any_digit)
    return fail("not a number");
  int64_t exponent = 0;
  if (i < text.size()) {
    char* end = nullptr;
    std::string exp_text(text.substr(i + 1));
    exponent = std::strtoll(exp_text.c_str(), &end, 10);
    if (exp_text.empty() || *end != '\0')
      return fail("bad exponent");
  }
  // value = v * 10^(exponent - frac_digits); we need v * 10^(exponent - frac_digits + scale).
  int64_t shift = exponent - frac_digits + scale;
  for (; shift > 0; --shift)
    if (!mul10(v, 0))
      return fail("more than 38 digits");
  for (; shift < 0; ++shift) {
    if (v % 10 != 0)
      throw DataError("Invalid decimal value " + std::string(text) + ": scale " + std::to_string(scale)
                      + " would need rounding");
    v /= 10;
  }
  return negative ? -v : v;
}

ParsedDecimal decimal_parse_natural(std::string_view text) {
  // Count the fraction digits and the exponent, then parse at exactly that scale.
  int64_t frac = 0, exponent = 0;
  size_t e = text.find_first_of("eE");
  std::string_view mantissa = text.substr(0, e);
  if (auto dot = mantissa.find('.'); dot != std::string_view::npos)
    frac = static_cast<int64_t>(mantissa.size() - dot - 1);
  if (e != std::string_view::npos) {
    std::string exp_text(text.substr(e + 1));
    char* end = nullptr;
    exponent = std::strtoll(exp_text.c_str(), &end, 10);
    if (exp_text.empty() || *end != '\0')
      throw DataError("Invalid decimal value " + std::string(text) + ": bad exponent");
  }
  int64_t scale = frac - exponent;
  if (scale > INT32_MAX || scale < INT32_MIN)
    throw DataError("Invalid decimal value " + std::string(text) + ": scale out of range");
  return {decimal_parse(text, static_cast<int32_t>(scale)), static_cast<int32_t>(scale)};
}

int128 decimal_rescale(int128 unscaled, int32_t from_scale, int32_t to_scale) {
  int128 v = unscaled;
  for (int32_t s = from_scale; s < to_scale; ++s) {
    if (v > int128_max / 10 || v < -(int128_max / 10))
      throw DataError("Decimal value too large to rescale");
    v *= 10;
  }
  for (int32_t s = from_scale; s > to_scale; --s) {
    if (v % 10 != 0)
      throw DataError("Decimal scale " + std::to_string(from_scale) + " cannot be reduced to "
                      + std::to_string(to_scale) + " without rounding");
    v /= 10;
  }
  return v;
}

std::string int128_digits(int128 v) {
  auto u = v < 0 ? static_cast<unsigned __int128>(-(v + 1)) + 1 : static_cast<unsigned __int128>(v);
  if (u == 0)
    return "0";
  std::string s;
  while (u) {
    s += static_cast<char>('0' + static_cast<int>(u % 10));
    u /= 10;
  }
  return std::string(s.rbegin(), s.rend());
}

std::string decimal_to_string(int128 unscaled, int32_t scale) {
  std::string digits = int128_digits(unscaled);
  std::string out = unscaled < 0 ? "-" : "";
  int64_t adjusted = -static_cast<int64_t>(scale) + static_cast<int64_t>(digits.size() - 1);
  if (scale >= 0 && adjusted >= -6) {
    if (scale == 0) {
      out += digits;
    } else if (static_cast<int64_t>(digits.size()) > scale) {
      out += digits.substr(0, digits.size() - scale);
      out += '.';
      out += digits.substr(digits.size() - scale);
    } else {
      out += "0.";
      out.append(static_cast<size_t>(scale) - digits.size(), '0');
      out += digits;
    }
    return out;
  }
  out += digits[0];
  if (digits.size() > 1) {
    out += '.';
    out += digits.substr(1);
  }
  out += 'E';
  if (adjusted >= 0)
    out += '+';
  out += std::to_string(adjusted);
  return out;
}

double decimal_to_double(int128 unscaled, int32_t scale) {
  // Via text, so the result is the correctly rounded double of the exact decimal.
  std::string s = int128_digits(unscaled) + "e" + std::to_string(-static_cast<int64_t>(scale));
  double d = std::strtod(s.c_str(), nullptr);
  return unscaled < 0 ? -d : d;
}

int64_t decimal_to_long(int128 unscaled, int32_t scale) {
  int128 v = unscaled;
  for (int32_t s = scale; s > 0 && v != 0; --s)
    v /= 10; // truncates toward zero, like BigDecimal.toBigInteger
  for (int32_t s = scale; s < 0; ++s)
    v *= 10; // wraps like BigInteger.longValue for huge values
  return static_cast<int64_t>(static_cast<uint64_t>(static_cast<unsigned __int128>(v)));
}

} // namespace weir::runtime::data
