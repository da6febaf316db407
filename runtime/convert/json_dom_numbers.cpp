#include "runtime/convert/json_dom_numbers.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>

#include "runtime/convert/json_number.hpp"
#include "runtime/convert/json_text.hpp"
#include "runtime/data/errors.hpp"

namespace weir::runtime::convert {

namespace dom = simdjson::dom;
using T = dom::element_type;

namespace {

[[noreturn]] void needs_text() { throw DomNumbers::NeedsText{}; }

// The code unit of a `\uXXXX` escape whose backslash is at s[i], or -1.
long escape_unit(std::string_view s, size_t i) {
  if (i + 6 > s.size() || s[i] != '\\' || s[i + 1] != 'u')
    return -1;
  long v = 0;
  for (size_t k = i + 2; k < i + 6; ++k) {
    char c = s[k];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0)
      return -1;
    v = v * 16 + d;
  }
  return v;
}

bool json_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

[[noreturn]] void serialization_error(std::string_view what) {
  throw data::DataError("Converting byte[] to Kafka Connect data failed due to serialization error: "
                        + std::string(what));
}

} // namespace

void index_for_simdjson(std::string_view json, std::vector<char>& out, size_t padding,
                        std::vector<std::string_view>& tokens) {
  // Bytes where something starts outside strings (a string, or a number), and bytes
  // that end a run inside one (its closing quote, or an escape): table lookups in
  // tight loops, since most of a record's bytes are inside strings.
  static constexpr auto starts = [] {
    std::array<bool, 256> t{};
    t['"'] = t['-'] = true;
    for (int c = '0'; c <= '9'; ++c)
      t[c] = true;
    return t;
  }();
  static constexpr auto in_string_stops = [] {
    std::array<bool, 256> t{};
    t['"'] = t['\\'] = true;
    return t;
  }();
  out.clear();
  out.reserve(json.size() + padding);
  const char* data = json.data();
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  size_t n = json.size(), i = 0, copied = 0;
  // Copies what precedes `at` and `replacement` in place of [at, resume).
  auto replace = [&](size_t at, std::string_view replacement, size_t resume) {
    out.insert(out.end(), data + copied, data + at);
    out.insert(out.end(), replacement.begin(), replacement.end());
    copied = resume;
  };
  char ordinal[24];
  while (true) {
    while (i < n && !starts[bytes[i]])
      ++i;
    if (i >= n)
      break;
    if (data[i] == '"') {
      ++i;
      while (true) {
        while (i < n && !in_string_stops[bytes[i]])
          ++i;
        if (i >= n)
          break;
        if (data[i] == '"') {
          ++i; // the closing quote
          break;
        }
        long unit = escape_unit(json, i);
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          long low = escape_unit(json, i + 6);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            i += 12; // a pair
            continue;
          }
        }
        if (unit >= 0xD800 && unit <= 0xDFFF) {
          replace(i, "\\uFFFD", i + 6);
          i += 6;
          continue;
        }
        i += 2; // the escaped byte (a quote or backslash among them) is not special
      }
      continue;
    }
    size_t j = i + 1;
    while (j < n && (json_number_char(data[j])))
      ++j;
    std::string_view token = json.substr(i, j - i);
    if (json_number::is_token(token)) {
      auto r = std::to_chars(ordinal, ordinal + sizeof ordinal, tokens.size());
      replace(i, std::string_view(ordinal, static_cast<size_t>(r.ptr - ordinal)), j);
      tokens.push_back(token);
    }
    i = j;
  }
  out.insert(out.end(), data + copied, data + n);
  out.resize(out.size() + padding);
}

bool DomNumbers::parse_plain(dom::parser& parser, std::string_view bytes, dom::element& root) {
  indexed_ = false;
  if (buffer_.size() < bytes.size() + simdjson::SIMDJSON_PADDING)
    buffer_.resize(bytes.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(buffer_.data(), bytes.data(), bytes.size());
  return parser.parse(buffer_.data(), bytes.size(), false).get(root) == simdjson::SUCCESS;
}

dom::element DomNumbers::parse_indexed(dom::parser& parser, std::string_view bytes) {
  indexed_ = true;
  tokens_.clear();
  index_for_simdjson(bytes, buffer_, simdjson::SIMDJSON_PADDING, tokens_);
  dom::element root;
  if (auto error = parser.parse(buffer_.data(), buffer_.size() - simdjson::SIMDJSON_PADDING, false).get(root))
    serialization_error(simdjson::error_message(error));
  for (std::string_view t : tokens_)
    if (auto why = json_number::problem(t)) [[unlikely]]
      serialization_error(*why);
  return root;
}

bool DomNumbers::is_number(dom::element e) noexcept {
  auto t = e.type();
  return t == T::INT64 || t == T::UINT64 || t == T::DOUBLE;
}

std::string_view DomNumbers::token(dom::element e) const {
  return tokens_[static_cast<size_t>(e.get_int64().value_unsafe())];
}

bool DomNumbers::is_integral(dom::element e) const {
  if (indexed_)
    return is_number(e) && json_number::integral(token(e));
  return e.type() == T::INT64 || e.type() == T::UINT64;
}

bool DomNumbers::is_int(dom::element e) const {
  if (indexed_)
    return is_number(e) && json_number::is_int(token(e));
  if (e.type() != T::INT64)
    return false;
  int64_t v = e.get_int64().value_unsafe();
  return v == static_cast<int32_t>(v);
}

int64_t DomNumbers::long_value(dom::element e) const {
  if (indexed_)
    return json_number::long_value(token(e));
  switch (e.type()) {
    case T::INT64: return e.get_int64().value_unsafe();
    case T::UINT64: return static_cast<int64_t>(e.get_uint64().value_unsafe()); // its low 64 bits
    default: needs_text(); // a fraction: BigDecimal truncates its exact value
  }
}

int32_t DomNumbers::int_value(dom::element e) const {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(long_value(e))));
}

float DomNumbers::float_value(dom::element e) const {
  if (indexed_)
    return json_number::float_value(token(e));
  switch (e.type()) { // an integer converts with one rounding; a double would round twice
    case T::INT64: return static_cast<float>(e.get_int64().value_unsafe());
    case T::UINT64: return static_cast<float>(e.get_uint64().value_unsafe());
    default: needs_text();
  }
}

double DomNumbers::double_value(dom::element e) const {
  if (indexed_)
    return json_number::double_value(token(e));
  switch (e.type()) {
    case T::INT64: return static_cast<double>(e.get_int64().value_unsafe());
    case T::UINT64: return static_cast<double>(e.get_uint64().value_unsafe());
    default: {
      double d = e.get_double().value_unsafe();
      if (d == 0 && std::signbit(d))
        needs_text(); // -0.0 (Connect: 0.0) or an underflow (-0.0)
      return d;
    }
  }
}

std::string_view DomNumbers::decimal_text(dom::element e) {
  if (indexed_)
    return token(e);
  digits_.clear();
  switch (e.type()) {
    case T::INT64: append_int(e.get_int64().value_unsafe(), digits_); break;
    case T::UINT64: digits_ = std::to_string(e.get_uint64().value_unsafe()); break;
    default: needs_text(); // a double has lost digits
  }
  return digits_;
}

bool DomNumbers::is_long(dom::element e) const {
  if (!indexed_)
    return e.type() == T::INT64;
  if (!is_number(e) || !json_number::integral(token(e)))
    return false;
  std::string_view t = token(e);
  bool negative = t[0] == '-';
  size_t first = std::min(t.find_first_not_of('0', negative ? 1 : 0), t.size());
  if (t.size() - first > 19) // 9223372036854775807 has 19 digits
    return false;
  uint64_t u = 0;
  for (char c : t.substr(first))
    u = u * 10 + static_cast<uint64_t>(c - '0');
  return negative ? u <= uint64_t{1} << 63 : u < uint64_t{1} << 63;
}

void DomNumbers::write_json(dom::element e, std::string& out) const {
  switch (e.type()) {
    case T::OBJECT: {
      out += '{';
      bool first = true;
      dom::object o = e.get_object().value_unsafe();
      for (auto [k, v] : o) {
        if (!first)
          out += ',';
        first = false;
        append_json_string(k, out);
        out += ':';
        write_json(v, out);
      }
      out += '}';
      break;
    }
    case T::ARRAY: {
      out += '[';
      bool first = true;
      dom::array a = e.get_array().value_unsafe();
      for (auto v : a) {
        if (!first)
          out += ',';
        first = false;
        write_json(v, out);
      }
      out += ']';
      break;
    }
    case T::STRING: append_json_string(e.get_string().value_unsafe(), out); break;
    case T::INT64:
    case T::UINT64:
    case T::DOUBLE:
      if (indexed_) {
        out += token(e);
        break;
      }
      switch (e.type()) {
        case T::INT64: append_int(e.get_int64().value_unsafe(), out); break;
        case T::UINT64: out += std::to_string(e.get_uint64().value_unsafe()); break;
        default: needs_text(); // a double has lost the fraction's digits
      }
      break;
    case T::BOOL: out += e.get_bool().value_unsafe() ? "true" : "false"; break;
    case T::NULL_VALUE: out += "null"; break;
  }
}

} // namespace weir::runtime::convert
