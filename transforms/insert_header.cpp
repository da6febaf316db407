#include "transforms/insert_header.hpp"

#include <cmath>
#include <cstdlib>
#include <vector>

#include "runtime/convert/text.hpp"
#include "transforms/simple_date_format.hpp"

namespace weir::transforms {

using namespace runtime::data;
using runtime::convert::trim;

namespace {

constexpr int64_t ms_per_day = 86400000;

bool is_delimiter(char c) {
  return c == ':' || c == ',' || c == '{' || c == '}' || c == '[' || c == ']' || c == '"';
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Values.Parser's tokens: a run up to the next unescaped delimiter, or one delimiter.
std::vector<std::string_view> tokenize(std::string_view s) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    bool escaped = false;
    while (i < s.size()) {
      char c = s[i];
      if (c == '\\') {
        escaped = !escaped;
      } else if (is_delimiter(c) && !escaped) {
        if (start == i)
          ++i;
        break;
      } else {
        escaped = false;
      }
      ++i;
    }
    tokens.push_back(s.substr(start, i - start));
  }
  return tokens;
}

// Values.parseAsTemporal: an ISO-8601 time, timestamp or date of the exact length,
// parsed leniently; on success `out` is the text Kafka writes such a value back as
// (Values.dateFormatFor: time below one day, date on a day boundary, else timestamp).
bool temporal(std::string token, std::string& out) {
  for (size_t p; (p = token.find("\\:")) != std::string::npos;)
    token.erase(p, 1);
  static const SimpleDateFormat time("HH:mm:ss.SSS'Z'");
  static const SimpleDateFormat timestamp("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'");
  static const SimpleDateFormat date("yyyy-MM-dd");
  const SimpleDateFormat* f = token.size() == 13 ? &time : token.size() == 24 ? &timestamp
                              : token.size() == 10 ? &date : nullptr;
  if (!f)
    return false;
  auto millis = f->parse(token);
  if (!millis)
    return false;
  const SimpleDateFormat& back = *millis < ms_per_day ? time : *millis % ms_per_day == 0 ? date : timestamp;
  out.clear();
  back.format(*millis, out);
  return true;
}

// Values.parseAsNumber over a BigDecimal literal: the smallest integer type that
// holds an integral value, else float32, else float64. Returns false when `t` is no
// BigDecimal; `decimal` is set when Kafka would need a Decimal for it.
bool number(std::string_view t, std::pair<Value, SchemaPtr>& out, bool& decimal) {
  decimal = false;
  size_t i = 0;
  bool negative = false;
  if (i < t.size() && (t[i] == '+' || t[i] == '-'))
    negative = t[i++] == '-';
  std::string digits;
  size_t int_digits = 0, frac_digits = 0;
  while (i < t.size() && is_digit(t[i])) {
    digits += t[i++];
    ++int_digits;
  }
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && is_digit(t[i])) {
      digits += t[i++];
      ++frac_digits;
    }
  }
  if (int_digits + frac_digits == 0)
    return false;
  int64_t exponent = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-'))
      exp_negative = t[i++] == '-';
    size_t start = i;
    while (i < t.size() && is_digit(t[i])) {
      if (exponent < 1000000000)
        exponent = exponent * 10 + (t[i] - '0');
      ++i;
    }
    if (i == start)
      return false;
    if (exp_negative)
      exponent = -exponent;
  }
  if (i != t.size())
    return false;

  // value = significant * 10^-scale
  int64_t scale = static_cast<int64_t>(frac_digits) - exponent;
  size_t first = digits.find_first_not_of('0');
  std::string significant = first == std::string::npos ? "" : digits.substr(first);
  bool integral;
  if (scale <= 0)
    integral = true;
  else if (significant.size() <= static_cast<size_t>(scale))
    integral = significant.empty();
  else
    integral = significant.find_first_not_of('0', significant.size() - static_cast<size_t>(scale)) == std::string::npos;
  if (integral) {
    std::string whole = significant;
    if (significant.empty())
      whole = "0";
    else if (scale > 0)
      whole.resize(significant.size() - static_cast<size_t>(scale));
    else if (scale < 0 && -scale <= 19)
      whole.append(static_cast<size_t>(-scale), '0');
    if (whole.size() <= 19 && scale >= -19) {
      __int128 v = 0;
      for (char c : whole)
        v = v * 10 + (c - '0');
      if (negative)
        v = -v;
      if (v >= INT64_MIN && v <= INT64_MAX) {
        auto x = static_cast<int64_t>(v);
        if (x >= INT8_MIN && x <= INT8_MAX)
          out = {Value::int8(static_cast<int8_t>(x)), schemas::of(Type::Int8)};
        else if (x >= INT16_MIN && x <= INT16_MAX)
          out = {Value::int16(static_cast<int16_t>(x)), schemas::of(Type::Int16)};
        else if (x >= INT32_MIN && x <= INT32_MAX)
          out = {Value::int32(static_cast<int32_t>(x)), schemas::int32()};
        else
          out = {Value::int64(x), schemas::int64()};
        return true;
      }
    }
  }
  if (scale != 0) {
    std::string text(t);
    float f = std::strtof(text.c_str(), nullptr);
    if (std::isfinite(f)) {
      out = {Value::float32(f), schemas::of(Type::Float32)};
      return true;
    }
    double d = std::strtod(text.c_str(), nullptr);
    if (std::isfinite(d)) {
      out = {Value::float64(d), schemas::of(Type::Float64)};
      return true;
    }
  }
  decimal = true;
  return true;
}

} // namespace

std::pair<Value, SchemaPtr> InsertHeader::parse_literal(std::string_view s, std::string& scratch) {
  auto string = [](std::string_view text) { return std::pair{Value::string(text), schemas::string()}; };
  if (s.empty())
    return string(s);
  auto tokens = tokenize(s);
  if (tokens.size() == 1) {
    auto only = trim(tokens[0]);
    if (only == "null")
      return {Value(), nullptr};
    if (only == "true" || only == "false")
      return {Value::boolean(only == "true"), schemas::of(Type::Boolean)};
  }
  auto first = trim(tokens[0]);
  if (first.empty()) // a blank token: Kafka keeps the token itself
    return string(tokens[0]);
  if (first == "[" || first == "{") // arrays and maps stay as written (see the header)
    return string(s);
  if (is_digit(first[0])) {
    if (tokens.size() >= 5) {
      // A time's colons split it into five tokens.
      std::string five(first);
      for (size_t k = 1; k < 5; ++k)
        five += tokens[k];
      if (temporal(five, scratch))
        return string(scratch);
    }
    if (temporal(std::string(first), scratch))
      return string(scratch);
  }
  if (is_digit(first[0]) || first[0] == '+' || first[0] == '-') {
    std::pair<Value, SchemaPtr> n;
    bool decimal;
    if (number(first, n, decimal))
      return decimal ? string(first) : n; // a Decimal is written back as its digits
  }
  return string(s);
}

const ConfigDef& InsertHeader::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("header", ConfigType::String, Importance::High, "The name of the header.")
        .define("value.literal", ConfigType::String, Importance::High,
                "The literal value that is to be set as the header value on all records.");
    return d;
  }();
  return def;
}

InsertHeader::InsertHeader(const Config& c, Side) : header_(c.get_string("header")) {
  std::string scratch;
  auto [value, schema] = parse_literal(c.get_string("value.literal"), scratch);
  if (value.kind() == Kind::String) {
    text_.assign(value.as_string());
    value = Value::string(text_);
  }
  value_ = value;
  schema_ = std::move(schema);
}

bool InsertHeader::apply(const RecordView& r) {
  Value v = value_.kind() == Kind::String ? Value::string(r.copy(text_)) : value_;
  // schema_ is a shared static schema (or null), so the batch need not retain it.
  r.headers().push_back(r.arena(), Header{r.copy(header_), v, schema_.get()});
  return true;
}

} // namespace weir::transforms
