// Every connector weir knows, by Kafka Connect's class names and short aliases: the
// built-ins, then the sinks and sources that plugins from `plugin.path` registered.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/pipeline/sink_pipeline.hpp"
#include "runtime/connector_api/source_task.hpp"
#include "weir/config.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine {

/// A sink connector: its own config keys and how to make one task's writer. The
/// views stay valid for the life of the process (a plugin is never unloaded).
struct SinkPlugin {
  std::string_view class_name;
  std::vector<std::string_view> aliases;
  std::string_view version;
  std::function<const ConfigDef&()> definition;
  /// Checks the connector's own keys (the common ones pass through); returns every
  /// problem, for validation before anything starts.
  std::function<std::vector<ConfigIssue>(const std::map<std::string, std::string>& config)> validate;
  std::function<std::unique_ptr<runtime::connector_api::SinkWriter>(
    const std::map<std::string, std::string>& config, const std::string& connector, int task)>
    make_writer;
};

/// The built-in sinks, then every sink a loaded plugin registered. Entries never move
/// (a deque), so pointers from find_sink stay valid after more plugins load.
const std::deque<SinkPlugin>& sink_plugins();

/// By full class name (`org.apache.kafka.connect.file.FileStreamSinkConnector`) or
/// alias (`FileStreamSink`, `FileStreamSinkConnector`); nullptr when unknown.
const SinkPlugin* find_sink(std::string_view name) noexcept;

/// Loads the plugins in the worker's `plugin.path` directories, so that their sinks
/// and sources are listed and found like built-ins. Call once at start-up, before connectors are
/// looked up. Throws plugins::PluginError naming the directory or file, and why (a
/// missing entry point, another SDK version, a class name already taken, ...).
/// Returns how many plugin files were loaded.
size_t load_plugins(const std::vector<std::string>& plugin_path);

using StringMap = std::map<std::string, std::string>;

/// A source connector: its own config keys, how it splits into tasks, and how to
/// make one task. The views stay valid for the life of the process.
struct SourcePlugin {
  std::string_view class_name;
  std::vector<std::string_view> aliases;
  std::string_view version;
  std::function<const ConfigDef&()> definition;
  /// Checks the connector's own keys (the common ones pass through).
  std::function<std::vector<ConfigIssue>(const StringMap& config)> validate;
  /// Kafka Connect's taskConfigs: at most `max_tasks` configs, each the connector's
  /// config plus what that task reads (e.g. its tables).
  std::function<std::vector<StringMap>(const StringMap& config, int max_tasks)> task_configs;
  std::function<std::unique_ptr<runtime::connector_api::SourceTask>(
    const StringMap& task_config, const std::string& connector, int task)>
    make_task;
  /// Kafka Connect's exactlyOnceSupport(): whether its offsets identify every record
  /// exactly, so a transactional restart neither skips nor repeats one.
  bool exactly_once = false;
};

/// The built-in sources, then every source a loaded plugin registered; entries
/// never move, as with sink_plugins().
const std::deque<SourcePlugin>& source_plugins();

/// By full class name or alias; nullptr when unknown.
const SourcePlugin* find_source(std::string_view name) noexcept;

} // namespace weir::engine
