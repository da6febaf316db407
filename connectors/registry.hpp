// Every built-in connector, by Kafka Connect's class names and short aliases.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/pipeline/sink_pipeline.hpp"
#include "weir/config.hpp"

namespace weir::connectors {

/// A sink connector: its own config keys and how to make one task's writer.
struct SinkPlugin {
  std::string_view class_name;
  std::vector<std::string_view> aliases;
  std::string_view version;
  const ConfigDef& (*definition)();
  /// Checks the connector's own keys (the common ones pass through); returns every
  /// problem, for validation before anything starts.
  std::vector<ConfigIssue> (*validate)(const std::map<std::string, std::string>& config);
  std::unique_ptr<runtime::pipeline::SinkWriter> (*make_writer)(
    const std::map<std::string, std::string>& config, const std::string& connector, int task);
};

const std::vector<SinkPlugin>& sink_plugins();

/// By full class name (`org.apache.kafka.connect.file.FileStreamSinkConnector`) or
/// alias (`FileStreamSink`, `FileStreamSinkConnector`); nullptr when unknown.
const SinkPlugin* find_sink(std::string_view name) noexcept;

} // namespace weir::connectors
