// Byte equality for short strings, inline. Header-only and free of dependencies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace weir::data {

/// Byte equality for short strings without a call to memcmp (field names and topics
/// are short, and most lookups compare a handful of them per record).
inline bool equal_bytes(const char* a, const char* b, size_t n) noexcept {
  auto load8 = [](const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
  };
  auto load4 = [](const char* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
  };
  if (n >= 8) {
    if (n > 16)
      return std::memcmp(a, b, n) == 0;
    return load8(a) == load8(b) && load8(a + n - 8) == load8(b + n - 8);
  }
  if (n >= 4)
    return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
  for (size_t i = 0; i < n; ++i)
    if (a[i] != b[i])
      return false;
  return true;
}

} // namespace weir::data
