#include "runtime/convert/json_number.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string>

namespace weir::runtime::convert::json_number {

namespace {

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// A token's parts: its sign, the digits before and after the point, and the exponent's
// text (digits with an optional sign; empty without one).
struct Parts {
  bool negative;
  std::string_view whole;
  std::string_view fraction;
  std::string_view exponent;
};

Parts split(std::string_view t) noexcept {
  Parts p{};
  p.negative = !t.empty() && t[0] == '-';
  t.remove_prefix(p.negative ? 1 : 0);
  if (size_t e = t.find_first_of("eE"); e != std::string_view::npos) {
    p.exponent = t.substr(e + 1);
    t = t.substr(0, e);
  }
  if (size_t dot = t.find('.'); dot != std::string_view::npos) {
    p.fraction = t.substr(dot + 1);
    t = t.substr(0, dot);
  }
  p.whole = t;
  return p;
}

// The exponent's value, saturated far beyond anything that matters here (long_value
// needs at most 64 + the digits' count; problem() checks the int32 range first).
int64_t exponent_value(std::string_view e) noexcept {
  bool negative = !e.empty() && e[0] == '-';
  if (!e.empty() && (e[0] == '-' || e[0] == '+'))
    e.remove_prefix(1);
  constexpr int64_t cap = int64_t{1} << 40;
  int64_t v = 0;
  for (char c : e)
    v = v >= cap ? cap : v * 10 + (c - '0');
  return negative ? -v : v;
}

bool all_zero_digits(const Parts& p) noexcept {
  for (std::string_view digits : {p.whole, p.fraction})
    for (char c : digits)
      if (c != '0')
        return false;
  return true;
}

// from_chars for the common case; strtod/strtof (which need a terminated copy) where
// from_chars reports a range error and leaves its result unset: overflow to an
// infinity, underflow to zero, as Java's conversions do.
template <class T, class Strto>
T nearest(std::string_view t, Strto strto) noexcept {
  Parts p = split(t);
  if (all_zero_digits(p))
    return T(0);
  T v{};
  auto r = std::from_chars(t.data(), t.data() + t.size(), v);
  if (r.ec == std::errc::result_out_of_range) {
    std::string text(t);
    v = strto(text.c_str(), nullptr);
  }
  return v;
}

} // namespace

bool is_token(std::string_view t) noexcept {
  size_t i = 0, n = t.size();
  if (i < n && t[i] == '-')
    ++i;
  if (i >= n || !is_digit(t[i]))
    return false;
  while (i < n && is_digit(t[i]))
    ++i;
  if (i < n && t[i] == '.') {
    if (++i >= n || !is_digit(t[i]))
      return false;
    while (i < n && is_digit(t[i]))
      ++i;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    if (++i < n && (t[i] == '+' || t[i] == '-'))
      ++i;
    if (i >= n || !is_digit(t[i]))
      return false;
    while (i < n && is_digit(t[i]))
      ++i;
  }
  return i == n;
}

std::optional<std::string> problem(std::string_view t) {
  Parts p = split(t);
  std::string_view exp_digits = p.exponent;
  if (!exp_digits.empty() && (exp_digits[0] == '-' || exp_digits[0] == '+'))
    exp_digits.remove_prefix(1);
  // Jackson skips leading zeros before it counts (all but one when only zeros).
  size_t whole = p.whole.size() - std::min(p.whole.find_first_not_of('0'), p.whole.size() - 1);
  size_t digits = whole + p.fraction.size() + exp_digits.size();
  if (digits > max_digits)
    return "Number value length (" + std::to_string(digits) + ") exceeds the maximum allowed ("
           + std::to_string(max_digits) + ", from `StreamReadConstraints.getMaxNumberLength()`)";
  if (integral(t))
    return std::nullopt; // a BigInteger of any such length
  // java.math.BigDecimal(String): at most 10 exponent digits after leading zeros, an
  // int exponent, and an int scale (fraction digits minus the exponent).
  const char* why = nullptr;
  size_t first = exp_digits.find_first_not_of('0');
  if (first != std::string_view::npos && exp_digits.size() - first > 10) {
    why = "Too many nonzero exponent digits.";
  } else {
    int64_t exponent = exponent_value(p.exponent);
    int64_t scale = static_cast<int64_t>(p.fraction.size()) - exponent;
    if (exponent != static_cast<int32_t>(exponent))
      why = "Exponent overflow.";
    else if (scale != static_cast<int32_t>(scale))
      why = "Scale out of range.";
  }
  if (why == nullptr)
    return std::nullopt;
  return "Malformed numeric value (" + std::string(t.substr(0, 64)) + (t.size() > 64 ? "..." : "") + "): " + why;
}

int64_t long_value(std::string_view t) noexcept {
  Parts p = split(t);
  int64_t exponent = exponent_value(p.exponent);
  // The integer part's digits, modulo 2^64 (unsigned arithmetic wraps exactly so).
  uint64_t u = 0;
  if (exponent >= 0) {
    for (char c : p.whole)
      u = u * 10 + static_cast<uint64_t>(c - '0');
    // The exponent moves fraction digits into the integer part, then zeros; 10^64 is
    // a multiple of 2^64, so 64 zeros leave nothing of the low 64 bits.
    int64_t moved = 0;
    for (; moved < exponent && moved < static_cast<int64_t>(p.fraction.size()); ++moved)
      u = u * 10 + static_cast<uint64_t>(p.fraction[static_cast<size_t>(moved)] - '0');
    for (int64_t zeros = 0; moved + zeros < exponent && zeros < 64; ++zeros)
      u *= 10;
  } else {
    // A negative exponent drops the whole part's last digits (truncation toward zero).
    int64_t keep = static_cast<int64_t>(p.whole.size()) + exponent;
    for (int64_t i = 0; i < keep; ++i)
      u = u * 10 + static_cast<uint64_t>(p.whole[static_cast<size_t>(i)] - '0');
  }
  return static_cast<int64_t>(p.negative ? 0 - u : u);
}

bool is_int(std::string_view t) noexcept {
  if (!integral(t))
    return false;
  bool negative = t[0] == '-';
  size_t first = t.find_first_not_of('0', negative ? 1 : 0);
  if (first == std::string_view::npos)
    return true; // zeros
  if (t.size() - first > 10) // "2147483648" is the longest
    return false;
  int64_t v = 0;
  for (char c : t.substr(first))
    v = v * 10 + (c - '0');
  v = negative ? -v : v;
  return v == static_cast<int32_t>(v);
}

double double_value(std::string_view t) noexcept { return nearest<double>(t, std::strtod); }

float float_value(std::string_view t) noexcept { return nearest<float>(t, std::strtof); }

} // namespace weir::runtime::convert::json_number
