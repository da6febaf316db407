// Fuzzing of the properties parser (runtime/config/properties.hpp): any text either
// loads or throws weir::ConfigError, and what loads survives a round trip: written
// back with every special character escaped (as Properties.store escapes them), it
// loads to the same keys and values.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "runtime/config/properties.hpp"
#include "weir/config.hpp"
#include "tests/fuzz/report.hpp"

constexpr std::string_view harness = "properties";

namespace {

// Properties.store's escaping, applied to every space (not only leading ones) so one
// function serves keys and values; other bytes, UTF-8 included, pass through.
void append_escaped(std::string_view s, std::string& out) {
  for (char c : s) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\f': out += "\\f"; break;
      case ' ': case '=': case ':': case '#': case '!': out += '\\'; out += c; break;
      default: out += c;
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::map<std::string, std::string> loaded;
  try {
    loaded = weir::runtime::load_properties(input);
  } catch (const weir::ConfigError&) {
    return 0;
  }
  std::string stored;
  for (const auto& [key, value] : loaded) {
    append_escaped(key, stored);
    stored += '=';
    append_escaped(value, stored);
    stored += '\n';
  }
  std::map<std::string, std::string> again;
  try {
    again = weir::runtime::load_properties(stored);
  } catch (const weir::ConfigError& e) {
    weir::fuzz::finding(harness, "its stored form does not load", input, std::string(e.what()) + "\n  stored: " + stored);
  }
  if (again != loaded)
    weir::fuzz::finding(harness, "its stored form loads differently", input, "stored: " + stored);
  return 0;
}
