// Text → typed value conversion shared by ConfigDef and the validators, with
// Kafka's rules (ConfigDef.parseType): values are trimmed, booleans are
// case-insensitive, lists split on commas.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "runtime/config/suggest.hpp"
#include "weir/config.hpp"

namespace weir::runtime {

/// Java's String.trim(): drops every character <= ' ' at both ends.
std::string_view trim(std::string_view s) noexcept;

/// Parses `raw` as `type`. On failure returns std::nullopt and sets `reason` to
/// Kafka's wording (e.g. `Not a number of type INT`).
std::optional<ConfigValue> convert(ConfigType type, std::string_view raw, std::string& reason);

/// `Invalid value SHOWN for configuration KEY: REASON` (ConfigException's format).
std::string invalid_value_message(std::string_view key, std::string_view shown,
                                  std::string_view reason);

/// Shortest text that reads back as the same double (1 → "1", 0.1 → "0.1").
std::string format_double(double value);

} // namespace weir::runtime
