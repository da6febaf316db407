// Loading plugin shared libraries from the worker's `plugin.path` (issue 9).
//
// Every `.so` directly in a plugin.path directory, or in a folder one level below
// it, is dlopen()ed at start-up; its entry points (weir/plugin.hpp) are checked —
// SDK version first, before any of its C++ code runs — and every class it registers
// is added to the table of its kind, next to the built-ins. A plugin is never
// unloaded.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "weir/config.hpp"
#include "weir/plugin.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::plugins {

/// A plugin (or a plugin.path directory) that weir refuses, naming the file.
class PluginError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// The connector key weir adds to an asynchronous sink's definition: how many
/// batches may be out (put() but not completed) at once.
inline constexpr std::string_view in_flight_key = "max.in.flight.batches";

/// A sink connector class a plugin registered.
struct LoadedSink {
  SinkDescriptor descriptor;
  ConfigDef definition; ///< built once from descriptor.define
  std::string path;     ///< the shared library it came from
};

/// A source connector class a plugin registered.
struct LoadedSource {
  SourceDescriptor descriptor;
  ConfigDef definition; ///< built once from descriptor.define
  std::string path;
  std::string kind = "plugin"; ///< its poller's kind in the actor tree
};

/// Loads one plugin file and keeps what it registers. Throws PluginError naming the
/// file: not loadable (dlerror's reason), a missing entry point (naming the symbol),
/// another SDK version (naming both), a failing registration, or a class name or
/// alias that is already taken (naming the built-in or the plugin that has it).
/// Nothing of a refused plugin is kept. What it registers is added to the tables the
/// built-ins are in (engine/connector_registry.hpp, transforms/transform_registry.hpp,
/// runtime/convert/converter.hpp).
void load_plugin(const std::string& path);

/// Registers built-in classes written against the SDK exactly as load_plugin registers a
/// plugin's (the same checks and adapters), under the path engine::builtin_path; `kind`
/// names their sources' pollers in the actor tree. Throws PluginError as load_plugin.
void register_builtin(void (*register_fn)(PluginRegistrar&), std::string kind);

/// Loads every plugin in `dirs` (a worker's `plugin.path`), in name order. An entry
/// that does not exist or is no directory is skipped with a warning, as Kafka Connect
/// skips it. Throws PluginError for the first refused plugin. Returns how many files
/// were loaded.
size_t load_plugins(const std::vector<std::string>& dirs);

} // namespace weir::engine::plugins
