#include "runtime/convert/json_text.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/data/decimal.hpp"

namespace weir::runtime::convert {

namespace {

// 1 for bytes that need escaping in a JSON string.
constexpr auto escape_table = [] {
  std::array<uint8_t, 256> t{};
  for (int c = 0; c < 0x20; ++c)
    t[c] = 1;
  t['"'] = 1;
  t['\\'] = 1;
  return t;
}();

// Shortest digits and decimal exponent of a finite non-zero value: value = 0.d1d2... * 10^exp10
// expressed as digits "d1d2..." and `point`, the position of the decimal point.
template <class F>
void java_format(F v, std::string& out) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v < 0 ? "-Infinity" : "Infinity";
    return;
  }
  if (v == 0) {
    out += std::signbit(v) ? "-0.0" : "0.0";
    return;
  }
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  // buf: [-]d[.ddd]e(+|-)xx
  std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
  bool negative = s[0] == '-';
  if (negative)
    s.remove_prefix(1);
  auto e = s.find('e');
  std::string_view mantissa = s.substr(0, e);
  int exp = std::atoi(std::string(s.substr(e + 1)).c_str());
  char digits[32];
  size_t n = 0;
  for (char c : mantissa)
    if (c != '.')
      digits[n++] = c;
  while (n > 1 && digits[n - 1] == '0')
    --n;
  if (negative)
    out += '-';
  double a = std::fabs(static_cast<double>(v));
  if (a >= 1e-3 && a < 1e7) {
    // Plain notation with at least one digit after the point.
    if (exp >= 0) {
      size_t int_digits = static_cast<size_t>(exp) + 1;
      for (size_t i = 0; i < int_digits; ++i)
        out += i < n ? digits[i] : '0';
      out += '.';
      if (n > int_digits)
        out.append(digits + int_digits, n - int_digits);
      else
        out += '0';
    } else {
      out += "0.";
      out.append(static_cast<size_t>(-exp - 1), '0');
      out.append(digits, n);
    }
    return;
  }
  out += digits[0];
  out += '.';
  if (n > 1)
    out.append(digits + 1, n - 1);
  else
    out += '0';
  out += 'E';
  out += std::to_string(exp);
}

} // namespace

void append_json_string(std::string_view s, std::string& out) {
  out += '"';
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<uint8_t>(s[i]);
    if (!escape_table[c]) [[likely]]
      continue;
    out.append(s.data() + start, i - start);
    start = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default: {
        static constexpr char hex[] = "0123456789ABCDEF";
        out += "\\u00";
        out += hex[c >> 4];
        out += hex[c & 15];
      }
    }
  }
  out.append(s.data() + start, s.size() - start);
  out += '"';
}

void append_java_double(double d, std::string& out) { java_format(d, out); }
void append_java_float(float f, std::string& out) { java_format(f, out); }

void append_json_double(double d, std::string& out) {
  if (!std::isfinite(d)) {
    out += '"';
    java_format(d, out);
    out += '"';
  } else {
    java_format(d, out);
  }
}

void append_json_float(float f, std::string& out) {
  if (!std::isfinite(f)) {
    out += '"';
    java_format(f, out);
    out += '"';
  } else {
    java_format(f, out);
  }
}

void append_int(int64_t i, std::string& out) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, i);
  out.append(buf, r.ptr);
}



void append_java_to_string(const data::Value& v, const data::Schema* schema, std::string& out) {
  using data::Kind;
  if (schema && schema->logical() == data::Logical::Decimal && v.kind() == Kind::Bytes) {
    out += data::decimal_to_string(data::decimal_unscaled(v.as_string()), schema->decimal_scale());
    return;
  }
  switch (v.kind()) {
    case Kind::Null: out += "null"; return;
    case Kind::Boolean: out += v.as_bool() ? "true" : "false"; return;
    case Kind::Int8:
    case Kind::Int16:
    case Kind::Int32:
    case Kind::Int64: append_int(v.as_int(), out); return;
    case Kind::Float32: append_java_float(v.as_float32(), out); return;
    case Kind::Float64: append_java_double(v.as_double(), out); return;
    case Kind::String:
    case Kind::Bytes: out += v.as_string(); return;
    case Kind::Array: {
      const data::Schema* es = schema ? schema->value_schema().get() : nullptr;
      out += '[';
      bool first = true;
      for (const auto& x : v.items()) {
        if (!first)
          out += ", ";
        first = false;
        append_java_to_string(x, es, out);
      }
      out += ']';
      return;
    }
    case Kind::Map: {
      const data::Schema* ks = schema ? schema->key_schema().get() : nullptr;
      const data::Schema* vs = schema ? schema->value_schema().get() : nullptr;
      out += '{';
      bool first = true;
      for (const auto& e : v.entries()) {
        if (!first)
          out += ", ";
        first = false;
        append_java_to_string(e.key, ks, out);
        out += '=';
        append_java_to_string(e.value, vs, out);
      }
      out += '}';
      return;
    }
    case Kind::Struct: {
      out += "Struct{";
      bool first = true;
      for (const auto& f : v.schema()->fields()) {
        const auto& x = v.fields()[f.index];
        if (x.is_null())
          continue;
        if (!first)
          out += ',';
        first = false;
        out += f.name;
        out += '=';
        append_java_to_string(x, f.schema.get(), out);
      }
      out += '}';
      return;
    }
  }
}

} // namespace weir::runtime::convert
