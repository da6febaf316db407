// What a worker knows about plugins, CAF-free: the connectors, SMTs, predicates and
// converters it can run (GET /connector-plugins), their config definitions, and
// the checks a connector config passes before anything of it starts.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/connector_registry.hpp"
#include "runtime/config/providers.hpp"
#include "runtime/rest/connect_herder.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::worker {

using StringMap = std::map<std::string, std::string>;

/// A connector config checked against its plugin: what a worker needs to run it.
struct ConnectorPlan {
  std::string name;
  StringMap raw;    ///< as given: provider references (${env:...}) unresolved
  StringMap config; ///< resolved
  std::set<std::string> secret_keys; ///< keys whose values came from providers
  std::set<std::string> password_keys; ///< keys the plugin declares PASSWORD
  runtime::ResolvedConfig resolved; ///< what the providers gave, to keep it out of messages
  const engine::SinkPlugin* sink = nullptr;
  const engine::SourcePlugin* source = nullptr;
  int tasks_max = 1;
  bool exactly_once = false; ///< a source whose tasks run transactionally
  std::string offsets_topic; ///< such a source's offsets topic
  /// `text` (a failure, a status trace, a log line) with the values providers gave
  /// put back as their references and credentials in URLs hidden.
  std::string scrub(const std::string& text) const;
  /// A task config (resolved values) as GET .../tasks shows it: a value a provider
  /// gave that the task kept is put back as written (Kafka Connect's reverse
  /// transform), and the keys to show as `[hidden]`: the PASSWORD-typed ones and any
  /// other that holds what a provider gave.
  std::pair<StringMap, std::set<std::string>> shown_task_config(const StringMap& task) const;
  /// A task config as a cluster's leader stores it in the config topic: the values
  /// providers gave put back as written, as in shown_task_config().
  StringMap stored_task_config(const StringMap& task) const { return shown_task_config(task).first; }
  /// The inverse, on the node that runs the task: references written back resolve
  /// to what this plan's providers gave.
  StringMap task_config_from_store(const StringMap& stored) const;
  rest::ConnectorType type() const noexcept {
    return sink ? rest::ConnectorType::sink : rest::ConnectorType::source;
  }
};

/// Resolves (with the providers the worker's `config.providers` names) and checks
/// `raw` (which holds `name`) against its plugin and the worker's config
/// (`exactly.once.source.support`, `offset.storage.topic`). Throws ConfigError naming
/// the first offending key; its message never holds a value a provider gave.
ConnectorPlan plan_connector(const std::string& name, const StringMap& raw,
                             const StringMap& worker);

/// Every problem of a connector config at once (PUT .../config/validate): the
/// common keys and the plugin's, each with its errors (never holding a value a
/// provider gave). An unknown or missing `connector.class` is a 400, as in Kafka Connect.
rest::ConfigInfos validate_connector(const StringMap& raw, const StringMap& worker);

/// Every problem of a connector config, one line each, each naming its key (the
/// errors /config/validate reports; an unknown connector.class alone when that is
/// what is wrong). Empty when the config would run. For connector files, which
/// have no /config/validate to ask.
std::vector<std::string> connector_problems(const StringMap& raw, const StringMap& worker);

/// Every plugin in Kafka Connect's order: sinks, sources, transformations,
/// predicates, converters.
std::vector<rest::PluginInfo> plugin_infos();

/// A plugin's config keys, by class name or alias; 404 "Unknown plugin X." if none.
std::vector<rest::ConfigKeyInfo> plugin_config(std::string_view plugin);

} // namespace weir::engine::worker
