// The keys every source connector config has, whatever its class: Kafka Connect's
// ConnectorConfig and SourceConnectorConfig (`name`, `connector.class`,
// `tasks.max`, converters, `transforms`, `predicates`, `errors.*`, and KIP-618's
// exactly-once keys `exactly.once.support`, `transaction.boundary`,
// `transaction.boundary.interval.ms`, `offsets.storage.topic`). As for sinks, the
// common keys and the connector's own are checked by two strict definitions that
// let each other's keys through.
//
// Also the per-task helpers both directions need: converters (the connector's
// override the worker's) and client properties (worker `producer.*`, then the
// connector's `producer.override.*`).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "runtime/convert/converter.hpp"
#include "runtime/kafka/client_config.hpp"
#include "weir/config.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::pipeline {

using StringMap = std::map<std::string, std::string>;

/// The common source connector keys.
const ConfigDef& source_connector_def();

/// Options for a source plugin's own definition: the common keys pass through.
ParseOptions source_plugin_passthrough();

/// Kafka Connect's transaction.boundary.
enum class TransactionBoundary { Poll, Interval, Connector };

/// A source connector's common settings, parsed.
struct SourceConnectorSettings {
  std::string name;
  std::string connector_class;
  int tasks_max = 1;
  bool exactly_once_required = false; ///< exactly.once.support=required
  TransactionBoundary boundary = TransactionBoundary::Poll;
  std::chrono::milliseconds boundary_interval{60000};
  std::string offsets_topic; ///< offsets.storage.topic (empty: the worker's)
  Config config;
};

/// Parses the common keys (the plugin's own pass through, see `plugin`). Throws
/// ConfigError naming the key.
SourceConnectorSettings parse_source_settings(const StringMap& raw, const ConfigDef& plugin);

/// The key or value converter of a task: the connector's when it names a class
/// (with its own `key.converter.*` options), else the worker's.
std::unique_ptr<convert::Converter> task_converter(const StringMap& connector,
                                                   const StringMap& worker, bool is_key);

/// The header converter of a task: the connector's `header.converter` when it names
/// one, else the worker's; nullptr for SimpleHeaderConverter (the codec's own).
std::unique_ptr<convert::HeaderConverter> task_header_converter(const StringMap& connector, const StringMap& worker);

/// The worker's topic.creation.enable (default true).
bool topic_creation_enabled(const StringMap& worker);

/// The worker's metrics.stage.timing.enabled (default true): whether stages read
/// the clocks around each batch (busy time, CPU time, ns/record).
bool stage_timing_enabled(const StringMap& worker);

/// Client properties of a task: `bootstrap.servers`, the worker's `KIND.*` keys,
/// then the connector's `KIND.override.*` keys (KIND = producer | consumer | admin),
/// with the Java client's names that librdkafka spells differently translated.
/// Throws kafka::KafkaError naming a property that cannot be translated.
kafka::Properties task_client_props(const StringMap& connector, const StringMap& worker,
                                    const std::string& kind);

} // namespace weir::engine::pipeline
