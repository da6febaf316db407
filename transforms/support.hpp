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
/// any bytes; names of equal length are chained.
class NameTable {
public:
  NameTable() { first_.fill(-1); }
  explicit NameTable(std::vector<std::string> names);

  /// The index of `key` in the table, or -1.
  int find(std::string_view key) const noexcept {
    size_t n = key.size();
    for (int i = first_[n < long_slot ? n : long_slot]; i >= 0; i = next_[static_cast<size_t>(i)]) {
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
  static constexpr size_t long_slot = 64; ///< names of 64 bytes or more share one chain
  std::vector<std::string> names_;
  std::array<int, long_slot + 1> first_; ///< by length: the first name's index, or -1
  std::vector<int> next_;                ///< the next name of the same length, or -1
};

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
