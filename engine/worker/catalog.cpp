#include "engine/worker/catalog.hpp"

#include <algorithm>
#include <cctype>

#include "runtime/config/providers.hpp"
#include "runtime/config/secrets.hpp"
#include "runtime/convert/converter.hpp"
#include "engine/pipeline/connector_config.hpp"
#include "engine/pipeline/source_config.hpp"
#include "engine/pipeline/topic_creation.hpp"
#include "runtime/rest/config_info.hpp"
#include "transforms/chain.hpp"
#include "transforms/transform_registry.hpp"

namespace weir::engine::worker {

namespace {

bool lower_equals(std::string v, std::string_view want) {
  for (auto& ch : v)
    ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return v == want;
}

std::string class_of(const StringMap& config) {
  auto it = config.find("connector.class");
  return it == config.end() ? std::string{} : it->second;
}

[[noreturn]] void throw_unknown_class(const std::string& cls) {
  throw ConfigError("connector.class",
                    cls.empty() ? "Missing required configuration \"connector.class\" which "
                                  "has no default value."
                                : "Invalid value " + cls
                                    + " for configuration connector.class: no sink or source "
                                      "connector of that class or alias is available");
}

/// The checks of an exactly-once source that need the worker's config.
void check_exactly_once(ConnectorPlan& plan, bool required, const StringMap& worker) {
  const auto& config = plan.config;
  if (plan.exactly_once) {
    // The worker owns these when it runs the task transactionally (Kafka Connect
    // rejects the same overrides).
    if (config.count("producer.override.transactional.id"))
      throw ConfigError("producer.override.transactional.id",
                        "Invalid value for configuration producer.override.transactional.id: "
                        "with exactly.once.source.support=enabled the worker sets it");
    auto idem = config.find("producer.override.enable.idempotence");
    if (idem != config.end() && !lower_equals(idem->second, "true"))
      throw ConfigError("producer.override.enable.idempotence",
                        "Invalid value " + idem->second
                          + " for configuration producer.override.enable.idempotence: "
                            "exactly-once source tasks need an idempotent producer");
  }
  if (!required)
    return;
  if (!plan.exactly_once)
    throw ConfigError("exactly.once.support",
                      "Invalid value required for configuration exactly.once.support: this "
                      "worker has exactly.once.source.support="
                        + worker.at("exactly.once.source.support") + " (set it to enabled)");
  if (!plan.source->exactly_once)
    throw ConfigError("exactly.once.support",
                      "Invalid value required for configuration exactly.once.support: the "
                      "connector " + std::string{plan.source->class_name}
                        + " does not support exactly-once semantics");
}

/// The common keys of a connector's kind followed by its plugin's own.
ConfigDef merged_def(const ConfigDef& common, const ConfigDef& own) {
  ConfigDef def;
  for (const auto& key : common.keys())
    def.define(key);
  for (const auto& key : own.keys())
    if (!common.find(key.name))
      def.define(key);
  return def;
}

/// Parse options for a connector kind's common keys: the plugin's own pass through.
ParseOptions common_options(bool sink, const ConfigDef& own) {
  if (sink)
    return pipeline::common_passthrough(own);
  auto options = pipeline::source_plugin_passthrough(); // for its delegated prefixes
  options.passthrough_keys.clear();
  for (const auto& key : own.keys())
    options.passthrough_keys.push_back(key.name);
  return options;
}

/// The keys neither the connector's kind nor its plugin declares, each once, with
/// the nearest key of either as the suggestion (the two definitions alone would
/// each report the key, suggesting only from their own keys).
std::vector<ConfigIssue> unknown_keys(const ConfigDef& merged, bool sink, const StringMap& values) {
  ParseOptions delegated = sink ? pipeline::plugin_passthrough() : pipeline::source_plugin_passthrough();
  delegated.passthrough_keys.clear();
  std::vector<ConfigIssue> unknown;
  for (auto& issue : merged.validate(values, delegated))
    if (!merged.find(issue.name))
      unknown.push_back(std::move(issue));
  return unknown;
}

/// Whether `name` is declared by the connector's kind or its plugin.
bool declared(const ConfigDef& common, const ConfigDef& own, const std::string& name) {
  return common.find(name) || own.find(name);
}

/// Adds `error` to `key`'s issue unless that issue already says it.
void add_issue(std::vector<ConfigIssue>& issues, const ConfigError& error, const StringMap& raw) {
  auto it = std::find_if(issues.begin(), issues.end(),
                         [&](const ConfigIssue& i) { return i.name == error.key(); });
  if (it == issues.end()) {
    auto given = raw.find(error.key());
    issues.push_back({error.key(),
                      given == raw.end() ? std::nullopt : std::optional{given->second},
                      {error.what()}});
  } else if (std::find(it->errors.begin(), it->errors.end(), error.what()) == it->errors.end()) {
    it->errors.push_back(error.what());
  }
}

} // namespace

namespace {

ConnectorPlan plan_resolved(ConnectorPlan plan, const StringMap& worker) {
  auto cls = class_of(plan.config);
  plan.sink = engine::find_sink(cls);
  plan.source = plan.sink ? nullptr : engine::find_source(cls);
  if (plan.sink || plan.source) {
    const ConfigDef& common = plan.sink ? pipeline::sink_connector_def() : pipeline::source_connector_def();
    auto unknown = unknown_keys(merged_def(common, plan.sink ? plan.sink->definition() : plan.source->definition()),
                                plan.sink != nullptr, plan.config);
    if (!unknown.empty())
      throw ConfigError(unknown.front().name, unknown.front().errors.front());
  }
  if (plan.sink) {
    auto settings = pipeline::parse_sink_settings(plan.config, plan.sink->definition());
    for (const auto& issue : plan.sink->validate(plan.config))
      throw ConfigError(issue.name, issue.errors.front());
    plan.tasks_max = settings.tasks_max;
  } else if (plan.source) {
    // The connector's own keys first: a typo there gets its "did you mean".
    for (const auto& issue : plan.source->validate(plan.config))
      throw ConfigError(issue.name, issue.errors.front());
    auto settings = pipeline::parse_source_settings(plan.config, plan.source->definition());
    plan.tasks_max = settings.tasks_max;
    plan.exactly_once = lower_equals(worker.at("exactly.once.source.support"), "enabled");
    plan.offsets_topic = settings.offsets_topic.empty() ? worker.at("offset.storage.topic")
                                                        : settings.offsets_topic;
    check_exactly_once(plan, settings.exactly_once_required, worker);
    pipeline::TopicCreation::parse(plan.config, pipeline::topic_creation_enabled(worker));
  } else {
    throw_unknown_class(cls);
  }
  const ConfigDef& common = plan.sink ? pipeline::sink_connector_def() : pipeline::source_connector_def();
  const auto def = merged_def(common, plan.sink ? plan.sink->definition() : plan.source->definition());
  for (const auto& key : def.keys())
    if (key.type == ConfigType::Password) plan.password_keys.insert(key.name);
  transforms::Chain::from_config(plan.config); // an unknown SMT or bad SMT key
  return plan;
}

} // namespace

std::string ConnectorPlan::scrub(const std::string& text) const {
  return redact_credentials(resolved.scrub(text));
}

std::pair<StringMap, std::set<std::string>> ConnectorPlan::shown_task_config(const StringMap& task) const {
  std::pair<StringMap, std::set<std::string>> shown{task, password_keys};
  for (auto& [key, value] : shown.first) {
    if (!secret_keys.count(key)) continue;
    if (value == config.at(key)) value = raw.at(key);
    else shown.second.insert(key);
  }
  return shown;
}

StringMap ConnectorPlan::task_config_from_store(const StringMap& stored) const {
  StringMap task = stored;
  for (auto& [key, value] : task)
    if (secret_keys.count(key) && value == raw.at(key))
      value = config.at(key);
  return task;
}

ConnectorPlan plan_connector(const std::string& name, const StringMap& raw,
                             const StringMap& worker) {
  ConnectorPlan plan;
  plan.name = name;
  plan.raw = raw;
  plan.resolved = ConfigProviders::from_config(worker).resolve(raw);
  plan.config = plan.resolved.values;
  plan.secret_keys = plan.resolved.secret_keys;
  auto resolved = plan.resolved;
  try {
    return plan_resolved(std::move(plan), worker);
  } catch (const ConfigError& e) {
    throw resolved.scrub(e);
  } catch (const std::exception& e) {
    throw std::runtime_error(resolved.scrub(e.what()));
  }
}

rest::ConfigInfos validate_connector(const StringMap& raw, const StringMap& worker) {
  auto cls = class_of(raw);
  const auto* sink = engine::find_sink(cls);
  const auto* source = sink ? nullptr : engine::find_source(cls);
  if (!sink && !source)
    throw rest::bad_request(cls.empty() ? "Connector config contains no connector type"
                                        : "Failed to find any class that implements Connector and "
                                          "which name matches " + cls);
  const ConfigDef& common = sink ? pipeline::sink_connector_def() : pipeline::source_connector_def();
  const ConfigDef& own = sink ? sink->definition() : source->definition();
  std::vector<ConfigIssue> issues;
  ResolvedConfig resolved;
  try {
    resolved = ConfigProviders::from_config(worker).resolve(raw);
  } catch (const ConfigError& e) {
    add_issue(issues, e, raw);
    resolved.values = raw;
  }
  const StringMap& values = resolved.values;
  // Unknown keys are reported once, below; the kind's and the plugin's checks
  // report the declared ones.
  for (auto& issue : common.validate(values, common_options(sink != nullptr, own)))
    if (declared(common, own, issue.name))
      issues.push_back(std::move(issue));
  for (auto& issue : sink ? sink->validate(values) : source->validate(values))
    if (declared(common, own, issue.name))
      for (const auto& error : issue.errors)
        add_issue(issues, ConfigError(issue.name, error), raw);
  auto merged = merged_def(common, own);
  for (auto& issue : unknown_keys(merged, sink != nullptr, raw)) // as given: nothing resolved shown
    issues.push_back(std::move(issue));
  // The cross-key checks (topics or topics.regex, exactly-once, the SMT chain), on
  // the config without the keys already found wrong, so they are not reported twice.
  // They resolve `raw` again: resolved values are never rescanned for references.
  auto rest_of = raw;
  for (const auto& issue : issues)
    rest_of.erase(issue.name);
  try {
    plan_connector(raw.count("name") ? raw.at("name") : std::string{}, rest_of, worker);
  } catch (const ConfigError& e) {
    // A key left out above is "missing" here: it was present, and is already
    // reported as invalid (issue 20: "Missing required configuration" for a bad URL).
    if (rest_of.count(e.key()) || !raw.count(e.key()))
      add_issue(issues, e, raw);
  }
  for (auto& issue : issues) {
    for (auto& error : issue.errors) error = resolved.scrub(error);
    if (issue.value && resolved.secret_keys.count(issue.name)) issue.value = raw.at(issue.name);
  }
  return rest::config_infos(cls, merged, raw, issues);
}

std::vector<std::string> connector_problems(const StringMap& raw, const StringMap& worker) {
  std::vector<std::string> problems;
  auto add = [&](const std::string& key, const std::string& error) {
    problems.push_back(key.empty() || error.find(key) != std::string::npos ? error : key + ": " + error);
  };
  try {
    for (const auto& info : validate_connector(raw, worker).configs)
      for (const auto& error : info.value.errors)
        add(info.value.name, error);
  } catch (const rest::RestError&) {
    // No connector of that class: nothing else can be checked. The plan names the key.
    try {
      plan_connector(raw.count("name") ? raw.at("name") : std::string{}, raw, worker);
    } catch (const ConfigError& e) {
      add(e.key(), e.what());
    }
  }
  return problems;
}

std::vector<rest::PluginInfo> plugin_infos() {
  std::vector<rest::PluginInfo> out;
  for (const auto& p : engine::sink_plugins())
    out.push_back({std::string{p.class_name}, "sink", std::string{p.version}});
  for (const auto& p : engine::source_plugins())
    out.push_back({std::string{p.class_name}, "source", std::string{p.version}});
  for (const auto& t : transforms::transformations()) {
    if (t.plugin()) {
      out.push_back({t.name, "transformation", t.version});
      continue;
    }
    auto name = std::string{transforms::transforms_package} + std::string{t.name};
    if (t.variants == transforms::Variants::KeyValue) {
      out.push_back({name + "$Key", "transformation", WEIR_VERSION});
      out.push_back({name + "$Value", "transformation", WEIR_VERSION});
    } else {
      out.push_back({name, "transformation", WEIR_VERSION});
    }
  }
  for (const auto& p : transforms::predicates())
    out.push_back(p.plugin() ? rest::PluginInfo{p.name, "predicate", p.version}
                             : rest::PluginInfo{std::string{transforms::predicates_package} + p.name,
                                                "predicate", WEIR_VERSION});
  for (const auto& c : convert::converters())
    out.push_back({c.class_name, "converter", c.plugin() ? c.version : std::string{WEIR_VERSION}});
  for (const auto& c : convert::header_converters())
    out.push_back({c.class_name, "header_converter", c.version});
  return out;
}

std::vector<rest::ConfigKeyInfo> plugin_config(std::string_view plugin) {
  if (const auto* sink = engine::find_sink(plugin))
    return rest::config_key_infos(merged_def(pipeline::sink_connector_def(), sink->definition()));
  if (const auto* source = engine::find_source(plugin))
    return rest::config_key_infos(merged_def(pipeline::source_connector_def(), source->definition()));
  if (auto t = transforms::find_transformation(plugin))
    return rest::config_key_infos(t->info->config_def());
  if (auto p = transforms::find_predicate(plugin))
    return rest::config_key_infos(p->info->config_def());
  if (const auto* c = convert::find_converter(plugin))
    return rest::config_key_infos(c->config_def());
  if (const auto* c = convert::find_header_converter(plugin))
    return rest::config_key_infos(c->config_def());
  throw rest::not_found("Unknown plugin " + std::string{plugin} + ".");
}

} // namespace weir::engine::worker
