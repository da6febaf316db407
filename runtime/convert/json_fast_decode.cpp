#include "runtime/convert/json_fast_decode.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <simdjson.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WEIR_INDEX_AVX2 1
#endif

#include "runtime/convert/json_keys.hpp"
#include "runtime/convert/json_number.hpp"
#include "runtime/data/errors.hpp"

namespace weir::runtime::convert {

using namespace runtime::data;

namespace {

constexpr uint32_t root_slack = 4; ///< room for fields SMTs add to the root object
constexpr int max_depth = 1024;

// Bytes that end a run of plain string characters: quote, backslash, controls.
constexpr auto string_special = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c)
    t[c] = true;
  t['"'] = true;
  t['\\'] = true;
  return t;
}();

constexpr auto whitespace = [] {
  std::array<bool, 256> t{};
  t[' '] = t['\t'] = t['\n'] = t['\r'] = true;
  return t;
}();

int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

void append_utf8(uint32_t cp, char*& out) {
  if (cp < 0x80) {
    *out++ = static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out++ = static_cast<char>(0xC0 | (cp >> 6));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out++ = static_cast<char>(0xE0 | (cp >> 12));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out++ = static_cast<char>(0xF0 | (cp >> 18));
    *out++ = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out++ = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out++ = static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// A stack of T that is appended by value. Values arrive in registers and are stored
// whole; std::vector::push_back(const T&) would spill them to a temporary first and
// copy it with a wide load, which stalls on store forwarding.
template <class T>
class Stack {
public:
  size_t size() const noexcept { return size_; }
  T* data() noexcept { return data_.data(); }
  T& operator[](size_t i) noexcept { return data_[i]; }
  T& push() {
    if (size_ == data_.size()) [[unlikely]]
      data_.resize(data_.empty() ? 64 : data_.size() * 2);
    return data_[size_++];
  }
  void resize(size_t n) noexcept { size_ = n; }

private:
  std::vector<T> data_;
  size_t size_ = 0;
};

#if defined(WEIR_INDEX_AVX2)
// The state of index_avx2's pass; block() is a member, not a lambda, because a
// lambda would not inherit the target attribute its AVX2 intrinsics need.
struct Avx2Index {
  __m256i lo, hi, bs; ///< running minimum, maximum, and backslashes seen

  // 64 bytes -> their quote bits.
  [[gnu::target("avx2"), gnu::always_inline]] inline uint64_t block(const char* b) noexcept {
    const __m256i quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\');
    __m256i x = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    __m256i y = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32));
    lo = _mm256_min_epu8(lo, _mm256_min_epu8(x, y));
    hi = _mm256_max_epu8(hi, _mm256_max_epu8(x, y));
    bs = _mm256_or_si256(bs, _mm256_or_si256(_mm256_cmpeq_epi8(x, backslash), _mm256_cmpeq_epi8(y, backslash)));
    auto qx = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, quote)));
    auto qy = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(y, quote)));
    return uint64_t{qx} | uint64_t{qy} << 32;
  }
};

// index() with 32-byte vectors, where the CPU has them (checked once at run time, as
// simdjson picks its kernel): half the loads and compares of the 16-byte loop, and
// controls found by a running minimum, non-ASCII by a running maximum, rather than by
// a compare per vector. Writes the quote bits of [p, p + n) to `bits` (n / 64 + 1
// words); returns bit 0 set when some byte is non-ASCII, bit 1 when some byte is a
// backslash or a control character.
[[gnu::target("avx2")]] unsigned index_avx2(const char* p, size_t n, uint64_t* bits) noexcept {
  Avx2Index s{_mm256_set1_epi8(-1), _mm256_setzero_si256(), _mm256_setzero_si256()};
  size_t i = 0;
  for (; n - i >= 64; i += 64)
    bits[i / 64] = s.block(p + i);
  if (size_t rest = n - i; rest != 0 && n >= 64) {
    bits[i / 64] = s.block(p + n - 64) >> (64 - rest); // the last 64 bytes, shifted
  } else {
    char tail[64]; // a short record: padded with spaces (neither quote nor special)
    std::memset(tail, ' ', sizeof tail);
    std::memcpy(tail, p + i, rest);
    bits[i / 64] = s.block(tail);
  }
  // Non-ASCII: some byte >= 0x80. Control: some byte < 0x20.
  unsigned high = _mm256_movemask_epi8(s.hi) != 0;
  unsigned control = _mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_max_epu8(s.lo, _mm256_set1_epi8(0x1F)),
                                                            _mm256_set1_epi8(0x1F))) != 0;
  unsigned special = control | (_mm256_movemask_epi8(s.bs) != 0);
  return high | special << 1;
}

// __builtin_cpu_init first: this initializer may run before libgcc's own.
// WEIR_NO_AVX2 (set) selects the SSE2 pass, so that tests cover it on any machine.
const bool have_avx2 = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") != 0 && std::getenv("WEIR_NO_AVX2") == nullptr;
}();
#endif

} // namespace

// The value of eight digit values 0..9 in the bytes of `d`, the first (most
// significant) in the lowest byte. SWAR: a handful of operations instead of a
// multiply-add chain per digit.
[[gnu::always_inline]] inline uint64_t eight_digits_value(uint64_t d) noexcept {
  d = d * 10 + (d >> 8); // bytes 0, 2, 4, 6: the two-digit pairs
  return (((d & 0x000000FF000000FFULL) * 0x000F424000000064ULL)
          + (((d >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >> 32;
}

// Four ASCII digits at `p` as their value, or -1 when they are not all digits. The
// test is fast_float's: a byte outside '0'..'9' sets a high bit in (b - '0') or in
// (b + 0x46).
[[gnu::always_inline]] inline int64_t four_digits(const char* p) noexcept {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  uint32_t d = v - 0x30303030U;
  if (((d | (v + 0x46464646U)) & 0x80808080U) != 0)
    return -1;
  d = d * 10 + (d >> 8); // bytes 0 and 2: the two-digit pairs
  return static_cast<int64_t>((d & 0xFF) * 100 + ((d >> 16) & 0xFF));
}

constexpr uint64_t pow10_u64[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};

struct FastJsonDecoder::Impl {
  // The cursor lives in a local of object()/array() (a register) and is passed by
  // reference only to inlined helpers: a member cursor would be stored and reloaded
  // at every step. Out-of-line parts (nested containers, escaped strings, floats)
  // return their end through `after`.
  const char* begin = nullptr;
  const char* end = nullptr;
  const char* after = nullptr;
  // From index(): one bit per input byte, set at quotes; and whether the record has
  // no backslash and no control character at all (compact JSON without escapes, the
  // common case), so that every string simply ends at the next quote bit.
  std::vector<uint64_t> quote_bits;
  bool no_escapes = false;
  Arena* arena = nullptr;
  Stack<MapEntry> entries; ///< object entries under construction
  Stack<Value> items;      ///< array items under construction
  uint32_t last_root_size = 0; ///< entries of the last root object (capacity for the next)
  UniqueKeys unique_keys; ///< for objects that may repeat a key (rare)
  // The keys of the last root object that did not have the previous one's: records of
  // a topic mostly share their shape, and a root whose keys are those (or a prefix of
  // them), in order, has unique keys without a filter: one compare per key against
  // the remembered key, instead of hashing it into the filter (json_keys.hpp). Each
  // key is its size (4 bytes) and its bytes, read in order by one pointer.
  std::string shape;

  // One data-parallel pass over the record before parsing: where its quotes are,
  // whether it has escapes or control characters, and whether it is all ASCII (the
  // return value; most records are, which is cheaper to see than to validate UTF-8).
  // With the quotes indexed, finding a string's end is a bit scan instead of a
  // 16-byte load and compare that waits on the previous token (as simdjson's stage 1).
  bool index(std::string_view bytes) {
    size_t n = bytes.size();
    quote_bits.resize(n / 64 + 1); // + 1: a string may start at the very end
#if defined(WEIR_INDEX_AVX2)
    if (have_avx2) [[likely]] {
      unsigned found = index_avx2(bytes.data(), n, quote_bits.data());
      no_escapes = (found & 2) == 0;
      return (found & 1) == 0;
    }
#endif
    uint8_t high = 0, special = 0;
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1F);
    __m128i any_high = _mm_setzero_si128(), any_special = _mm_setzero_si128();
    auto block = [&](const char* p) { // 64 bytes -> their quote bits
      uint64_t bits = 0;
      for (int k = 0; k < 4; ++k) {
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
        any_high = _mm_or_si128(any_high, x);
        any_special = _mm_or_si128(any_special, _mm_or_si128(_mm_cmpeq_epi8(x, backslash),
                                                             _mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl)));
        bits |= static_cast<uint64_t>(static_cast<uint16_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, quote)))) << (16 * k);
      }
      return bits;
    };
    size_t i = 0;
    for (; n - i >= 64; i += 64)
      quote_bits[i / 64] = block(bytes.data() + i);
    if (size_t rest = n - i; rest != 0 && n >= 64) {
      // The tail: the last 64 bytes (overlapping ones already seen), shifted.
      quote_bits[i / 64] = block(bytes.data() + n - 64) >> (64 - rest);
    } else {
      // A short record (or none left): padded with spaces, which are neither quote,
      // escape, control nor non-ASCII.
      char tail[64];
      std::memset(tail, ' ', sizeof tail);
      std::memcpy(tail, bytes.data() + i, rest);
      quote_bits[i / 64] = block(tail);
    }
    high = static_cast<uint8_t>(_mm_movemask_epi8(any_high) != 0);
    special = static_cast<uint8_t>(_mm_movemask_epi8(any_special) != 0);
#else
    std::fill(quote_bits.begin(), quote_bits.end(), 0);
    for (size_t i = 0; i < n; ++i) {
      auto c = static_cast<uint8_t>(bytes[i]);
      high |= c >> 7;
      special |= string_special[c] && c != '"';
      quote_bits[i / 64] |= static_cast<uint64_t>(c == '"') << (i % 64);
    }
#endif
    no_escapes = special == 0;
    return high == 0;
  }

  // A cursor over the quote bits, kept in registers by the parsing loops (a local
  // passed by reference to inlined helpers): in a record without escapes every quote
  // opens or closes a string, and strings are parsed in order, so the next quote not
  // yet passed is the next string's opening quote, and the one after it its end. A
  // string's end is then a bit scan of a word already in a register, instead of a
  // load of the word at p (on the path from one string to the next) and a shift.
  // Out-of-line parts (nested containers) move p on their own; the caller then sets
  // its cursor at p again (quotes_at).
  struct Quotes {
    const char* base; ///< the input byte of bit 0 of the current word of quote_bits
    uint64_t bits;    ///< that word's quotes not passed yet
  };

  // The cursor at p: the quotes before p count as passed.
  [[gnu::always_inline]] inline Quotes quotes_at(const char* p) const {
    auto i = static_cast<size_t>(p - begin);
    return {begin + (i & ~size_t{63}), quote_bits[i / 64] & (~uint64_t{0} << (i % 64))};
  }

  // Passes the next quote and returns where it is (end if none); only valid when
  // no_escapes.
  [[gnu::always_inline]] inline const char* pass_quote(Quotes& q) const {
    while (q.bits == 0) {
      if (end - q.base <= 64) // the last word
        return end;
      q.base += 64;
      q.bits = quote_bits[static_cast<size_t>(q.base - begin) / 64];
    }
    const char* at = q.base + __builtin_ctzll(q.bits);
    q.bits &= q.bits - 1;
    return at;
  }

  [[noreturn, gnu::noinline, gnu::cold]] void fail(const char* p, const char* what) const {
    throw DataError("Converting byte[] to Kafka Connect data failed due to serialization error: " + std::string(what)
                    + " at offset " + std::to_string(p - begin));
  }

  [[gnu::always_inline]] inline void skip_ws(const char*& p) const {
    // Compact JSON has no whitespace: one compare settles the common case.
    while (p < end && static_cast<uint8_t>(*p) <= ' ' && whitespace[static_cast<uint8_t>(*p)])
      ++p;
  }

  // Advances p to the first quote, backslash or control character (or end); true
  // when that is a quote. The answer comes from the compare masks, not from reading
  // *p again: that load would put a load-to-use delay on every string's path.
  [[gnu::always_inline]] inline bool scan_plain(const char*& p) const {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1F);
    while (end - p >= 16) {
      __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      __m128i is_quote = _mm_cmpeq_epi8(x, quote);
      __m128i hit = _mm_or_si128(_mm_or_si128(is_quote, _mm_cmpeq_epi8(x, backslash)),
                                 _mm_cmpeq_epi8(_mm_max_epu8(x, ctl), ctl)); // x <= 0x1F
      if (unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(hit))) {
        unsigned at = static_cast<unsigned>(__builtin_ctz(mask));
        p += at;
        return (static_cast<unsigned>(_mm_movemask_epi8(is_quote)) >> at) & 1;
      }
      p += 16;
    }
#endif
    while (p < end && !string_special[static_cast<uint8_t>(*p)])
      ++p;
    return p < end && *p == '"';
  }

  // After the opening quote. Returns the string: a (plain) view of the input when it
  // has no escapes (the common case, inlined), else its unescaped copy in the arena.
  [[gnu::always_inline]] inline Value string(const char*& p, Quotes& q) {
    const char* start = p;
    if (no_escapes) [[likely]] {
      if (pass_quote(q) != start - 1) [[unlikely]] // the opening quote; never another
        q = quotes_at(start);
      p = pass_quote(q);
      if (p < end) [[likely]]
        return Value::plain_string({start, static_cast<size_t>(p++ - start)});
    } else if (scan_plain(p)) {
      return Value::plain_string({start, static_cast<size_t>(p++ - start)});
    }
    Value v = escaped_string(start, p);
    p = after;
    return v;
  }

  [[gnu::noinline]] Value escaped_string(const char* start, const char* p) {
    if (p >= end)
      fail(p, "unterminated string");
    if (*p != '\\')
      fail(p, "illegal unquoted control character in string");
    // Escapes: the unescaped text is never longer than the escaped one.
    const char* close = p;
    while (true) {
      if (close >= end)
        fail(p, "unterminated string");
      if (*close == '"')
        break;
      close += *close == '\\' ? 2 : 1;
    }
    char* out = static_cast<char*>(arena->allocate(static_cast<size_t>(close - start) + 4, 1));
    char* o = out;
    std::memcpy(o, start, static_cast<size_t>(p - start));
    o += p - start;
    while (true) {
      char c = *p;
      if (c == '"') {
        after = p + 1;
        return Value::string({out, static_cast<size_t>(o - out)});
      }
      if (static_cast<uint8_t>(c) < 0x20)
        fail(p, "illegal unquoted control character in string");
      if (c != '\\') {
        *o++ = c;
        ++p;
        continue;
      }
      if (p + 1 >= end)
        fail(p, "unterminated string");
      char e = p[1];
      p += 2;
      switch (e) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
          uint32_t cp = hex4(p);
          if (cp >= 0xD800 && cp <= 0xDBFF && p + 6 <= end && p[0] == '\\' && p[1] == 'u') {
            const char* save = p;
            p += 2;
            uint32_t low = hex4(p);
            if (low >= 0xDC00 && low <= 0xDFFF)
              cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            else
              p = save, cp = 0xFFFD;
          } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD; // a lone surrogate has no UTF-8 form
          }
          append_utf8(cp, o);
          break;
        }
        default: fail(p, "unrecognized character escape");
      }
    }
  }

  uint32_t hex4(const char*& p) const {
    if (p + 4 > end)
      fail(p, "truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      int d = hex_digit(p[i]);
      if (d < 0)
        fail(p, "invalid \\u escape");
      v = v << 4 | static_cast<uint32_t>(d);
    }
    p += 4;
    return v;
  }

  // Integers inline (the common case); a fraction or exponent goes out of line.
  [[gnu::always_inline]] inline Value number(const char*& p) {
    const char* start = p;
    bool negative = *p == '-';
    if (negative)
      ++p;
    if (p >= end || *p < '0' || *p > '9')
      fail(p, "invalid number");
    uint64_t u = 0;
    if (*p == '0') {
      ++p;
      if (p < end && *p >= '0' && *p <= '9') [[unlikely]] {
        Value v = leading_zeros(start, p);
        p = after;
        return v;
      }
    } else {
      // Eight bytes at a time while eight remain: all digits, or the digits before
      // the first non-digit (the number's end), in one step either way.
      while (end - p >= 8) {
        uint64_t v;
        std::memcpy(&v, p, 8);
        uint64_t d = v - 0x3030303030303030ULL;
        // fast_float's test: a byte outside '0'..'9' sets its high bit in (b - '0')
        // or in (b + 0x46). Bytes before the first such byte are digits, which
        // neither borrow nor carry, so its lowest set bit is exact.
        uint64_t non_digits = (d | (v + 0x4646464646464646ULL)) & 0x8080808080808080ULL;
        if (non_digits == 0) {
          u = u * 100000000 + eight_digits_value(d); // wraps: BigInteger.longValue()
          p += 8;
          continue;
        }
        auto k = static_cast<unsigned>(__builtin_ctzll(non_digits)) / 8; // digits left (0..7)
        if (k != 0) {
          // Shifted up, the k digits are the last of eight, after zeros.
          u = u * pow10_u64[k] + eight_digits_value(d << (8 * (8 - k)));
          p += k;
        }
        goto digits_done;
      }
      if (end - p >= 4) {
        if (int64_t four = four_digits(p); four >= 0) {
          u = u * 10000 + static_cast<uint64_t>(four);
          p += 4;
        }
      }
      while (p < end && *p >= '0' && *p <= '9')
        u = u * 10 + static_cast<uint64_t>(*p++ - '0'); // wraps: BigInteger.longValue()
    }
  digits_done:
    if (p < end && (*p == '.' || *p == 'e' || *p == 'E')) [[unlikely]] {
      Value v = fraction(start, p);
      p = after;
      return v;
    }
    // More than 19 digits may have wrapped; that is what Jackson's longValue() does too.
    // Past json_number::max_digits Jackson refuses the number (one compare here).
    if (static_cast<size_t>(p - start) > json_number::max_digits) [[unlikely]]
      check_long(start, p);
    return Value::int64(static_cast<int64_t>(negative ? 0 - u : u));
  }

  [[gnu::noinline, gnu::cold]] void check_long(const char* start, const char* stop) const {
    if (auto why = json_number::problem(std::string_view(start, static_cast<size_t>(stop - start))))
      fail(start, why->c_str());
  }

  // A number with leading zeros (`007`, `-00.5`; p at the digit after the first
  // zero), which Connect's JsonDeserializer accepts (ALLOW_LEADING_ZEROS_FOR_NUMBERS,
  // KAFKA-15012): the zeros count for nothing.
  [[gnu::noinline]] Value leading_zeros(const char* start, const char* p) {
    while (p < end && *p >= '0' && *p <= '9')
      ++p;
    if (p < end && (*p == '.' || *p == 'e' || *p == 'E'))
      return fraction(start, p);
    std::string_view token(start, static_cast<size_t>(p - start));
    if (auto why = json_number::problem(token)) [[unlikely]]
      fail(start, why->c_str());
    after = p;
    return Value::int64(json_number::long_value(token));
  }

  // The rest of a number with a fraction or exponent (p at '.', 'e' or 'E').
  [[gnu::noinline]] Value fraction(const char* start, const char* p) {
    const char* dot = nullptr;
    if (*p == '.') {
      dot = p++;
      if (p >= end || *p < '0' || *p > '9')
        fail(p, "invalid number: digit expected after '.'");
      while (p < end && *p >= '0' && *p <= '9')
        ++p;
      if (p >= end || (*p != 'e' && *p != 'E'))
        if (auto d = plain_decimal(start, dot, p)) {
          after = p;
          return Value::float64(*d);
        }
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      ++p;
      if (p < end && (*p == '+' || *p == '-'))
        ++p;
      if (p >= end || *p < '0' || *p > '9')
        fail(p, "invalid number: digit expected in exponent");
      while (p < end && *p >= '0' && *p <= '9')
        ++p;
    }
    // Rare: a long fraction or an exponent. Read as Connect reads it (json_number.hpp):
    // refused past Jackson's limits, else the nearest double, +0.0 for an exact zero.
    std::string_view token(start, static_cast<size_t>(p - start));
    if (auto why = json_number::problem(token)) [[unlikely]]
      fail(start, why->c_str());
    after = p;
    return Value::float64(json_number::double_value(token));
  }

  // [start, stop) is `-?digits.digits` (dot at `dot`). With at most 15 digits in all,
  // the digits m (< 2^53) and 10^k for k fraction digits are exact doubles, so m / 10^k
  // is one correctly rounded division: the double from_chars gives (Clinger's fast
  // path), in a fraction of its instructions. Longer numbers: nothing.
  static std::optional<double> plain_decimal(const char* start, const char* dot, const char* stop) {
    static constexpr double powers[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    bool negative = *start == '-';
    const char* p = start + negative;
    if (stop - p - 1 > 15)
      return std::nullopt;
    uint64_t m = 0;
    for (; p < stop; ++p)
      if (p != dot)
        m = m * 10 + static_cast<uint64_t>(*p - '0');
    double d = static_cast<double>(m) / powers[stop - dot - 1];
    return negative && m != 0 ? -d : d; // -0.0 reads as 0.0, as BigDecimal has it
  }

  [[gnu::always_inline]] inline void literal(const char*& p, const char* word, size_t n) const {
    if (static_cast<size_t>(end - p) < n || std::memcmp(p, word, n) != 0)
      fail(p, "unrecognized token");
    p += n;
  }

  // Any value at p (whitespace skipped): scalars inline, containers out of line.
  [[gnu::always_inline]] inline Value value(const char*& p, int depth, Quotes& q) {
    if (p < end && static_cast<uint8_t>(*p) <= ' ')
      skip_ws(p);
    if (p >= end)
      fail(p, "unexpected end of input");
    switch (*p) {
      case '"': ++p; return string(p, q);
      case '{': {
        Value v = object(p, depth + 1);
        p = after;
        q = quotes_at(p);
        return v;
      }
      case '[': {
        Value v = array(p, depth + 1);
        p = after;
        q = quotes_at(p);
        return v;
      }
      case 't': literal(p, "true", 4); return Value::boolean(true);
      case 'f': literal(p, "false", 5); return Value::boolean(false);
      case 'n': literal(p, "null", 4); return Value();
      default:
        if (*p == '-' || (*p >= '0' && *p <= '9'))
          return number(p);
        fail(p, "unexpected character");
    }
  }

  // Whether the next non-whitespace byte is `c` (consumed). Compact JSON has the
  // byte right at p: one bounds check and one compare, whitespace only on a miss.
  [[gnu::always_inline]] inline bool next_is(const char*& p, char c) const {
    if (p < end && *p == c) [[likely]] {
      ++p;
      return true;
    }
    skip_ws(p);
    if (p < end && *p == c) {
      ++p;
      return true;
    }
    return false;
  }

  // An object's members, from just past its '{' to just past its '}': `add_key(key)`
  // stores a key and returns where, `set_value(where, value)` then stores its value.
  // The key is stored before the value is parsed: a key kept in a local across that
  // call would be spilled and reloaded, a store-forwarding stall. Each key goes to
  // `check_key` first, for the repeated-key check (json_keys.hpp).
  template <class CheckKey, class AddKey, class SetValue>
  [[gnu::always_inline]] inline void members(const char*& p, int depth, Quotes& q, CheckKey&& check_key,
                                             AddKey&& add_key, SetValue&& set_value) {
    if (next_is(p, '}'))
      return;
    while (true) {
      if (!next_is(p, '"')) {
        skip_ws(p);
        fail(p, "field name expected");
      }
      Value key = string(p, q);
      check_key(key);
      auto slot = add_key(key);
      if (!next_is(p, ':')) {
        skip_ws(p);
        fail(p, "':' expected");
      }
      set_value(slot, value(p, depth, q));
      if (next_is(p, ','))
        continue;
      if (next_is(p, '}'))
        return;
      skip_ws(p);
      fail(p, "',' or '}' expected");
    }
  }

  // p at '{'; the end goes to `after`. Entries are collected on the stack, then
  // copied into the arena at their exact number.
  [[gnu::noinline]] Value object(const char* p, int depth) {
    if (depth > max_depth)
      fail(p, "maximum nesting depth exceeded");
    ++p; // '{'
    size_t base = entries.size();
    KeyFilter filter;
    Quotes q = quotes_at(p);
    members(
        p, depth, q,
        [&](Value key) {
          // Its first and last byte: a plain key is a view of the input, so for an
          // empty one these read its quotes; an escaped key is an unescaped copy,
          // never empty.
          const char* k = key.as_string().data();
          filter.add(static_cast<uint8_t>(k[0]), static_cast<uint8_t>(k[static_cast<ptrdiff_t>(key.size()) - 1]),
                     key.size());
        },
        [&](Value key) {
          size_t slot = entries.size();
          entries.push().key = key;
          return slot;
        },
        [&](size_t slot, Value v) { entries[slot].value = v; });
    if (filter.may_repeat()) [[unlikely]]
      entries.resize(base + unique_keys.apply(entries.data() + base, entries.size() - base, entry_key));
    Value m = Value::map_of(*arena, std::span<const MapEntry>(entries.data() + base, entries.size() - base));
    entries.resize(base);
    after = p;
    return m;
  }

  // The root object (p at '{'; the end goes to `after`). Its entries go straight into
  // an arena map with room for as many as the previous root had (records of a topic
  // mostly share their shape) plus slack for fields SMTs add; a larger one grows it.
  // Nested objects are collected on the stack instead: their size is less predictable.
  [[gnu::noinline]] Value root_object(const char* p) {
    ++p; // '{'
    uint32_t capacity = last_root_size + root_slack;
    Value m = Value::map(*arena, capacity);
    // The next remembered key, and the end of them; both null once a key differs
    // (two registers: the loop has few to spare).
    const char* known = shape.data();
    const char* known_end = known + shape.size();
    Quotes q = quotes_at(p);
    members(
        p, 1, q,
        [&](Value key) {
          uint32_t size;
          if (known < known_end && (std::memcpy(&size, known, 4), size == key.size())
              && equal_bytes(known + 4, key.as_string().data(), size)) [[likely]]
            known += 4 + size;
          else
            known = known_end = nullptr;
        },
        [&](Value key) {
          uint32_t slot = m.size();
          if (slot == capacity) [[unlikely]] {
            capacity = 2 * slot + root_slack;
            m = with_capacity(m, capacity);
          }
          m.append_within(key, Value());
          return slot;
        },
        [&](uint32_t slot, Value v) { m.entries()[slot].value = v; });
    if (known == nullptr) [[unlikely]]
      m = new_shape(m);
    last_root_size = m.size();
    after = p;
    return m;
  }

  // A copy of map `m` with room for `capacity` entries (out of line: the root
  // object's loop keeps its map in registers, which a call taking its address
  // would prevent).
  [[gnu::noinline]] Value with_capacity(Value m, uint32_t capacity) {
    return Value::map_of(*arena, m.entries(), capacity - m.size());
  }

  // A root object whose keys are not the remembered ones: one entry per key, and its
  // keys remembered for the next root. (By value, as with_capacity.)
  [[gnu::noinline]] Value new_shape(Value m) {
    if (keys_may_repeat(m.entries().data(), m.size(), entry_key))
      m.truncate(static_cast<uint32_t>(unique_keys.apply(m.entries().data(), m.size(), entry_key)));
    shape.clear();
    for (const auto& e : m.entries()) {
      std::string_view k = e.key.as_string();
      auto size = static_cast<uint32_t>(k.size());
      shape.append(reinterpret_cast<const char*>(&size), 4);
      shape += k;
    }
    return m;
  }

  // p at '['; the end goes to `after`.
  [[gnu::noinline]] Value array(const char* p, int depth) {
    if (depth > max_depth)
      fail(p, "maximum nesting depth exceeded");
    ++p; // '['
    size_t base = items.size();
    Quotes q = quotes_at(p);
    skip_ws(p);
    if (p < end && *p == ']') {
      ++p;
    } else {
      while (true) {
        Value v = value(p, depth, q);
        items.push() = v;
        skip_ws(p);
        if (p < end && *p == ',') {
          ++p;
          continue;
        }
        if (p < end && *p == ']') {
          ++p;
          break;
        }
        fail(p, "',' or ']' expected");
      }
    }
    Value a = Value::array_of(*arena, std::span<const Value>(items.data() + base, items.size() - base));
    items.resize(base);
    after = p;
    return a;
  }
};

namespace {

// Where the first byte that does not start a valid UTF-8 sequence is (RFC 3629: no
// overlong forms, no surrogates, nothing above U+10FFFF); only on the error path,
// after simdjson's validator said no, so that the error names the true offset.
[[gnu::cold]] size_t first_invalid_utf8(std::string_view bytes) {
  const auto* b = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t n = bytes.size(), i = 0;
  while (i < n) {
    uint8_t c = b[i];
    size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (len == 0 || i + len > n) return i;
    for (size_t k = 1; k < len; ++k)
      if ((b[i + k] & 0xC0) != 0x80) return i;
    uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
    for (size_t k = 1; k < len; ++k) cp = (cp << 6) | (b[i + k] & 0x3F);
    static constexpr uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < smallest[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return n;
}

} // namespace

FastJsonDecoder::FastJsonDecoder() : impl_(std::make_unique<Impl>()) {}
FastJsonDecoder::~FastJsonDecoder() = default;

Value FastJsonDecoder::decode(std::string_view bytes, Arena& arena) {
  auto& m = *impl_;
  const char* p = bytes.data();
  m.begin = p;
  m.end = p + bytes.size();
  m.arena = &arena;
  if (!m.index(bytes) && !simdjson::validate_utf8(bytes.data(), bytes.size()))
    m.fail(p + first_invalid_utf8(bytes), "invalid UTF-8");
  try {
    m.skip_ws(p);
    Value out;
    if (p < m.end && *p == '{') {
      out = m.root_object(p);
      p = m.after;
    } else {
      auto q = m.quotes_at(p);
      out = m.value(p, 0, q);
    }
    m.skip_ws(p);
    if (p != m.end)
      m.fail(p, "trailing content");
    return out;
  } catch (...) {
    m.entries.resize(0);
    m.items.resize(0);
    throw;
  }
}

} // namespace weir::runtime::convert
