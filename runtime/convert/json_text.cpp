#include "runtime/convert/json_text.hpp"

#include <array>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

constexpr double pow10_double[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
constexpr uint64_t pow10_int[] = {1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
                                  100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
                                  1000000000000ULL, 10000000000000ULL, 100000000000000ULL, 1000000000000000ULL};

// Java's plain notation of `a` (positive, in [1e-3, 1e7)) when its shortest decimal
// has at most 15 significant digits, the common case (prices, measurements); nullptr
// otherwise. For k = 0, 1, ... fraction digits, m = round(a * 10^k) is the only
// candidate: decimals 10^-k apart are more than 4 ulps apart at 15 digits, so at most
// one lies within a's rounding interval. m / 10^k is exact in, and correctly rounded
// by, one division (m < 2^53, 10^k exact), so `m / 10^k == a` is exactly "the decimal
// reads back as a", and the first k that passes gives the shortest digits, what
// Double.toString prints. ~30 instructions instead of a general shortest-digits search.
inline char* plain_few_digits(double a, char* o) {
  for (int k = 0; k < 16; ++k) {
    double scaled = a * pow10_double[k];
    if (scaled >= 1e15)
      return nullptr;
    // Signed conversions (m < 1e15): one instruction each way, unlike uint64_t's.
    auto m = static_cast<int64_t>(scaled + 0.5);
    if (static_cast<double>(m) / pow10_double[k] != a)
      continue;
    // For k > 0 the decimal is not whole (else k = 0 would have passed), and no
    // integer lies between it and a (they are closer than 10^-k), so the integer
    // part is a's: no 64-bit division.
    int64_t whole = k == 0 ? m : static_cast<int64_t>(a);
    auto frac = static_cast<uint64_t>(m - whole * static_cast<int64_t>(pow10_int[k]));
    o = write_int(whole, o);
    *o++ = '.';
    if (k == 0) {
      *o++ = '0';
      return o;
    }
    for (int i = k - 1; i >= 0; --i, frac /= 10)
      o[i] = static_cast<char>('0' + frac % 10);
    return o + k;
  }
  return nullptr;
}

// Java's Double/Float.toString at `o` (room for 32 bytes); returns the end. Every
// value; java_format() below takes the common ones first.
template <class F>
[[gnu::noinline]] char* java_format_general(F v, char* o) {
  auto put = [&](std::string_view t) {
    std::memcpy(o, t.data(), t.size());
    o += t.size();
  };
  if (std::isnan(v)) {
    put("NaN");
    return o;
  }
  if (std::isinf(v)) {
    put(v < 0 ? "-Infinity" : "Infinity");
    return o;
  }
  if (v == 0) {
    put(std::signbit(v) ? "-0.0" : "0.0");
    return o;
  }
  double a0 = std::fabs(static_cast<double>(v));
  if (a0 >= 1e-3 && a0 < 1e7) {
    // Java prints this range in plain notation: the shortest fixed form, plus ".0"
    // for whole numbers.
    char* start = o;
    o = std::to_chars(o, o + 32, v, std::chars_format::fixed).ptr;
    if (std::memchr(start, '.', static_cast<size_t>(o - start)) == nullptr) {
      *o++ = '.';
      *o++ = '0';
    }
    return o;
  }
  // Shortest round-trip digits, then Java's layout of them.
  char buf[48];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  const char* p = buf;
  if (*p == '-') {
    *o++ = '-';
    ++p;
  }
  char digits[32];
  size_t n = 0;
  for (; p < r.ptr && *p != 'e'; ++p)
    if (*p != '.')
      digits[n++] = *p;
  int exp = 0;
  std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), r.ptr, exp);
  while (n > 1 && digits[n - 1] == '0')
    --n;
  double a = std::fabs(static_cast<double>(v));
  if (a >= 1e-3 && a < 1e7) {
    if (exp >= 0) {
      auto int_digits = static_cast<size_t>(exp) + 1;
      for (size_t i = 0; i < int_digits; ++i)
        *o++ = i < n ? digits[i] : '0';
      *o++ = '.';
      if (n > int_digits) {
        std::memcpy(o, digits + int_digits, n - int_digits);
        o += n - int_digits;
      } else {
        *o++ = '0';
      }
    } else {
      *o++ = '0';
      *o++ = '.';
      for (int i = 0; i < -exp - 1; ++i)
        *o++ = '0';
      std::memcpy(o, digits, n);
      o += n;
    }
    return o;
  }
  *o++ = digits[0];
  *o++ = '.';
  if (n > 1) {
    std::memcpy(o, digits + 1, n - 1);
    o += n - 1;
  } else {
    *o++ = '0';
  }
  *o++ = 'E';
  return std::to_chars(o, o + 8, exp).ptr;
}

// Java's Double/Float.toString at `o` (room for 32 bytes); returns the end. Doubles
// in the plain range with few digits (the common case) are written inline here, the
// rest out of line; NaN, infinities and zero fail the range test.
template <class F>
char* java_format(F v, char* o) {
  if constexpr (std::is_same_v<F, double>) {
    double a = std::fabs(v);
    if (a >= 1e-3 && a < 1e7) [[likely]] {
      *o = '-'; // kept only when negative
      if (char* e = plain_few_digits(a, o + (std::signbit(v) ? 1 : 0)))
        return e;
    }
  }
  return java_format_general(v, o);
}

template <class F>
void java_format(F v, std::string& out) {
  char buf[40];
  out.append(buf, java_format(v, buf));
}

} // namespace


namespace {

// Writes `s` as a JSON string at `o` (room for 6 * s.size() + 2 bytes); returns the end.
char* write_json_string(std::string_view s, char* o) {
  *o++ = '"';
  if (s.empty()) { // its data() may be null, which memcpy must not get even for 0 bytes
    *o++ = '"';
    return o;
  }
  const char* p = s.data();
  const char* end = p + s.size();
  while (true) {
    const char* run = p;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1F);
    while (end - p >= 16) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                                 _mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl));
      if (int mask = _mm_movemask_epi8(hit)) {
        p += __builtin_ctz(static_cast<unsigned>(mask));
        goto found;
      }
      p += 16;
    }
#endif
    while (p < end && !escape_table[static_cast<uint8_t>(*p)])
      ++p;
#if defined(__SSE2__)
  found:
#endif
    std::memcpy(o, run, static_cast<size_t>(p - run));
    o += p - run;
    if (p == end)
      break;
    auto c = static_cast<uint8_t>(*p++);
    *o++ = '\\';
    switch (c) {
      case '"': *o++ = '"'; break;
      case '\\': *o++ = '\\'; break;
      case '\n': *o++ = 'n'; break;
      case '\r': *o++ = 'r'; break;
      case '\t': *o++ = 't'; break;
      case '\b': *o++ = 'b'; break;
      case '\f': *o++ = 'f'; break;
      default: {
        static constexpr char hex[] = "0123456789ABCDEF";
        *o++ = 'u';
        *o++ = '0';
        *o++ = '0';
        *o++ = hex[c >> 4];
        *o++ = hex[c & 15];
      }
    }
  }
  *o++ = '"';
  return o;
}

} // namespace

void JsonBuffer::grow(size_t n) {
  size_t cap = std::max(cap_ * 2, size_ + n + 256);
  auto d = std::make_unique_for_overwrite<char[]>(cap);
  if (size_)
    std::memcpy(d.get(), data_.get(), size_);
  data_ = std::move(d);
  cap_ = cap;
}

void append_json_string(std::string_view s, JsonBuffer& out) {
  out.commit(write_json_string(s, out.reserve(6 * s.size() + 2)));
}

void append_json_string(std::string_view s, std::string& out) {
  size_t old = out.size();
  out.resize(old + 6 * s.size() + 2);
  char* e = write_json_string(s, out.data() + old);
  out.resize(static_cast<size_t>(e - out.data()));
}

void append_int(int64_t i, JsonBuffer& out) { out.commit(write_int(i, out.reserve(24))); }

char* write_json_double(double d, char* o) {
  if (std::isfinite(d)) [[likely]]
    return java_format(d, o);
  *o++ = '"';
  o = java_format(d, o);
  *o++ = '"';
  return o;
}

void append_json_double(double d, JsonBuffer& out) { out.commit(write_json_double(d, out.reserve(48))); }

void append_json_float(float f, JsonBuffer& out) {
  char* o = out.reserve(48);
  if (!std::isfinite(f)) {
    *o++ = '"';
    o = java_format(f, o);
    *o++ = '"';
  } else {
    o = java_format(f, o);
  }
  out.commit(o);
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
  out.append(buf, write_int(i, buf));
}



namespace {

/// A std::string behind JsonBuffer's reserve/commit interface, so that one writer
/// serves both (the reserved bytes are zero-filled by resize first: the string path
/// is the cold one).
class StringOut {
public:
  explicit StringOut(std::string& s) : s_(s) {}
  char* reserve(size_t n) {
    size_t old = s_.size();
    s_.resize(old + n);
    return s_.data() + old;
  }
  void commit(const char* end) { s_.resize(static_cast<size_t>(end - s_.data())); }

private:
  std::string& s_;
};

template <class Out>
[[gnu::always_inline]] inline void put(std::string_view s, Out& out) {
  char* o = out.reserve(s.size());
  copy_short(o, s.data(), s.size());
  out.commit(o + s.size());
}

/// `sep` (when not the first), `name`, then `=`: one capacity check per field.
template <class Out>
[[gnu::always_inline]] inline void put_name(bool first, std::string_view sep, std::string_view name, Out& out) {
  char* o = out.reserve(sep.size() + name.size() + 1);
  if (!first) {
    copy_short(o, sep.data(), sep.size());
    o += sep.size();
  }
  copy_short(o, name.data(), name.size());
  o += name.size();
  *o++ = '=';
  out.commit(o);
}

/// A value without a schema that is not a container, inline: false when it is one.
template <class Out>
[[gnu::always_inline]] inline bool put_scalar(const data::Value& v, Out& out) {
  using data::Kind;
  switch (v.kind()) {
    case Kind::Null: put("null", out); return true;
    case Kind::Boolean: put(v.as_bool() ? "true" : "false", out); return true;
    case Kind::Int8:
    case Kind::Int16:
    case Kind::Int32:
    case Kind::Int64: out.commit(write_int(v.as_int(), out.reserve(24))); return true;
    case Kind::Float32: out.commit(java_format(v.as_float32(), out.reserve(40))); return true;
    case Kind::Float64: out.commit(java_format(v.as_double(), out.reserve(40))); return true;
    case Kind::String:
    case Kind::Bytes: put(v.as_string(), out); return true;
    default: return false;
  }
}

template <class Out>
void java_to_string(const data::Value& v, const data::Schema* schema, Out& out) {
  using data::Kind;
  if (schema && schema->logical() == data::Logical::Decimal && v.kind() == Kind::Bytes) [[unlikely]] {
    put(data::decimal_to_string(data::decimal_unscaled(v.as_string()), schema->decimal_scale()), out);
    return;
  }
  if (put_scalar(v, out))
    return;
  switch (v.kind()) {
    case Kind::Array: {
      const data::Schema* es = schema ? schema->value_schema().get() : nullptr;
      put("[", out);
      bool first = true;
      for (const auto& x : v.items()) {
        if (!first)
          put(", ", out);
        first = false;
        java_to_string(x, es, out);
      }
      put("]", out);
      return;
    }
    case Kind::Map: {
      const data::Schema* ks = schema ? schema->key_schema().get() : nullptr;
      const data::Schema* vs = schema ? schema->value_schema().get() : nullptr;
      put("{", out);
      bool first = true;
      for (const auto& e : v.entries()) {
        // String keys (every JSON object's) print as they are: one write with the
        // separator.
        if (e.key.kind() == Kind::String) [[likely]] {
          put_name(first, ", ", e.key.as_string(), out);
        } else {
          if (!first)
            put(", ", out);
          java_to_string(e.key, ks, out);
          put("=", out);
        }
        first = false;
        if (vs || !put_scalar(e.value, out)) // a schemaless map's scalars inline
          java_to_string(e.value, vs, out);
      }
      put("}", out);
      return;
    }
    case Kind::Struct: {
      put("Struct{", out);
      bool first = true;
      for (const auto& f : v.schema()->fields()) {
        const auto& x = v.fields()[f.index];
        if (x.is_null())
          continue;
        put_name(first, ",", f.name, out);
        first = false;
        java_to_string(x, f.schema.get(), out);
      }
      put("}", out);
      return;
    }
    default: return; // the scalars, written above
  }
}

} // namespace

void append_java_to_string(const data::Value& v, const data::Schema* schema, JsonBuffer& out) {
  java_to_string(v, schema, out);
}

void append_java_to_string(const data::Value& v, const data::Schema* schema, std::string& out) {
  StringOut o(out);
  java_to_string(v, schema, o);
}

} // namespace weir::runtime::convert
