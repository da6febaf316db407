// Every built-in connector, by Kafka Connect's class names and short aliases.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/pipeline/sink_pipeline.hpp"
#include "runtime/pipeline/source_task.hpp"
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

using StringMap = std::map<std::string, std::string>;

/// A source connector: its own config keys, how it splits into tasks, and how to
/// make one task.
struct SourcePlugin {
  std::string_view class_name;
  std::vector<std::string_view> aliases;
  std::string_view version;
  const ConfigDef& (*definition)();
  /// Checks the connector's own keys (the common ones pass through).
  std::vector<ConfigIssue> (*validate)(const StringMap& config);
  /// Kafka Connect's taskConfigs: at most `max_tasks` configs, each the connector's
  /// config plus what that task reads (e.g. its tables).
  std::vector<StringMap> (*task_configs)(const StringMap& config, int max_tasks);
  std::unique_ptr<runtime::pipeline::SourceTask> (*make_task)(const StringMap& task_config,
                                                              const std::string& connector,
                                                              int task);
  /// Kafka Connect's exactlyOnceSupport(): whether its offsets identify every record
  /// exactly, so a transactional restart neither skips nor repeats one.
  bool exactly_once = false;
};

const std::vector<SourcePlugin>& source_plugins();

/// By full class name or alias; nullptr when unknown.
const SourcePlugin* find_source(std::string_view name) noexcept;

} // namespace weir::connectors
