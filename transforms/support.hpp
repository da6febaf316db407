// Helpers every SMT uses: Kafka's Requirements checks (with Kafka's messages) and
// config access for keys whose Kafka default is null.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/decoded_batch.hpp"
#include "weir/config.hpp"

namespace weir::transforms {

/// A String key declared with Kafka's `null` default (weir declares "" as default):
/// std::nullopt when the user did not set it.
std::optional<std::string> optional_string(const Config& config, std::string_view key);

/// A small fixed set of field names with a fast "is this one of them?" test: most
/// probes are misses, which one table load by key length rejects before comparing
/// any bytes; names of equal length are chained. A key of a name's length is then
/// checked against a 64-bit filter of the names' (length, first byte, last byte),
/// which rejects most of the rest ("card" against "cust") before walking the chain.
class NameTable {
public:
  NameTable() { first_.fill(-1); }
  explicit NameTable(std::vector<std::string> names);

  /// The index of `key` in the table, or -1.
  int find(std::string_view key) const noexcept {
    size_t n = key.size();
    int i = first_[n < long_slot ? n : long_slot];
    if (i < 0 || (filter_ & filter_bit(key)) == 0)
      return -1;
    for (; i >= 0; i = next_[static_cast<size_t>(i)]) {
      const std::string& name = names_[static_cast<size_t>(i)];
      if (name.size() == n && runtime::data::equal_bytes(name.data(), key.data(), n))
        return i;
    }
    return -1;
  }
  bool contains(std::string_view key) const noexcept { return find(key) >= 0; }
  bool empty() const noexcept { return names_.empty(); }
  size_t size() const noexcept { return names_.size(); }
  const std::string& operator[](size_t i) const noexcept { return names_[i]; }
  const std::vector<std::string>& names() const noexcept { return names_; }

private:
  /// The filter bit of a key: a hash of its length and its first and last bytes.
  static uint64_t filter_bit(std::string_view key) noexcept {
    size_t n = key.size();
    uint64_t ends = n == 0 ? 0 : static_cast<unsigned char>(key[0]) * 7u + static_cast<unsigned char>(key[n - 1]) * 3u;
    return uint64_t{1} << ((n * 5 + ends) & 63);
  }

  static constexpr size_t long_slot = 64; ///< names of 64 bytes or more share one chain
  uint64_t filter_ = 0;                  ///< the names' filter bits
  std::vector<std::string> names_;
  std::array<int, long_slot + 1> first_; ///< by length: the first name's index, or -1
  std::vector<int> next_;                ///< the next name of the same length, or -1
};

/// Finds a schemaless map's entry by key, trying `hint` first: the index where the key
/// was found last time. An SMT sees record after record of the same shape, so the key
/// is usually where it was, and one compare replaces a scan. The hint is only a
/// guess: the key at that index is compared in full, and a miss (another shape, or
/// an index past the end) falls back to the scan and moves the hint. Map keys are
/// unique (as in a Java Map: decoders drop repeated JSON keys, put() replaces), so a
/// key equal at the hint is the one find() would return.
inline runtime::data::Value* find_hinted(const runtime::data::Value& map, std::string_view key,
                                         uint32_t& hint) noexcept {
  using runtime::data::Kind;
  auto entries = map.entries();
  if (hint < entries.size()) {
    const runtime::data::Value& k = entries[hint].key;
    if (k.kind() == Kind::String && k.size() == key.size()
        && runtime::data::equal_bytes(k.as_string().data(), key.data(), key.size()))
      return &entries[hint].value;
  }
  runtime::data::Value* found = map.find(key);
  if (found != nullptr)
    hint = static_cast<uint32_t>((reinterpret_cast<const char*>(found) - reinterpret_cast<const char*>(entries.data()))
                                 / sizeof(runtime::data::MapEntry));
  return found;
}

/// A String value for a configured name or literal: marked plain (copied as is by
/// JSON encoders) when it needs no escaping. Views `text`, which must outlive it.
runtime::data::Value text_value(std::string_view text);

/// Java's String.split(sep) for a one-character separator: trailing empty parts are
/// dropped (`"a:"` -> {"a"}), leading and inner ones kept.
std::vector<std::string> java_split(std::string_view s, char sep);

/// Throws ConfigError(key, "Invalid value VALUE for configuration KEY: REASON").
[[noreturn]] void config_error(const std::string& key, std::string_view value, std::string_view reason);

[[noreturn]] void throw_require_map(const runtime::data::Value& v, std::string_view purpose);
[[noreturn]] void throw_require_struct(const runtime::data::Value& v, std::string_view purpose);

/// Requirements.requireMap: the value must be a map (schemaless records).
inline runtime::data::Value& require_map(runtime::data::Value& v, std::string_view purpose) {
  if (v.kind() != runtime::data::Kind::Map) [[unlikely]]
    throw_require_map(v, purpose);
  return v;
}
/// Requirements.requireStruct: the value must be a struct (schema'd records).
inline runtime::data::Value& require_struct(runtime::data::Value& v, std::string_view purpose) {
  if (v.kind() != runtime::data::Kind::Struct) [[unlikely]]
    throw_require_struct(v, purpose);
  return v;
}
/// Requirements.requireSchema.
const runtime::data::Schema& require_schema(const runtime::data::Schema* s, std::string_view purpose);
/// Requirements.requireSinkRecord: weir treats a record with a Kafka offset (>= 0) as
/// a sink record.
void require_sink_record(const runtime::data::RecordView& r, std::string_view purpose);

} // namespace weir::transforms
