// Connector configs as Kafka Connect accepts them: the REST / connect-standalone
// JSON forms, or a .properties file.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace weir::runtime {

/// A connector's name and its raw (unparsed) string config. `config["name"]`
/// equals `name` whenever `name` is known, as Kafka Connect guarantees.
struct ConnectorConfig {
  std::string name;
  std::map<std::string, std::string> config;
};

/// Parses `{"name": "...", "config": {...}}` (a "name" inside config must match) or
/// a flat object of strings (name taken from its "name" key; empty if absent, e.g.
/// the body of `PUT /connectors/{name}/config`). Numbers and booleans become their
/// JSON text; objects, arrays and null are rejected. Throws weir::ConfigError
/// naming the key.
ConnectorConfig parse_connector_json(std::string_view json);

/// Loads a connector file: JSON if its first non-blank character is `{`, properties
/// otherwise. The connector must have a name. Errors name the file.
ConnectorConfig load_connector_file(const std::filesystem::path& path);

} // namespace weir::runtime
