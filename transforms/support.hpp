// Helpers every SMT uses: Kafka's Requirements checks (with Kafka's messages) and
// config access for keys whose Kafka default is null.
#pragma once

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
/// probes are misses, which a length bitmask rejects before comparing any bytes.
class NameTable {
public:
  NameTable() = default;
  explicit NameTable(std::vector<std::string> names);

  /// The index of `key` in the table, or -1.
  int find(std::string_view key) const noexcept {
    if (key.size() >= 64 ? !long_names_ : !((length_mask_ >> key.size()) & 1))
      return -1;
    for (size_t i = 0; i < names_.size(); ++i) {
      const std::string& n = names_[i];
      if (n.size() == key.size() && runtime::data::equal_bytes(n.data(), key.data(), n.size()))
        return static_cast<int>(i);
    }
    return -1;
  }
  bool contains(std::string_view key) const noexcept { return find(key) >= 0; }
  bool empty() const noexcept { return names_.empty(); }
  size_t size() const noexcept { return names_.size(); }
  const std::string& operator[](size_t i) const noexcept { return names_[i]; }
  const std::vector<std::string>& names() const noexcept { return names_; }

private:
  std::vector<std::string> names_;
  uint64_t length_mask_ = 0; ///< bit n set: some name has length n (< 64)
  bool long_names_ = false;  ///< some name is 64 bytes or longer
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
