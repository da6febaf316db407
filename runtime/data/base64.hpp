// Standard base64 (RFC 4648, padded), as Java's Base64 and Jackson write bytes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace weir::runtime::data {

std::string base64_encode(std::string_view bytes);
/// Appends the encoding to `out` (no allocation beyond `out`'s growth).
void base64_encode(std::string_view bytes, std::string& out);
/// Decodes padded or unpadded base64 (Jackson accepts both); std::nullopt when invalid.
std::optional<std::string> base64_decode(std::string_view text);

} // namespace weir::runtime::data
