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
// Most objects repeat no key. A 64-bit filter of cheap key features (length and last
// byte) rules that out without comparing keys: when no two keys of an object share a
// bit, they are unique. Only otherwise (always beyond 64 keys) does an object cost an
// exact check.
//
// Internal to runtime/convert.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "runtime/data/value.hpp"

namespace weir::runtime::convert {

/// The filter of one object's keys: a key sets a bit chosen by its length and last
/// byte (field names often share a prefix, less often an end); equal keys set the
/// same bit. A small value, kept in registers while the object is parsed.
class KeyFilter {
public:
  /// Adds a key of `size` bytes ending in `last` (for an empty key: any byte, the same
  /// for every empty key of the object).
  [[gnu::always_inline]] void add(uint8_t last, size_t size) noexcept {
    uint64_t bit = uint64_t{1} << ((last + size) & 63);
    hit_ |= (bits_ & bit) != 0;
    bits_ |= bit;
  }
  /// Whether two of the keys may be equal (false: certainly not).
  bool may_repeat() const noexcept { return hit_; }

private:
  uint64_t bits_ = 0;
  bool hit_ = false; ///< a key found its bit already set
};

/// Whether two keys of [first, first + n) may be equal (false: certainly not).
template <class M, class KeyOf>
bool keys_may_repeat(const M* first, size_t n, KeyOf key_of) {
  KeyFilter filter;
  for (size_t i = 0; i < n; ++i) {
    std::string_view key = key_of(first[i]);
    filter.add(key.empty() ? 0 : static_cast<uint8_t>(key.back()), key.size());
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
