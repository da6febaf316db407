#include "runtime/convert/utf8_repair.hpp"

#include <simdjson.h>

namespace weir::runtime::convert {

bool is_utf8(std::string_view bytes) noexcept { return simdjson::validate_utf8(bytes.data(), bytes.size()); }

void append_utf8_repaired(std::string_view bytes, std::string& out) {
  static constexpr std::string_view replacement = "\xEF\xBF\xBD";
  size_t i = 0;
  while (i < bytes.size()) {
    auto b = static_cast<unsigned char>(bytes[i]);
    if (b < 0x80) {
      out += static_cast<char>(b);
      ++i;
      continue;
    }
    // The sequence's length and the range its second byte must fall in (Table 3-7);
    // later continuation bytes are 80..BF.
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) length = 2;
    else if (b == 0xE0) length = 3, low = 0xA0;
    else if (b >= 0xE1 && b <= 0xEC) length = 3;
    else if (b == 0xED) length = 3, high = 0x9F;
    else if (b >= 0xEE && b <= 0xEF) length = 3;
    else if (b == 0xF0) length = 4, low = 0x90;
    else if (b >= 0xF1 && b <= 0xF3) length = 4;
    else if (b == 0xF4) length = 4, high = 0x8F;
    size_t k = 1;
    for (; length != 0 && k < length && i + k < bytes.size(); ++k) {
      auto c = static_cast<unsigned char>(bytes[i + k]);
      if (c < low || c > high) break;
      low = 0x80, high = 0xBF;
    }
    if (length != 0 && k == length)
      out.append(bytes.substr(i, length));
    else
      out += replacement; // the maximal subpart: the lead and the valid bytes after it
    i += k;
  }
}

} // namespace weir::runtime::convert
