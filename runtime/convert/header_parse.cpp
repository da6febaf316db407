// parse_header_text and reserialize_header_text (header_text.hpp): Kafka Connect's
// Values.parseString, and with append_header_text (Values.convertToString) the round
// trip a header makes through SimpleHeaderConverter. The parser follows Values.Parser
// and Values.ValueParser step by step (their tokens, their look-ahead and rewinds),
// because users see its quirks in their headers:
// a top-level number or temporal is read from the first token alone (`1,2` is 1),
// exact integers take the narrowest integer type, other numbers become a float when
// one holds them, an array of integers and floats prints its integers as floats.
// Differences: SimpleDateFormat's leniency is reduced to fields at their fixed
// places (out-of-range fields still roll over, as Java's do), temporal values never
// merge with numbers in an array, a key repeated in a map is kept twice, and a
// Decimal of more than 38 digits stays a string.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/convert/header_text.hpp"
#include "runtime/data/decimal.hpp"

namespace weir::runtime::convert {

namespace {

bool is_blank_char(char c) { return static_cast<unsigned char>(c) <= ' '; } // String.trim's set

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank_char(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && is_blank_char(s.back()))
    s.remove_suffix(1);
  return s;
}

bool blank(std::string_view s) { return trim(s).empty(); }

/// Values.Parser: a token is the text between the delimiters : , { } [ ] " (a
/// backslash escapes the character after it), or one delimiter.
class Tokens {
public:
  explicit Tokens(std::string_view s) : s_(s) {}

  std::string_view original() const { return s_; }
  size_t mark() const { return pos_ - (peeked_ ? next_.size() : 0); }
  void rewind(size_t position) {
    pos_ = position;
    peeked_ = false;
    previous_ = {};
  }
  bool has_next() const { return peeked_ || pos_ < s_.size(); }
  std::string_view previous() const { return previous_; }

  std::string_view next() {
    previous_ = peeked_ ? next_ : consume();
    peeked_ = false;
    return previous_;
  }

  /// The text of the next `n` tokens, or nothing (and nothing consumed) when fewer remain.
  std::optional<std::string_view> next(int n) {
    size_t start = mark();
    for (int i = 0; i < n; ++i) {
      if (!has_next()) {
        rewind(start);
        return std::nullopt;
      }
      next();
    }
    return s_.substr(start, pos_ - start);
  }

  /// Parser.canConsume: takes the next token that is not blank when, trimmed, it is
  /// `expected`; otherwise keeps it for the next call.
  bool consume_if(std::string_view expected) {
    if (!peeked_) {
      if (!has_next())
        return false;
      next_ = consume();
      peeked_ = true;
    }
    while (blank(next_) && pos_ < s_.size())
      next_ = consume();
    if (trim(next_) != expected)
      return false;
    peeked_ = false;
    return true;
  }

private:
  std::string_view consume() {
    bool escaped = false;
    size_t start = pos_;
    for (; pos_ < s_.size(); ++pos_) {
      char c = s_[pos_];
      if (c == '\\') {
        escaped = !escaped;
        continue;
      }
      bool delimiter = c == ':' || c == ',' || c == '{' || c == '}' || c == '[' || c == ']' || c == '"';
      if (delimiter && !escaped) {
        if (start < pos_)
          return s_.substr(start, pos_ - start);
        return s_.substr(pos_++, 1);
      }
      escaped = false;
    }
    return s_.substr(start, pos_ - start);
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::string_view next_, previous_;
  bool peeked_ = false;
};

/// What Values.parseString gives: a value and its schema (both null for `null`).
using Parsed = ParsedHeader;

struct ParseFailure {}; // Values' DataException inside an array or a map

bool numeric(const data::Schema& s) {
  return s.type() <= data::Type::Float64 && s.logical() == data::Logical::None;
}

/// Values.mergeSchemas for what the parser produces: numbers widen (integers, then
/// float32, then float64); other primitive types merge only with themselves.
data::SchemaPtr merge(const data::SchemaPtr& common, const data::SchemaPtr& next) {
  if (!common)
    return next;
  if (numeric(*common) && numeric(*next))
    return common->type() >= next->type() ? common : next;
  bool same = common->type() == next->type() && common->logical() == next->logical() &&
              common->decimal_scale() == next->decimal_scale();
  return same && common->type() < data::Type::Array ? common : nullptr;
}

/// Values.alignListEntriesWithSchema: a number converted to the common number type.
void align(data::Value& v, const data::Schema& common) {
  if (!numeric(common) || v.is_null())
    return;
  double d = v.is_integer() ? static_cast<double>(v.as_int()) : v.as_double();
  switch (common.type()) {
    case data::Type::Float32: v = data::Value::float32(v.is_integer() ? static_cast<float>(v.as_int()) : v.as_float32()); break;
    case data::Type::Float64: v = data::Value::float64(d); break;
    case data::Type::Int16: v = data::Value::int16(static_cast<int16_t>(v.as_int())); break;
    case data::Type::Int32: v = data::Value::int32(static_cast<int32_t>(v.as_int())); break;
    case data::Type::Int64: v = data::Value::int64(v.as_int()); break;
    default: break;
  }
}

/// The common schema of the non-null items at `first`, `first + step`, ...
data::SchemaPtr common_schema(const std::vector<Parsed>& items, size_t first, size_t step) {
  data::SchemaPtr common;
  for (size_t i = first; i < items.size(); i += step) {
    if (!items[i].schema)
      continue;
    if (common = merge(common, items[i].schema); !common)
      return nullptr;
  }
  return common;
}

/// ValueParser.parseAsNumber on BigDecimal's grammar; nothing when `token` is not one
/// (or, unlike Java, is a Decimal of more than 38 digits).
std::optional<Parsed> number(std::string_view token, data::Arena& arena) {
  size_t i = 0;
  bool negative = false;
  if (token[i] == '+' || token[i] == '-')
    negative = token[i++] == '-';
  std::string digits;
  int64_t fraction = 0;
  bool point = false;
  for (; i < token.size() && (std::isdigit(static_cast<unsigned char>(token[i])) || (token[i] == '.' && !point)); ++i) {
    if (token[i] == '.') {
      point = true;
      continue;
    }
    digits += token[i];
    fraction += point;
  }
  if (digits.empty())
    return std::nullopt;
  int64_t exponent = 0;
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    const char* from = token.data() + i + 1;
    if (from < token.data() + token.size() && *from == '+')
      ++from;
    auto [end, ec] = std::from_chars(from, token.data() + token.size(), exponent);
    if (ec != std::errc() || end != token.data() + token.size())
      return std::nullopt;
    i = token.size();
  }
  if (i != token.size())
    return std::nullopt;
  const int64_t scale = fraction - exponent;
  size_t lead = digits.find_first_not_of('0');
  digits = lead == std::string::npos ? "0" : digits.substr(lead);

  // An exact integer that fits a long: the narrowest integer type.
  bool integral = scale <= 0 || digits == "0" ||
                  (static_cast<int64_t>(digits.size()) > scale &&
                   digits.find_first_not_of('0', digits.size() - static_cast<size_t>(scale)) == std::string::npos);
  if (integral && (digits == "0" || static_cast<int64_t>(digits.size()) - scale <= 19)) {
    std::string whole = digits == "0" ? "0"
                        : scale <= 0  ? digits + std::string(static_cast<size_t>(-scale), '0')
                                      : digits.substr(0, digits.size() - static_cast<size_t>(scale));
    __int128 v = 0;
    for (char c : whole)
      v = v * 10 + (c - '0');
    v = negative ? -v : v;
    if (v >= INT64_MIN && v <= INT64_MAX) {
      auto x = static_cast<int64_t>(v);
      namespace schemas = data::schemas;
      if (x == static_cast<int8_t>(x))
        return Parsed{data::Value::int8(static_cast<int8_t>(x)), schemas::of(data::Type::Int8)};
      if (x == static_cast<int16_t>(x))
        return Parsed{data::Value::int16(static_cast<int16_t>(x)), schemas::of(data::Type::Int16)};
      if (x == static_cast<int32_t>(x))
        return Parsed{data::Value::int32(static_cast<int32_t>(x)), schemas::int32()};
      return Parsed{data::Value::int64(x), schemas::int64()};
    }
  }
  // Otherwise a float when one holds it, a double, else a Decimal.
  std::string plain(token.substr(token[0] == '+' ? 1 : 0));
  if (scale != 0) {
    float f = 0;
    auto fr = std::from_chars(plain.data(), plain.data() + plain.size(), f);
    if (fr.ec == std::errc() && std::isfinite(f))
      return Parsed{data::Value::float32(f), data::schemas::of(data::Type::Float32)};
    double d = 0;
    auto dr = std::from_chars(plain.data(), plain.data() + plain.size(), d);
    if (dr.ec == std::errc() && std::isfinite(d))
      return Parsed{data::Value::float64(d), data::schemas::of(data::Type::Float64)};
  }
  if (digits.size() > 38 || scale < INT32_MIN || scale > INT32_MAX)
    return std::nullopt;
  __int128 unscaled = 0;
  for (char c : digits)
    unscaled = unscaled * 10 + (c - '0');
  auto bytes = data::decimal_bytes(negative ? -unscaled : unscaled);
  return Parsed{data::Value::bytes(arena.copy(bytes)), data::SchemaBuilder::decimal(static_cast<int32_t>(scale)).build()};
}

/// ValueParser.parseAsTemporal: `HH:mm:ss.SSS'Z'`, `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` or
/// `yyyy-MM-dd` (an escaped colon counts as one), UTC; fields out of range roll over.
std::optional<Parsed> temporal(std::string_view raw) {
  std::string token;
  for (size_t i = 0; i < raw.size(); ++i)
    if (!(raw[i] == '\\' && i + 1 < raw.size() && raw[i + 1] == ':'))
      token += raw[i];
  std::string_view pattern = token.size() == 13   ? "00:00:00.000Z"
                             : token.size() == 24 ? "0000-00-00T00:00:00.000Z"
                             : token.size() == 10 ? "0000-00-00"
                                                  : "";
  if (pattern.empty())
    return std::nullopt;
  for (size_t i = 0; i < pattern.size(); ++i)
    if (pattern[i] == '0' ? !std::isdigit(static_cast<unsigned char>(token[i])) : token[i] != pattern[i])
      return std::nullopt;
  auto field = [&](size_t at, size_t n) { return std::stoll(token.substr(at, n)); };
  int64_t days = 0, time = 0;
  size_t t = 0;
  if (pattern.size() != 13) {
    using namespace std::chrono;
    int64_t months = field(0, 4) * 12 + field(5, 2) - 1;
    int64_t year = months >= 0 ? months / 12 : -1; // 0000-00: December of year -1
    auto month = static_cast<unsigned>(months - year * 12 + 1);
    auto first = sys_days(std::chrono::year(static_cast<int>(year)) / std::chrono::month(month) / 1);
    days = first.time_since_epoch().count() + field(8, 2) - 1;
    t = 11;
  }
  if (pattern.size() != 10)
    time = ((field(t, 2) * 60 + field(t + 3, 2)) * 60 + field(t + 6, 2)) * 1000 + field(t + 9, 3);
  static const data::SchemaPtr date = data::SchemaBuilder::date().build();
  static const data::SchemaPtr time_of_day = data::SchemaBuilder::time().build();
  if (pattern.size() == 10)
    return Parsed{data::Value::int32(static_cast<int32_t>(days)), date};
  if (pattern.size() == 13)
    return Parsed{data::Value::int32(static_cast<int32_t>(time)), time_of_day};
  return Parsed{data::Value::int64(days * 86'400'000 + time), data::schemas::timestamp()};
}

/// Values.ValueParser.
class ValueParser {
public:
  ValueParser(std::string_view s, data::Arena& arena) : tokens_(s), arena_(arena) {}

  Parsed parse(bool embedded) {
    if (!tokens_.has_next())
      return {};
    if (embedded && tokens_.consume_if("\""))
      return quoted();
    if (literal(embedded, "null"))
      return {};
    for (bool b : {true, false})
      if (literal(embedded, b ? "true" : "false"))
        return {data::Value::boolean(b), data::schemas::of(data::Type::Boolean)};
    size_t start = tokens_.mark();
    try {
      if (tokens_.consume_if("["))
        return array();
      if (tokens_.consume_if("{"))
        return map();
    } catch (const ParseFailure&) {
      tokens_.rewind(start);
    }
    std::string_view token = tokens_.next();
    if (blank(token))
      return string(token);
    return next_token(embedded, trim(token));
  }

private:
  Parsed string(std::string_view text) { return {data::Value::string(arena_.copy(text)), data::schemas::string()}; }

  bool literal(bool embedded, std::string_view word) {
    size_t start = tokens_.mark();
    if (tokens_.consume_if(word) && (embedded || !tokens_.has_next()))
      return true;
    tokens_.rewind(start);
    return false;
  }

  Parsed next_token(bool embedded, std::string_view token) {
    bool digit = std::isdigit(static_cast<unsigned char>(token[0])) != 0;
    if (digit) {
      // A time is split at its colons: the token with the next four first.
      size_t position = tokens_.mark();
      if (auto rest = tokens_.next(4))
        if (auto t = temporal(std::string(token) + std::string(*rest)))
          return *t;
      tokens_.rewind(position);
      if (auto t = temporal(token))
        return *t;
    }
    if (digit || token[0] == '+' || token[0] == '-')
      if (auto n = number(token, arena_))
        return *n;
    if (embedded)
      throw ParseFailure{};
    return string(tokens_.original());
  }

  Parsed quoted() {
    std::string content;
    while (tokens_.has_next()) {
      if (tokens_.consume_if("\""))
        break;
      content += tokens_.next();
    }
    if (auto t = temporal(content))
      return *t;
    return string(content);
  }

  Parsed array() {
    std::vector<Parsed> items;
    while (tokens_.has_next()) {
      if (tokens_.consume_if("]")) {
        auto common = common_schema(items, 0, 1);
        auto out = data::Value::array(arena_, static_cast<uint32_t>(items.size()));
        for (auto& item : items) {
          if (common)
            align(item.value, *common);
          out.push_back(arena_, item.value);
        }
        return {out, common ? data::SchemaBuilder::array(common).build() : nullptr};
      }
      if (tokens_.consume_if(","))
        throw ParseFailure{};
      items.push_back(parse(true));
      size_t current = tokens_.mark();
      if (tokens_.consume_if("]"))
        tokens_.rewind(current);
      else if (!tokens_.consume_if(","))
        throw ParseFailure{};
    }
    throw ParseFailure{};
  }

  Parsed map() {
    std::vector<Parsed> items; // keys and values, alternating
    while (tokens_.has_next()) {
      if (tokens_.consume_if("}")) {
        auto keys = common_schema(items, 0, 2), values = common_schema(items, 1, 2);
        auto out = data::Value::map(arena_, static_cast<uint32_t>(items.size() / 2));
        for (size_t i = 0; i < items.size(); i += 2) {
          if (keys)
            align(items[i].value, *keys);
          if (values)
            align(items[i + 1].value, *values);
          out.append(arena_, items[i].value, items[i + 1].value);
        }
        return {out, keys && values ? data::SchemaBuilder::map(keys, values).build() : nullptr};
      }
      if (tokens_.consume_if(","))
        throw ParseFailure{};
      Parsed key = parse(true);
      if (key.value.is_null() || !tokens_.consume_if(":"))
        throw ParseFailure{};
      Parsed value = parse(true);
      tokens_.consume_if(",");
      items.push_back(std::move(key));
      items.push_back(std::move(value));
    }
    throw ParseFailure{};
  }

  Tokens tokens_;
  data::Arena& arena_;
};

} // namespace

ParsedHeader parse_header_text(std::string_view text, data::Arena& arena) {
  if (text.empty())
    return {data::Value::string(arena.copy(text)), data::schemas::string()};
  return ValueParser(text, arena).parse(false);
}

bool reserialize_header_text(std::string_view raw, std::string& out) {
  out.clear();
  thread_local data::Arena arena(4096);
  arena.reset();
  auto parsed = parse_header_text(raw, arena);
  if (parsed.value.is_null())
    return false;
  append_header_text(parsed.value, parsed.schema.get(), out);
  return true;
}

} // namespace weir::runtime::convert
