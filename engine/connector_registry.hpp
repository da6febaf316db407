// Every connector weir knows, by Kafka Connect's class names and short aliases: one
// table that the built-ins and the plugins from `plugin.path` are added to the same
// way, through add_sink / add_source, as transformations, predicates and converters
// are added to theirs (transforms/transform_registry.hpp, runtime/convert). A
// plugin's SDK registration (weir/plugin.hpp) becomes these calls in
// engine/plugins/loader.cpp.
//
// Most built-ins are entries made here, against the runtime's connector_api: they
// fill runtime batches and keep offsets in transactions, and the SDK adapter's
// per-batch copy would cost them on the benchmarked paths. DatagenConnector needs
// nothing internal: it is written against the SDK and registered through the plugin
// loader's registrar (engine::plugins::register_builtin), as a plugin is.
//
// Threading: additions happen at start-up only (the built-ins on first use, then the
// plugins), before any connector starts; entries never move once added.
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

using StringMap = std::map<std::string, std::string>;

/// The path of a built-in registered through the SDK as a plugin is (DatagenConnector):
/// it names no shared library.
inline constexpr std::string_view builtin_path = "(built-in)";

/// A sink connector: its own config keys and how to make one task's writer.
struct SinkPlugin {
  std::string class_name;
  std::vector<std::string> aliases;
  std::string version;
  std::function<const ConfigDef&()> definition;
  /// Checks the connector's own keys (the common ones pass through); returns every
  /// problem, for validation before anything starts.
  std::function<std::vector<ConfigIssue>(const StringMap& config)> validate;
  std::function<std::unique_ptr<SinkWriter>(const StringMap& config, const std::string& connector, int task)>
    make_writer;
  /// A plugin's shared library; empty for a built-in, builtin_path for a built-in
  /// registered through the SDK.
  std::string path = {};

  bool plugin() const noexcept { return !path.empty() && path != builtin_path; }
};

/// A source connector: its own config keys, how it splits into tasks, and how to
/// make one task.
struct SourcePlugin {
  std::string class_name;
  std::vector<std::string> aliases;
  std::string version;
  std::function<const ConfigDef&()> definition;
  /// Checks the connector's own keys (the common ones pass through).
  std::function<std::vector<ConfigIssue>(const StringMap& config)> validate;
  /// Kafka Connect's taskConfigs: at most `max_tasks` configs, each the connector's
  /// config plus what that task reads (e.g. its tables).
  std::function<std::vector<StringMap>(const StringMap& config, int max_tasks)> task_configs;
  std::function<std::unique_ptr<connector_api::SourceTask>(const StringMap& task_config,
                                                           const std::string& connector, int task)>
    make_task;
  /// Kafka Connect's exactlyOnceSupport(): whether its offsets identify every record
  /// exactly, so a transactional restart neither skips nor repeats one.
  bool exactly_once = false;
  /// A plugin's shared library; empty for a built-in, builtin_path for a built-in
  /// registered through the SDK.
  std::string path = {};

  bool plugin() const noexcept { return !path.empty() && path != builtin_path; }
};

/// Adds a connector class. Throws std::invalid_argument naming a class name or alias
/// that already resolves: sinks and sources never share a name.
void add_sink(SinkPlugin sink);
void add_source(SourcePlugin source);

/// The built-in sinks, then the plugins' in load order.
const std::deque<SinkPlugin>& sink_plugins();
/// The built-in sources, then the plugins' in load order.
const std::deque<SourcePlugin>& source_plugins();

/// By full class name (`org.apache.kafka.connect.file.FileStreamSinkConnector`) or
/// alias (`FileStreamSink`, `FileStreamSinkConnector`); nullptr when unknown.
const SinkPlugin* find_sink(std::string_view name) noexcept;
const SourcePlugin* find_source(std::string_view name) noexcept;

} // namespace weir::engine
