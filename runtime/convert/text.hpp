// Small text helpers shared by converters and transforms.
//
// (runtime/config/convert.hpp has equivalents, but it declares a function named
// weir::runtime::convert, which clashes with this namespace in any translation
// unit that sees both; so converters and transforms do not include it.)
#pragma once

#include <string>
#include <string_view>

namespace weir::runtime::convert {

/// Java's String.trim(): drops every character <= ' ' at both ends.
inline std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ')
    s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ')
    s.remove_suffix(1);
  return s;
}

/// Kafka's ConfigException wording: `Invalid value V for configuration K: REASON`.
inline std::string invalid_value_message(std::string_view key, std::string_view value,
                                         std::string_view reason) {
  std::string m = "Invalid value ";
  m += value;
  m += " for configuration ";
  m += key;
  if (!reason.empty()) {
    m += ": ";
    m += reason;
  }
  return m;
}

} // namespace weir::runtime::convert
