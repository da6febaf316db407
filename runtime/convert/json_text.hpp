// JSON text output with Jackson's conventions (what Kafka Connect's JsonConverter
// writes), so weir's bytes match Kafka Connect's for the same data:
// - strings: `"` `\` and control characters escaped, everything else (including
//   non-ASCII UTF-8 and `/`) written as is;
// - doubles and floats: Java's Double/Float.toString (`1.0`, `1.0E10`, `1.0E-4`);
//   NaN and infinities as the strings "NaN", "Infinity", "-Infinity".
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "runtime/data/schema.hpp"

namespace weir::runtime::convert {

/// Copies `n` bytes for short strings (keys, small values) without a call: two
/// overlapping loads and stores, as memcpy does inline for a known size. Longer
/// strings go to memcpy.
inline void copy_short(char* dst, const char* src, size_t n) noexcept {
  if (n >= 8) {
    if (n > 16) {
      std::memcpy(dst, src, n);
      return;
    }
    uint64_t a, b;
    std::memcpy(&a, src, 8);
    std::memcpy(&b, src + n - 8, 8);
    std::memcpy(dst, &a, 8);
    std::memcpy(dst + n - 8, &b, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, src, 4);
    std::memcpy(&b, src + n - 4, 4);
    std::memcpy(dst, &a, 4);
    std::memcpy(dst + n - 4, &b, 4);
  } else if (n != 0) {
    // 1 to 3 bytes: the first, the middle and the last (some of them the same byte).
    char a = src[0], b = src[n / 2], c = src[n - 1];
    dst[0] = a;
    dst[n / 2] = b;
    dst[n - 1] = c;
  }
}

namespace detail {

/// The eight decimal digits of `v` (< 10^8, leading zeros kept) as ASCII-digit values
/// 0..9 in one little-endian word, most significant digit in the lowest byte. SWAR:
/// the halves, then the pairs, then the single digits are split in parallel lanes,
/// each division by a constant done as a multiply and shift exact in its lane's range
/// (x * 10486 >> 20 == x / 100 for x < 10^4; x * 103 >> 10 == x / 10 for x < 100).
inline uint64_t eight_digits(uint32_t v) noexcept {
  uint64_t x = (v / 10000) | (static_cast<uint64_t>(v % 10000) << 32);
  uint64_t hundreds = ((x * 10486) >> 20) & 0x0000007F0000007FULL;
  x = hundreds | ((x - hundreds * 100) << 16);
  uint64_t tens = ((x * 103) >> 10) & 0x000F000F000F000FULL;
  return tens | ((x - tens * 10) << 8);
}

} // namespace detail

/// Writes `i` in decimal at `o` (room for 24 bytes; bytes after the digits may be
/// overwritten) and returns the end: the same text as std::to_chars, in about a
/// third of its instructions (8 digits at a time instead of 2, no length loop).
inline char* write_int(int64_t i, char* o) noexcept {
  uint64_t u = static_cast<uint64_t>(i);
  if (i < 0) {
    *o++ = '-';
    u = 0 - u;
  }
  if (u < 10) { // one digit (counts, flags, small enums): no SWAR
    *o = static_cast<char>('0' + u);
    return o + 1;
  }
  constexpr uint64_t ascii_zeros = 0x3030303030303030ULL;
  auto put8 = [](char* p, uint64_t digits) { std::memcpy(p, &digits, 8); };
  // The leading block of up to 8 digits: its leading zero bytes are dropped.
  auto leading = [&](uint32_t v) { // v != 0
    uint64_t d = detail::eight_digits(v);
    int zeros = __builtin_ctzll(d) / 8; // leading zero digits (lowest bytes)
    put8(o, (d >> (8 * zeros)) + ascii_zeros);
    o += 8 - zeros;
  };
  if (u < 100000000) {
    leading(static_cast<uint32_t>(u));
    return o;
  }
  uint64_t high = u / 100000000;
  auto low = static_cast<uint32_t>(u % 100000000);
  if (high < 100000000) {
    leading(static_cast<uint32_t>(high));
  } else {
    leading(static_cast<uint32_t>(high / 100000000)); // at most 1844
    put8(o, detail::eight_digits(static_cast<uint32_t>(high % 100000000)) + ascii_zeros);
    o += 8;
  }
  put8(o, detail::eight_digits(low) + ascii_zeros);
  return o + 8;
}

/// An append-only byte buffer for the hot serialization path: one capacity check per
/// token instead of one per byte (std::string::push_back is a call per byte).
class JsonBuffer {
public:
  void clear() noexcept { size_ = 0; }
  std::string_view view() const noexcept { return {data_.get(), size_}; }
  size_t size() const noexcept { return size_; }
  /// Room for `n` more bytes; write them at the returned pointer, then commit().
  char* reserve(size_t n) {
    if (cap_ - size_ < n) [[unlikely]]
      grow(n);
    return data_.get() + size_;
  }
  void commit(const char* end) noexcept { size_ = static_cast<size_t>(end - data_.get()); }
  /// The end of the room reserve() made: bytes up to here may be written before
  /// commit() without another reserve().
  char* limit() const noexcept { return data_.get() + cap_; }
  JsonBuffer& operator+=(char c) {
    *reserve(1) = c;
    ++size_;
    return *this;
  }
  JsonBuffer& operator+=(std::string_view s) {
    // An empty view may have a null data(), which memcpy must not get even for 0 bytes.
    if (s.empty())
      return *this;
    std::memcpy(reserve(s.size()), s.data(), s.size());
    size_ += s.size();
    return *this;
  }

private:
  void grow(size_t n);
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
  size_t cap_ = 0;
};

/// Writes `d` as append_json_double does at `o` (room for 48 bytes); returns the end.
char* write_json_double(double d, char* o);

void append_json_string(std::string_view s, JsonBuffer& out);
void append_int(int64_t i, JsonBuffer& out);
void append_json_double(double d, JsonBuffer& out);
void append_json_float(float f, JsonBuffer& out);

void append_json_string(std::string_view s, std::string& out);
/// Java's Double.toString / Float.toString (JDK 19+: shortest round-trip digits).
void append_java_double(double d, std::string& out);
void append_java_float(float f, std::string& out);
/// As a JSON number, or a quoted string for NaN and infinities (Jackson's default).
void append_json_double(double d, std::string& out);
void append_json_float(float f, std::string& out);
void append_int(int64_t i, std::string& out);

/// What Java's toString() gives for the object Kafka Connect would hold: numbers and
/// booleans as Java prints them, strings as is, Decimal as BigDecimal.toString(),
/// lists `[a, b]`, maps `{k=v}`, structs `Struct{a=1,b=x}` (null fields skipped).
/// Bytes are appended raw. Used by StringConverter and Cast.
void append_java_to_string(const data::Value& v, const data::Schema* schema, std::string& out);
void append_java_to_string(const data::Value& v, const data::Schema* schema, JsonBuffer& out);

} // namespace weir::runtime::convert
