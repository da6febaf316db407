#include "runtime/data/base64.hpp"

#include <array>
#include <cstdint>

namespace weir::runtime::data {

namespace {

constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<int8_t, 256> decode_table() {
  std::array<int8_t, 256> t{};
  for (auto& x : t)
    x = -1;
  for (int i = 0; i < 64; ++i)
    t[static_cast<uint8_t>(alphabet[i])] = static_cast<int8_t>(i);
  return t;
}
constexpr auto table = decode_table();

} // namespace

void base64_encode(std::string_view bytes, std::string& out) {
  size_t i = 0;
  auto b = [&](size_t k) { return static_cast<uint8_t>(bytes[k]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t n = (b(i) << 16) | (b(i + 1) << 8) | b(i + 2);
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += alphabet[(n >> 6) & 63];
    out += alphabet[n & 63];
  }
  if (size_t rest = bytes.size() - i; rest > 0) {
    uint32_t n = b(i) << 16;
    if (rest == 2)
      n |= b(i + 1) << 8;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += rest == 2 ? alphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  base64_encode(bytes, out);
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  while (!text.empty() && text.back() == '=')
    text.remove_suffix(1);
  if (text.size() % 4 == 1)
    return std::nullopt;
  std::string out;
  out.reserve(text.size() * 3 / 4);
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    int8_t d = table[static_cast<uint8_t>(c)];
    if (d < 0)
      return std::nullopt;
    acc = (acc << 6) | static_cast<uint32_t>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

} // namespace weir::runtime::data
