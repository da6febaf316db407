// Bytes read as Java reads them into a String: invalid UTF-8 becomes U+FFFD.
//
// Kafka's StringConverter decodes with `new String(bytes, UTF_8)`, which replaces
// each maximal subpart of an ill-formed sequence (Unicode's recommended practice,
// Table 3-7 of the standard: a lead byte and the continuation bytes valid after it
// so far) with one U+FFFD, and goes on at the byte that broke it. weir keeps strings
// as UTF-8 bytes, so a converter that hands invalid bytes on unchanged would write
// what Kafka Connect never writes.
#pragma once

#include <string>
#include <string_view>

namespace weir::runtime::convert {

/// Whether `bytes` are well-formed UTF-8 (simdjson's validator: a few bytes a cycle).
bool is_utf8(std::string_view bytes) noexcept;

/// Appends `bytes` to `out` with every maximal ill-formed subpart replaced by U+FFFD.
void append_utf8_repaired(std::string_view bytes, std::string& out);

} // namespace weir::runtime::convert
