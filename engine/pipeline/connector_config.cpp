#include "engine/pipeline/connector_config.hpp"

#include "runtime/convert/converter.hpp"
#include "engine/pipeline/error_policy.hpp"
#include "transforms/chain.hpp"

namespace weir::engine::pipeline {

namespace {

// Sub-components read these themselves (converters, SMTs, client overrides).
const std::vector<std::string> delegated_prefixes{
  "key.converter.",  "value.converter.",   "header.converter.", "transforms.",
  "predicates.",     "consumer.override.", "producer.override.", "admin.override.",
};

ConfigDef make_def() {
  ConfigDef def;
  def.define("name", ConfigType::String, Importance::High,
             "Globally unique name to use for this connector.", validators::non_empty());
  def.define("connector.class", ConfigType::String, Importance::High,
             "Name or alias of the class for this connector.", validators::non_empty());
  def.define("tasks.max", ConfigType::Int, "1", Importance::High,
             "Maximum number of tasks to use for this connector.", validators::range(1, 10000));
  def.define("topics", ConfigType::List, "", Importance::High,
             "List of topics to consume, separated by commas");
  def.define("topics.regex", ConfigType::String, "", Importance::High,
             "Regular expression giving topics to consume.");
  def.define("key.converter", ConfigType::Class, "", Importance::Low,
             "Converter class used to convert between Kafka Connect format and the serialized "
             "form that is written to Kafka (overrides the worker's).",
             convert::converter_class());
  def.define("value.converter", ConfigType::Class, "", Importance::Low,
             "Converter class for values (overrides the worker's).", convert::converter_class());
  def.define("header.converter", ConfigType::Class, "", Importance::Low,
             "HeaderConverter class (overrides the worker's).", convert::header_converter_class());
  def.define("config.action.reload", ConfigType::String, "restart", Importance::Low,
             "Accepted for compatibility; weir reloads provider values on restart.");
  transforms::define_chain_keys(def);
  ErrorPolicy::define(def);
  return def;
}

} // namespace

const ConfigDef& sink_connector_def() {
  static const ConfigDef def = make_def();
  return def;
}

ParseOptions common_passthrough(const ConfigDef& plugin) {
  ParseOptions o;
  o.passthrough_prefixes = delegated_prefixes;
  for (const auto& k : plugin.keys())
    o.passthrough_keys.push_back(k.name);
  return o;
}

ParseOptions plugin_passthrough() {
  ParseOptions o;
  o.passthrough_prefixes = delegated_prefixes;
  for (const auto& k : sink_connector_def().keys())
    o.passthrough_keys.push_back(k.name);
  return o;
}

SinkConnectorSettings parse_sink_settings(const std::map<std::string, std::string>& raw,
                                          const ConfigDef& plugin) {
  auto config = sink_connector_def().parse(raw, common_passthrough(plugin));
  SinkConnectorSettings s{config.get_string("name"), config.get_string("connector.class"),
                          config.get_int("tasks.max"), config.get_list("topics"), config};
  auto regex = config.get_string("topics.regex");
  if (!s.topics.empty() && !regex.empty())
    throw ConfigError("topics.regex", "Invalid configuration topics.regex: must configure one of "
                                      "topics or topics.regex, not both");
  if (s.topics.empty() && regex.empty())
    throw ConfigError("topics", "Missing configuration topics: must configure one of topics "
                                "or topics.regex");
  if (!regex.empty())
    s.topics = {"^" + regex}; // librdkafka's subscription syntax for a pattern
  return s;
}

} // namespace weir::engine::pipeline
