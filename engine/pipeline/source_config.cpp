#include "engine/pipeline/source_config.hpp"

#include "engine/pipeline/connector_config.hpp"
#include "engine/pipeline/topic_creation.hpp"

namespace weir::engine::pipeline {

namespace {

// Java client properties that Kafka Connect configurations carry, in librdkafka's
// terms (librdkafka rejects a property it does not know, naming it):
// - the (de)serializers: Kafka Connect replaces them with its byte-array ones, and
//   so does weir (converters do the (de)serializing);
// - names that differ: fetch.max.wait.ms, max.request.size, buffer.memory (bytes;
//   librdkafka's queue.buffering.max.kbytes is in KiB);
// - auto.offset.reset=none, librdkafka's "error".
void to_librdkafka_names(kafka::Properties& p) {
  for (const char* ignored : {"key.serializer", "value.serializer", "key.deserializer",
                              "value.deserializer"})
    p.erase(ignored);
  auto rename = [&](const std::string& java, const std::string& native, auto convert) {
    auto it = p.find(java);
    if (it == p.end())
      return;
    if (p.contains(native))
      throw kafka::KafkaError("kafka property '" + java + "': set together with librdkafka's '"
                                  + native + "', its equivalent",
                              RD_KAFKA_RESP_ERR__INVALID_ARG);
    p[native] = convert(it->second);
    p.erase(java);
  };
  auto same = [](const std::string& v) { return v; };
  rename("fetch.max.wait.ms", "fetch.wait.max.ms", same);
  rename("max.request.size", "message.max.bytes", same);
  rename("buffer.memory", "queue.buffering.max.kbytes", [](const std::string& v) {
    return std::to_string((kafka::positive_integer("buffer.memory", v) + 1023) / 1024);
  });
  if (auto it = p.find("auto.offset.reset"); it != p.end() && it->second == "none")
    it->second = "error";
}

// The keys sources share with sinks (name, class, tasks.max, converters, SMTs,
// errors.*) come from the sink definition, minus what only consumers have.
ConfigDef make_def() {
  ConfigDef def;
  for (const auto& key : sink_connector_def().keys())
    if (key.name != "topics" && key.name != "topics.regex")
      def.define(key);
  def.define("exactly.once.support", ConfigType::String, "requested", Importance::Medium,
             "Permitted values are requested, required. If set to required, forces a "
             "preflight check for whether the connector is able to provide exactly-once "
             "semantics with the given configuration.",
             validators::one_of({"requested", "required"}, true));
  def.define("transaction.boundary", ConfigType::String, "poll", Importance::Medium,
             "Permitted values are poll, interval, connector. poll: a transaction per batch "
             "of records polled from the task; interval: commit every "
             "transaction.boundary.interval.ms; connector: the connector defines them.",
             validators::one_of({"poll", "interval", "connector"}, true));
  def.define("transaction.boundary.interval.ms", ConfigType::Long, "60000", Importance::Low,
             "If transaction.boundary=interval, the interval between transaction commits.",
             validators::range(1, std::nullopt));
  def.define("offsets.storage.topic", ConfigType::String, "", Importance::Low,
             "The name of a separate offsets topic to use for this connector (exactly-once: "
             "the offsets are written there inside each transaction).");
  return def;
}

// The sinks' delegated prefixes, and topic creation's (engine/pipeline/topic_creation.hpp).
const std::vector<std::string>& delegated_prefixes() {
  static const auto prefixes = [] {
    auto p = plugin_passthrough().passthrough_prefixes;
    p.emplace_back(TopicCreation::prefix);
    return p;
  }();
  return prefixes;
}

} // namespace

const ConfigDef& source_connector_def() {
  static const ConfigDef def = make_def();
  return def;
}

ParseOptions source_plugin_passthrough() {
  ParseOptions o;
  o.passthrough_prefixes = delegated_prefixes();
  for (const auto& k : source_connector_def().keys())
    o.passthrough_keys.push_back(k.name);
  return o;
}

SourceConnectorSettings parse_source_settings(const StringMap& raw, const ConfigDef& plugin) {
  ParseOptions own;
  own.passthrough_prefixes = delegated_prefixes();
  for (const auto& k : plugin.keys())
    own.passthrough_keys.push_back(k.name);
  auto config = source_connector_def().parse(raw, own);
  SourceConnectorSettings s;
  s.name = config.get_string("name");
  s.connector_class = config.get_string("connector.class");
  s.tasks_max = config.get_int("tasks.max");
  auto lower = [](std::string v) {
    for (auto& c : v)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v;
  };
  s.exactly_once_required = lower(config.get_string("exactly.once.support")) == "required";
  auto boundary = lower(config.get_string("transaction.boundary"));
  s.boundary = boundary == "interval"    ? TransactionBoundary::Interval
               : boundary == "connector" ? TransactionBoundary::Connector
                                         : TransactionBoundary::Poll;
  // No built-in connector defines its own transactions (Kafka Connect's
  // canDefineTransactionBoundaries() is false for them all).
  if (s.boundary == TransactionBoundary::Connector)
    throw ConfigError("transaction.boundary",
                      "Invalid value connector for configuration transaction.boundary: the "
                      "connector " + s.connector_class
                        + " does not define its own transaction boundaries");
  s.boundary_interval = std::chrono::milliseconds{config.get_long("transaction.boundary.interval.ms")};
  s.offsets_topic = config.get_string("offsets.storage.topic");
  s.config = std::move(config);
  return s;
}

std::unique_ptr<convert::Converter> task_converter(const StringMap& connector,
                                                   const StringMap& worker, bool is_key) {
  std::string prefix = is_key ? "key.converter" : "value.converter";
  auto named = connector.find(prefix);
  const auto& source = named != connector.end() && !named->second.empty() ? connector : worker;
  auto cls = source.count(prefix) ? source.at(prefix)
                                  : std::string{"org.apache.kafka.connect.json.JsonConverter"};
  StringMap options;
  for (const auto& [k, v] : source)
    if (k.rfind(prefix + ".", 0) == 0)
      options[k.substr(prefix.size() + 1)] = v;
  return convert::make_converter(cls, options, is_key, prefix + ".");
}

std::unique_ptr<convert::HeaderConverter> task_header_converter(const StringMap& connector, const StringMap& worker) {
  const std::string prefix = "header.converter";
  auto named = connector.find(prefix);
  const auto& source = named != connector.end() && !named->second.empty() ? connector : worker;
  auto cls = source.count(prefix) ? source.at(prefix) : std::string{};
  StringMap options;
  for (const auto& [k, v] : source)
    if (k.rfind(prefix + ".", 0) == 0)
      options[k.substr(prefix.size() + 1)] = v;
  return convert::make_header_converter(cls, options, prefix + ".");
}

namespace {

/// A worker's Boolean key that defaults to true (its value was validated already).
bool enabled_unless_false(const StringMap& worker, const std::string& key) {
  auto it = worker.find(key);
  if (it == worker.end())
    return true;
  std::string v = it->second;
  for (auto& c : v)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v != "false";
}

} // namespace

bool topic_creation_enabled(const StringMap& worker) { return enabled_unless_false(worker, "topic.creation.enable"); }

bool stage_timing_enabled(const StringMap& worker) {
  return enabled_unless_false(worker, "metrics.stage.timing.enabled");
}

kafka::Properties task_client_props(const StringMap& connector, const StringMap& worker,
                                    const std::string& kind) {
  kafka::Properties p{{"bootstrap.servers", worker.at("bootstrap.servers")}};
  auto add = [&](const StringMap& from, const std::string& prefix) {
    for (const auto& [k, v] : from)
      if (k.rfind(prefix, 0) == 0)
        p[k.substr(prefix.size())] = v;
  };
  add(worker, kind + ".");
  add(connector, kind + ".override.");
  to_librdkafka_names(p);
  return p;
}

} // namespace weir::engine::pipeline
