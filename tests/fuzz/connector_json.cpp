// Fuzzing of connector JSON as REST bodies and connector files carry it
// (runtime/config/connector_json.hpp): any bytes either parse or throw
// weir::ConfigError; a parsed config keeps Kafka Connect's promise that
// config["name"] is the name whenever the name is known, and written back as a flat
// JSON object of strings it parses to the same name and config.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/config/connector_json.hpp"
#include "runtime/convert/json_text.hpp"
#include "weir/config.hpp"
#include "tests/fuzz/report.hpp"

using weir::runtime::ConnectorConfig;


constexpr std::string_view harness = "connector_json";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  ConnectorConfig parsed;
  try {
    parsed = weir::runtime::parse_connector_json(input);
  } catch (const weir::ConfigError&) {
    return 0;
  }
  auto name = parsed.config.find("name");
  if (!parsed.name.empty() && (name == parsed.config.end() || name->second != parsed.name))
    weir::fuzz::finding(harness, "config[\"name\"] is not the name", input, "name: " + parsed.name);

  std::string flat = "{";
  for (const auto& [key, value] : parsed.config) {
    if (flat.size() > 1)
      flat += ',';
    weir::runtime::convert::append_json_string(key, flat);
    flat += ':';
    weir::runtime::convert::append_json_string(value, flat);
  }
  flat += '}';
  ConnectorConfig again;
  try {
    again = weir::runtime::parse_connector_json(flat);
  } catch (const weir::ConfigError& e) {
    weir::fuzz::finding(harness, "its flat form does not parse", input, std::string(e.what()) + "\n  flat: " + flat);
  }
  if (again.config != parsed.config || again.name != (name == parsed.config.end() ? "" : name->second))
    weir::fuzz::finding(harness, "its flat form parses differently", input, "flat: " + flat);
  return 0;
}
