// Repeated keys in a JSON object, resolved the way Kafka Connect's JsonConverter sees
// them.
//
// Kafka reads JSON with Jackson's ObjectMapper.readTree. Its ObjectNode holds the
// members in a LinkedHashMap and stores each one with put(): a repeated key replaces
// the value but keeps the key's first position, and it is not an error
// (DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY is off by default). So
// {"a":1,"b":2,"a":3} is {"a":3,"b":2}: one member per key, the LAST value, where the
// key FIRST appeared. weir's decoders apply this at every level, so SMTs (Value::find)
// and encoders see one entry per key.
//
// Most objects repeat no key. A filter of cheap key features (length, first and last
// byte) rules that out without comparing keys: each key sets one bit in each of two
// 64-bit words, and an object may repeat a key only if some key found both its bits
// set already. With one word, 8 distinct keys would collide in about a third of all
// objects (the birthday bound); with two, in about 3%. Only then (and always beyond
// 64 keys, or when distinct keys share all three features) does an object cost an
// exact check.
//
// Internal to runtime/convert.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "runtime/data/value.hpp"

namespace weir::runtime::convert {

/// The filter of one object's keys (see above): equal keys set the same bits. Two
/// small values, kept in registers while the object is parsed.
class KeyFilter {
public:
  /// Adds a key of `size` bytes that starts with `first` and ends with `last` (for an
  /// empty key: any bytes, the same for every empty key of the object).
  [[gnu::always_inline]] void add(uint8_t first, uint8_t last, size_t size) noexcept {
    uint64_t h = (uint64_t{first} << 24 | uint64_t{last} << 16 | (size & 0xFFFF)) * 0x9E3779B97F4A7C15ULL;
    uint64_t a = uint64_t{1} << (h >> 58);
    uint64_t b = uint64_t{1} << ((h >> 52) & 63);
    hit_ |= ((a_ & a) != 0) & ((b_ & b) != 0);
    a_ |= a;
    b_ |= b;
  }
  /// Whether two of the keys may be equal (false: certainly not).
  bool may_repeat() const noexcept { return hit_; }

private:
  uint64_t a_ = 0, b_ = 0;
  bool hit_ = false; ///< a key found both its bits set already
};

/// Whether two keys of [first, first + n) may be equal (false: certainly not).
template <class M, class KeyOf>
bool keys_may_repeat(const M* first, size_t n, KeyOf key_of) {
  KeyFilter filter;
  for (size_t i = 0; i < n; ++i) {
    std::string_view key = key_of(first[i]);
    if (key.empty())
      filter.add(0, 0, 0);
    else
      filter.add(static_cast<uint8_t>(key.front()), static_cast<uint8_t>(key.back()), key.size());
  }
  return filter.may_repeat();
}

/// The key text of a decoded map entry (a JSON object's keys are strings).
inline std::string_view entry_key(const data::MapEntry& e) noexcept { return e.key.as_string(); }

/// Reduces an object's members to one per key, as Jackson does (see above). Keeps its
/// scratch space from object to object; one per decoder.
class UniqueKeys {
public:
  /// Members [first, first + n), each with a `value` field, whose key text is
  /// `key_of(member)`: keeps one member per key, the first with the last value, in
  /// order; returns how many are left.
  template <class M, class KeyOf>
  size_t apply(M* first, size_t n, KeyOf key_of) {
    keys_.clear();
    for (size_t i = 0; i < n; ++i)
      keys_.push_back(key_of(first[i]));
    if (!index())
      return n;
    size_t out = 0;
    for (size_t i = 0; i < n; ++i) {
      uint32_t f = first_[i];
      if (f == i) {
        first_[i] = static_cast<uint32_t>(out); // from now on: where the key's member went
        first[out++] = first[i];
      } else {
        first[first_[f]].value = first[i].value;
      }
    }
    return out;
  }

private:
  /// first_[i] = the index of the first key equal to keys_[i]; whether any repeats.
  bool index();

  std::vector<std::string_view> keys_;
  std::vector<uint32_t> first_;
  std::vector<uint32_t> table_; ///< open addressing, key indexes (large objects)
};

} // namespace weir::runtime::convert
