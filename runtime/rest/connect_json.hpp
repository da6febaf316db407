// Kafka Connect's REST entities as JSON: request bodies in (strict, 400 naming the
// problem) and responses out (Kafka Connect's field names and order, secrets redacted).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/kafka/topic_partition.hpp"
#include "runtime/rest/connect_herder.hpp"

namespace weir::runtime::rest {

/// What replaces a secret in responses: Kafka's Password.HIDDEN.
inline constexpr std::string_view redacted_value = "[hidden]";

/// Whether a config value is shown as `[hidden]`: the herder listed the key, or its
/// name says it is a secret (runtime/config/secrets.hpp: `*.password`,
/// `sasl.jaas.config`, `*.secret`, ...).
bool is_secret_key(std::string_view key, const std::set<std::string>& secret_keys);

/// A config value as responses show it: `[hidden]` for a secret key (unless the
/// value is only provider references, shown as written, as Kafka Connect does), and
/// otherwise with the credentials in URLs and connection strings hidden.
std::string shown_value(std::string_view key, std::string_view value, const std::set<std::string>& secret_keys);

// --- request bodies; each throws RestError(400) naming what is wrong.

/// The body of POST /connectors.
struct CreateConnectorRequest {
  std::string name; // trimmed, as Kafka Connect does; empty if absent
  ConfigMap config;
  std::optional<InitialState> initial_state;
};
CreateConnectorRequest parse_create_request(std::string_view body);
/// A flat object of config values (PUT .../config, validate). Numbers and booleans
/// become their JSON text, as Jackson reads them into strings.
ConfigMap parse_config_object(std::string_view body);
/// The same with nulls allowed (PATCH .../config).
ConfigPatch parse_config_patch(std::string_view body);
/// {"offsets":[{"partition":{...},"offset":{...}|null},...]}; none given → 400
/// with Kafka Connect's message.
std::vector<ConnectorOffset> parse_offsets(std::string_view body);
/// A sink connector's offset entry (its consumer group's): {"kafka_topic":T,
/// "kafka_partition":P} and {"kafka_offset":O}, or null (offset -1: reset that
/// partition). 400 naming what is wrong.
kafka::TopicPartitionOffset parse_sink_offset(const ConnectorOffset& entry);
/// The inverse, for GET .../offsets.
ConnectorOffset sink_offset_entry(const kafka::TopicPartitionOffset& offset);

// --- response bodies, appended to `out`.

/// "source", "sink" or "unknown", as Kafka Connect writes ConnectorType.
std::string_view connector_type_name(ConnectorType type);
/// `"state":..,"worker_id":..[,"trace":..]` (trace only when non-empty), the fields
/// of Kafka Connect's state entities, after the caller's leading fields.
void append_state_fields(const StateInfo& state, std::string& out);

void append_string_array(const std::vector<std::string>& values, std::string& out);
void append_config(const ConfigMap& config, const std::set<std::string>& secret_keys, std::string& out);
void append_connector_info(const ConnectorInfo& info, std::string& out);
void append_task_state(const TaskState& task, std::string& out);
void append_connector_status(const ConnectorStatus& status, std::string& out);
void append_task_infos(const std::vector<TaskInfo>& tasks, std::string& out);
void append_offsets(const std::vector<ConnectorOffset>& offsets, std::string& out);
void append_plugin_infos(const std::vector<PluginInfo>& plugins, std::string& out);
void append_config_key_info(const ConfigKeyInfo& key, std::string& out);
void append_config_infos(const ConfigInfos& infos, std::string& out);
void append_logger_level(const LoggerLevel& level, std::string& out);
void append_server_info(const ServerInfo& info, std::string& out);
/// Kafka Connect's Message entity: {"message":...}.
void append_message(std::string_view message, std::string& out);

} // namespace weir::runtime::rest
