#include "runtime/convert/json_keys.hpp"

#include <cstring>

namespace weir::runtime::convert {

namespace {

// A hash of a key from its length and up to 16 of its bytes (both ends): equal keys
// hash alike, and names that differ in a prefix, a suffix or a counter mostly do not.
uint64_t key_hash(std::string_view k) noexcept {
  const char* p = k.data();
  size_t n = k.size();
  uint64_t a = 0, b = 0;
  if (n >= 8) {
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + n - 8, 8);
  } else if (n >= 4) {
    uint32_t x, y;
    std::memcpy(&x, p, 4);
    std::memcpy(&y, p + n - 4, 4);
    a = x;
    b = y;
  } else {
    for (size_t i = 0; i < n; ++i)
      a = a << 8 | static_cast<uint8_t>(p[i]);
  }
  uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ULL) ^ n) * 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 31);
}

constexpr uint32_t empty = UINT32_MAX;

} // namespace

bool UniqueKeys::index() {
  size_t n = keys_.size();
  first_.resize(n);
  bool repeats = false;
  if (n <= 16) {
    for (size_t i = 0; i < n; ++i) {
      first_[i] = static_cast<uint32_t>(i);
      for (size_t j = 0; j < i; ++j)
        if (first_[j] == j && keys_[j] == keys_[i]) {
          first_[i] = static_cast<uint32_t>(j);
          repeats = true;
          break;
        }
    }
    return repeats;
  }
  size_t size = 64;
  while (size < 2 * n)
    size *= 2;
  table_.assign(size, empty);
  for (size_t i = 0; i < n; ++i) {
    size_t slot = key_hash(keys_[i]) & (size - 1);
    while (table_[slot] != empty && keys_[table_[slot]] != keys_[i])
      slot = (slot + 1) & (size - 1);
    if (table_[slot] == empty) {
      table_[slot] = static_cast<uint32_t>(i);
      first_[i] = static_cast<uint32_t>(i);
    } else {
      first_[i] = table_[slot];
      repeats = true;
    }
  }
  return repeats;
}

} // namespace weir::runtime::convert
