// The keys every sink connector config has, whatever its class: Kafka Connect's
// ConnectorConfig and SinkConnectorConfig (`name`, `connector.class`, `tasks.max`,
// `topics`/`topics.regex`, converters, `transforms`, `predicates`, `errors.*`).
// A connector config is checked twice, strictly: these keys by this definition,
// the connector's own keys by the plugin's; each lets the other's keys through.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "weir/config.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::pipeline {

/// The common sink connector keys.
const ConfigDef& sink_connector_def();

/// Options to parse sink_connector_def(): the plugin's keys pass through.
ParseOptions common_passthrough(const ConfigDef& plugin);

/// Options for a plugin's own definition: the common keys pass through.
ParseOptions plugin_passthrough();

/// A sink connector's common settings, parsed.
struct SinkConnectorSettings {
  std::string name;
  std::string connector_class;
  int tasks_max = 1;
  std::vector<std::string> topics; ///< names, or one "^regex" (from topics.regex)
  Config config;
};

/// Parses the common keys; the plugin's own keys must be checked by its definition.
/// Throws ConfigError naming the key (e.g. neither `topics` nor `topics.regex`).
SinkConnectorSettings parse_sink_settings(const std::map<std::string, std::string>& raw,
                                          const ConfigDef& plugin);

} // namespace weir::engine::pipeline
