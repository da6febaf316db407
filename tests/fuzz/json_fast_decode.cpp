// Differential fuzzing of FastJsonDecoder (runtime/convert/json_fast_decode.hpp)
// against simdjson's DOM parser: for every input both accept it and give the same
// value tree, or both reject it. Any other outcome aborts with both trees printed.
//
// weir reads JSON as Jackson does for Kafka's JsonConverter, which differs from
// simdjson in documented ways; the reference applies them rather than ignoring them:
// - numbers: an integer is its low 64 bits as int64 (simdjson rejects one that does
//   not fit), anything with a fraction or exponent the correctly rounded double
//   (strtod: overflow is +-infinity, which simdjson rejects), and a number whose
//   digits are all zero +0.0 (simdjson keeps -0.0). Number tokens are therefore
//   replaced by their ordinal before simdjson sees the text, and each one is checked
//   against strtod / a 64-bit wrap of its own text. A number Jackson refuses makes
//   the input invalid: more than 1000 digits, or (with a fraction or exponent) an
//   exponent or a scale that is not an int (java.math.BigDecimal's limits); leading
//   zeros are allowed (Connect enables ALLOW_LEADING_ZEROS_FOR_NUMBERS), which
//   simdjson never sees, as every number is replaced;
// - a lone UTF-16 surrogate escape reads as U+FFFD (simdjson rejects it), so the
//   reference text has \uFFFD there;
// - a repeated key keeps its first position and its last value (simdjson's DOM keeps
//   every member);
// - more than 1024 nested containers are rejected (simdjson here may go deeper).
// Every input is decoded twice by one decoder: the second decode takes the path for a
// root object shaped like the previous one. Strings marked plain must hold no quote,
// backslash or control character (encoders copy them unescaped).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <simdjson.h>

#include "runtime/convert/json_fast_decode.hpp"
#include "runtime/convert/json_number.hpp"
#include "runtime/data/errors.hpp"
#include "tests/fuzz/report.hpp"

using namespace weir::runtime::convert;
using namespace weir::runtime::data;

namespace {

constexpr int max_depth = 1024; // FastJsonDecoder's limit, in containers

bool is_digit(char c) { return c >= '0' && c <= '9'; }

int hex_value(char c) {
  if (is_digit(c))
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

// The code unit of a `\uXXXX` escape whose backslash is at s[i], or -1.
long escape_unit(std::string_view s, size_t i) {
  if (i + 6 > s.size() || s[i] != '\\' || s[i + 1] != 'u')
    return -1;
  long v = 0;
  for (size_t k = i + 2; k < i + 6; ++k) {
    int d = hex_value(s[k]);
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

// The input rewritten for simdjson (see the top of the file) and its number tokens.
struct Reference {
  std::string text;
  std::vector<std::string_view> numbers;
};

Reference rewrite(std::string_view in) {
  Reference r;
  r.text.reserve(in.size() + 16);
  size_t i = 0;
  while (i < in.size()) {
    char c = in[i];
    if (c == '"') { // a string: copied, lone surrogate escapes made U+FFFD
      r.text += c;
      ++i;
      while (i < in.size() && in[i] != '"') {
        if (in[i] != '\\') {
          r.text += in[i++];
          continue;
        }
        long unit = escape_unit(in, i);
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          long low = escape_unit(in, i + 6);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            r.text.append(in.substr(i, 12));
            i += 12;
          } else {
            r.text += "\\uFFFD";
            i += 6;
          }
        } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
          r.text += "\\uFFFD";
          i += 6;
        } else { // any other escape: its two bytes (the rest is plain text)
          r.text.append(in.substr(i, std::min<size_t>(2, in.size() - i)));
          i += 2;
        }
      }
      if (i < in.size())
        r.text += in[i++];
      continue;
    }
    if (c == '-' || is_digit(c)) { // a number-like run: replaced when it is a number
      size_t j = i;
      while (j < in.size() && (is_digit(in[j]) || std::strchr("+-.eE", in[j]) != nullptr))
        ++j;
      std::string_view token = in.substr(i, j - i);
      if (json_number::is_token(token)) { // JSON's grammar (not what the decoder uses)
        r.text += std::to_string(r.numbers.size());
        r.numbers.push_back(token);
      } else {
        r.text.append(token);
      }
      i = j;
      continue;
    }
    r.text += c;
    ++i;
  }
  return r;
}

// Whether Jackson (2.16, as Kafka uses it) refuses the number token (see the top of
// the file), worked out here on its own rather than with json_number::problem.
bool refused(std::string_view token) {
  size_t digits = 0;
  for (char c : token)
    digits += is_digit(c);
  // Leading zeros are skipped before Jackson counts (all but one when only zeros).
  size_t first = token[0] == '-';
  while (first + 1 < token.size() && token[first] == '0' && is_digit(token[first + 1]))
    ++first, --digits;
  if (digits > 1000)
    return true;
  size_t e = token.find_first_of("eE");
  if (token.find('.') == std::string_view::npos && e == std::string_view::npos)
    return false;
  size_t dot = token.find('.');
  long long fraction = dot == std::string_view::npos ? 0 : static_cast<long long>((e == std::string_view::npos ? token.size() : e) - dot - 1);
  long long exponent = 0;
  if (e != std::string_view::npos) {
    std::string_view x = token.substr(e + 1);
    bool negative = x[0] == '-';
    if (x[0] == '-' || x[0] == '+')
      x.remove_prefix(1);
    x.remove_prefix(std::min(x.find_first_not_of('0'), x.size()));
    if (x.size() > 10)
      return true;
    for (char c : x)
      exponent = exponent * 10 + (c - '0');
    exponent = negative ? -exponent : exponent;
  }
  auto fits_int = [](long long v) { return v >= -2147483648LL && v <= 2147483647LL; };
  return !fits_int(exponent) || !fits_int(fraction - exponent);
}

// The value weir documents for a number token (see the top of the file).
Value number_value(std::string_view token) {
  if (token.find_first_of(".eE") == std::string_view::npos) {
    bool negative = token[0] == '-';
    uint64_t u = 0;
    for (char c : token.substr(negative))
      u = u * 10 + static_cast<uint64_t>(c - '0'); // wraps, as BigInteger.longValue()
    return Value::int64(static_cast<int64_t>(negative ? 0 - u : u));
  }
  std::string text(token);
  double d = std::strtod(text.c_str(), nullptr);
  size_t mantissa_end = token.find_first_of("eE");
  std::string_view mantissa = token.substr(0, mantissa_end);
  if (mantissa.find_first_of("123456789") == std::string_view::npos)
    d = 0.0; // an exact zero: BigDecimal has no -0
  return Value::float64(d);
}

struct Differ {
  std::string_view input;
  const Reference& ref;

  [[noreturn]] void fail(const std::string& what, const Value& got, const std::string& want) const {
    weir::fuzz::finding("json_fast_decode", "differs from the reference: " + what, input,
                        "weir:   " + to_debug_string(got) + "\n  expect: " + want);
  }

  void check_string(const Value& got, std::string_view want, const char* what) const {
    if (got.kind() != Kind::String || got.as_string() != want)
      fail(what, got, "\"" + std::string(want) + "\"");
    if (got.is_plain())
      for (char c : got.as_string())
        if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
          fail(std::string(what) + " marked plain but needs escaping", got, "not plain");
  }

  void compare(const Value& got, simdjson::dom::element want) const {
    using T = simdjson::dom::element_type;
    switch (want.type()) {
      case T::OBJECT: {
        if (got.kind() != Kind::Map)
          fail("object expected", got, simdjson::minify(want));
        // Jackson's ObjectNode.put: first position, last value.
        std::vector<std::pair<std::string_view, simdjson::dom::element>> members;
        std::unordered_map<std::string_view, size_t> index;
        simdjson::dom::object object = want.get_object().value_unsafe(); // not a temporary: iterated
        for (auto [k, v] : object) {
          auto [it, added] = index.emplace(k, members.size());
          if (added)
            members.emplace_back(k, v);
          else
            members[it->second].second = v;
        }
        if (got.size() != members.size())
          fail("member count", got, simdjson::minify(want));
        for (size_t i = 0; i < members.size(); ++i) {
          check_string(got.entries()[i].key, members[i].first, "key");
          compare(got.entries()[i].value, members[i].second);
        }
        return;
      }
      case T::ARRAY: {
        simdjson::dom::array a = want.get_array().value_unsafe();
        if (got.kind() != Kind::Array || got.size() != a.size())
          fail("array expected", got, simdjson::minify(want));
        size_t i = 0;
        for (auto item : a)
          compare(got.items()[i++], item);
        return;
      }
      case T::INT64: { // a number's ordinal (rewrite())
        auto ordinal = static_cast<size_t>(want.get_int64().value_unsafe());
        std::string_view token = ref.numbers.at(ordinal);
        Value expect = number_value(token);
        bool same = got.kind() == expect.kind()
                    && (expect.kind() == Kind::Int64 ? got.as_int() == expect.as_int()
                                                     : std::bit_cast<uint64_t>(got.as_double()) == std::bit_cast<uint64_t>(expect.as_double()));
        if (!same)
          fail("number " + std::string(token), got, to_debug_string(expect));
        return;
      }
      case T::STRING: check_string(got, want.get_string().value_unsafe(), "string"); return;
      case T::BOOL:
        if (got.kind() != Kind::Boolean || got.as_bool() != want.get_bool().value_unsafe())
          fail("boolean", got, simdjson::minify(want));
        return;
      case T::NULL_VALUE:
        if (!got.is_null())
          fail("null", got, "null");
        return;
      case T::UINT64:
      case T::DOUBLE: fail("the reference has a number that is not an ordinal", got, simdjson::minify(want));
    }
  }
};

int depth(simdjson::dom::element e) {
  int deepest = 0;
  if (e.is_object()) {
    simdjson::dom::object object = e.get_object().value_unsafe();
    for (auto [k, v] : object)
      deepest = std::max(deepest, depth(v));
  } else if (e.is_array()) {
    simdjson::dom::array array = e.get_array().value_unsafe();
    for (auto v : array)
      deepest = std::max(deepest, depth(v));
  } else {
    return 0;
  }
  return deepest + 1;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  Reference ref = rewrite(input);

  static simdjson::dom::parser parser = [] {
    simdjson::dom::parser p;
    if (p.allocate(1 << 20, 1 << 16) != simdjson::SUCCESS) // deeper than any input
      std::abort();
    return p;
  }();
  simdjson::padded_string padded(ref.text);
  simdjson::dom::element want;
  bool valid = parser.parse(padded).get(want) == simdjson::SUCCESS
               && std::none_of(ref.numbers.begin(), ref.numbers.end(), refused);
  bool too_deep = valid && depth(want) > max_depth;

  FastJsonDecoder decoder;
  Arena arena;
  for (int round = 0; round < 2; ++round) { // the second: the previous root's shape known
    Value got;
    try {
      got = decoder.decode(input, arena);
    } catch (const DataError& e) {
      bool depth_error = std::strstr(e.what(), "maximum nesting depth exceeded") != nullptr;
      if (valid && !(too_deep && depth_error)) {
        weir::fuzz::finding("json_fast_decode", "rejects what the reference accepts", input, e.what());
      }
      continue;
    }
    Differ differ{input, ref};
    if (!valid)
      differ.fail("accepted what the reference rejects", got, "an error");
    if (too_deep)
      differ.fail("accepted more than 1024 nested containers", got, "an error");
    differ.compare(got, want);
  }
  return 0;
}
