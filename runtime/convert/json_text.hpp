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
  } else {
    for (size_t i = 0; i < n; ++i)
      dst[i] = src[i];
  }
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
  JsonBuffer& operator+=(char c) {
    *reserve(1) = c;
    ++size_;
    return *this;
  }
  JsonBuffer& operator+=(std::string_view s) {
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

} // namespace weir::runtime::convert
