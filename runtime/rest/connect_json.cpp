#include "runtime/rest/connect_json.hpp"

#include <cctype>

#include <simdjson.h>

#include "runtime/config/json_syntax.hpp"
#include "runtime/config/secrets.hpp"
#include "runtime/convert/json_text.hpp"

namespace weir::runtime::rest {

namespace {

using convert::append_int;
using convert::append_json_string;
using simdjson::ondemand::json_type;

// Java's String.trim(), as Kafka Connect trims names and Jackson keeps number text.
std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

// A JSON object's text with the insignificant whitespace removed.
std::string minified(simdjson::ondemand::value value) {
  simdjson::ondemand::object object = value.get_object();
  std::string_view json = object.raw_json().value();
  std::string out(json.size(), '\0');
  size_t length = 0;
  if (simdjson::minify(json.data(), json.size(), out.data(), length) != simdjson::SUCCESS)
    throw bad_request("The request body is not valid JSON");
  out.resize(length);
  return out;
}

std::string_view type_name(json_type type) {
  switch (type) {
    case json_type::array: return "an array";
    case json_type::object: return "an object";
    case json_type::null: return "null";
    case json_type::number: return "a number";
    case json_type::boolean: return "a boolean";
    default: return "a string";
  }
}

// The body, validated as a whole JSON document: On Demand alone is lazy and would
// accept trailing garbage.
simdjson::padded_string checked_json(std::string_view body) {
  if (trim(body).empty()) throw bad_request("The request body is empty: a JSON object is expected");
  simdjson::padded_string padded{body};
  simdjson::dom::parser validator;
  if (auto error = validator.parse(padded).error())
    throw bad_request("The request body is not valid JSON: "
                      + describe_json_error(body, simdjson::error_message(error)));
  return padded;
}

// Runs `read` on the body's top-level object, turning simdjson errors into 400s.
template <class Read>
auto read_object(std::string_view body, Read&& read) {
  simdjson::padded_string padded = checked_json(body);
  try {
    simdjson::ondemand::parser parser;
    simdjson::ondemand::document doc = parser.iterate(padded);
    if (doc.type().value() != json_type::object)
      throw bad_request("The request body must be a JSON object, not " +
                        std::string{type_name(doc.type().value())});
    return read(doc.get_object().value());
  } catch (const simdjson::simdjson_error& e) {
    throw bad_request(std::string{"The request body is not valid JSON: "} + e.what());
  }
}

// A config value as Jackson reads it into a String: strings as is, numbers as their
// text (1.50 stays "1.50"), booleans; std::nullopt for null; 400 otherwise.
std::optional<std::string> config_value(std::string_view key, simdjson::ondemand::value value) {
  json_type type = value.type().value();
  switch (type) {
    case json_type::string: return std::string{std::string_view{value.get_string()}};
    case json_type::number: return std::string{trim(value.raw_json_token())};
    case json_type::boolean: return value.get_bool().value() ? "true" : "false";
    case json_type::null: return std::nullopt;
    default:
      throw bad_request("Configuration \"" + std::string{key} + "\" is " + std::string{type_name(type)} +
                        ": connector config values must be strings");
  }
}

ConfigPatch flat_object(simdjson::ondemand::object object, bool allow_null) {
  ConfigPatch out;
  for (auto field : object) {
    std::string key{std::string_view{field.unescaped_key()}};
    auto value = config_value(key, field.value());
    if (!value && !allow_null)
      throw bad_request("Configuration \"" + key + "\" is null: connector config values must be strings");
    out.insert_or_assign(std::move(key), std::move(value));
  }
  return out;
}

ConfigMap without_nulls(ConfigPatch patch) {
  ConfigMap out;
  for (auto& [key, value] : patch) out.emplace(key, std::move(*value));
  return out;
}

InitialState initial_state(std::string_view text) {
  std::string upper{text};
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "RUNNING") return InitialState::running;
  if (upper == "PAUSED") return InitialState::paused;
  if (upper == "STOPPED") return InitialState::stopped;
  throw bad_request("Invalid initial_state \"" + std::string{text} +
                    "\": expected one of RUNNING, PAUSED, STOPPED");
}

ConnectorOffset read_offset(simdjson::ondemand::value element) {
  if (element.type().value() != json_type::object)
    throw bad_request("Each entry of \"offsets\" must be an object with \"partition\" and \"offset\"");
  ConnectorOffset result;
  bool has_partition = false;
  bool has_offset = false;
  for (auto field : element.get_object()) {
    std::string_view key = field.unescaped_key();
    simdjson::ondemand::value value = field.value();
    json_type type = value.type().value();
    if (key == "partition") {
      if (type != json_type::object) throw bad_request("A \"partition\" must be a JSON object");
      result.partition = minified(value);
      has_partition = true;
    } else if (key == "offset") {
      if (type == json_type::null) result.offset = "null";
      else if (type == json_type::object) result.offset = minified(value);
      else throw bad_request("An \"offset\" must be a JSON object or null");
      has_offset = true;
    } else {
      throw bad_request("Unrecognized field \"" + std::string{key} +
                        "\" in an offset: expected \"partition\" and \"offset\"");
    }
  }
  if (!has_partition) throw bad_request("An entry of \"offsets\" has no \"partition\"");
  if (!has_offset) throw bad_request("An entry of \"offsets\" has no \"offset\"");
  return result;
}

void append_optional_string(const std::optional<std::string>& value, std::string& out) {
  if (value) append_json_string(*value, out);
  else out += "null";
}

void append_task_id(const TaskId& id, std::string& out) {
  out += "{\"connector\":";
  append_json_string(id.connector, out);
  out += ",\"task\":";
  append_int(id.task, out);
  out += '}';
}

void append_config_value_info(const ConfigValueInfo& value, std::string& out) {
  out += "{\"name\":";
  append_json_string(value.name, out);
  out += ",\"value\":";
  if (value.value) append_json_string(shown_value(value.name, *value.value, {}), out);
  else append_optional_string(value.value, out);
  out += ",\"recommended_values\":";
  append_string_array(value.recommended_values, out);
  out += ",\"errors\":";
  append_string_array(value.errors, out);
  out += ",\"visible\":";
  out += value.visible ? "true" : "false";
  out += '}';
}

} // namespace

std::string_view connector_type_name(ConnectorType type) {
  switch (type) {
    case ConnectorType::source: return "source";
    case ConnectorType::sink: return "sink";
    default: return "unknown";
  }
}

void append_state_fields(const StateInfo& state, std::string& out) {
  out += "\"state\":";
  append_json_string(state.state, out);
  out += ",\"worker_id\":";
  append_json_string(state.worker_id, out);
  if (!state.trace.empty()) {
    out += ",\"trace\":";
    append_json_string(state.trace, out);
  }
}

bool is_secret_key(std::string_view key, const std::set<std::string>& secret_keys) {
  return is_secret_name(key) || secret_keys.count(std::string{key}) > 0;
}

std::string shown_value(std::string_view key, std::string_view value, const std::set<std::string>& secret_keys) {
  if (is_secret_key(key, secret_keys) && !only_references(value)) return std::string{redacted_value};
  return redact_credentials(value);
}

CreateConnectorRequest parse_create_request(std::string_view body) {
  return read_object(body, [](simdjson::ondemand::object object) {
    CreateConnectorRequest request;
    bool has_config = false;
    for (auto field : object) {
      std::string_view key = field.unescaped_key();
      simdjson::ondemand::value value = field.value();
      json_type type = value.type().value();
      if (key == "name") {
        if (type == json_type::null) continue;
        if (type != json_type::string) throw bad_request("The connector \"name\" must be a string");
        request.name = trim(value.get_string().value());
      } else if (key == "config") {
        if (type == json_type::null) continue;
        if (type != json_type::object)
          throw bad_request("The connector \"config\" must be a JSON object of strings");
        request.config = without_nulls(flat_object(value.get_object(), false));
        has_config = true;
      } else if (key == "initial_state") {
        if (type == json_type::null) continue;
        if (type != json_type::string) throw bad_request("\"initial_state\" must be a string");
        request.initial_state = initial_state(value.get_string().value());
      } else {
        throw bad_request("Unrecognized field \"" + std::string{key} +
                          "\" in the request: expected \"name\", \"config\" and \"initial_state\"");
      }
    }
    if (!has_config)
      throw bad_request("The request has no connector \"config\": expected {\"name\": ..., \"config\": {...}}");
    return request;
  });
}

ConfigMap parse_config_object(std::string_view body) {
  return without_nulls(read_object(body, [](simdjson::ondemand::object object) {
    return flat_object(object, false);
  }));
}

ConfigPatch parse_config_patch(std::string_view body) {
  return read_object(body, [](simdjson::ondemand::object object) { return flat_object(object, true); });
}

std::vector<ConnectorOffset> parse_offsets(std::string_view body) {
  auto offsets = read_object(body, [](simdjson::ondemand::object object) {
    std::vector<ConnectorOffset> result;
    for (auto field : object) {
      std::string_view key = field.unescaped_key();
      simdjson::ondemand::value value = field.value();
      if (key != "offsets")
        throw bad_request("Unrecognized field \"" + std::string{key} + "\": expected \"offsets\"");
      if (value.type().value() == json_type::null) continue;
      if (value.type().value() != json_type::array) throw bad_request("\"offsets\" must be a JSON array");
      for (auto element : value.get_array()) result.push_back(read_offset(element.value()));
    }
    return result;
  });
  if (offsets.empty())
    throw bad_request("Partitions / offsets need to be provided for an alter offsets request");
  return offsets;
}

kafka::TopicPartitionOffset parse_sink_offset(const ConnectorOffset& entry) {
  simdjson::dom::parser parser;
  auto partition = parser.parse(entry.partition);
  std::string_view topic;
  int64_t number = -1;
  if (partition.error() || partition["kafka_topic"].get(topic) || partition["kafka_partition"].get(number)
      || number < 0 || number > INT32_MAX)
    throw bad_request("Invalid partition " + entry.partition + ": a sink connector's partition "
                      "is {\"kafka_topic\": string, \"kafka_partition\": non-negative integer}");
  kafka::TopicPartitionOffset out{std::string{topic}, static_cast<int32_t>(number), -1};
  if (entry.offset == "null")
    return out;
  simdjson::dom::parser offset_parser;
  auto offset = offset_parser.parse(entry.offset);
  if (offset.error() || offset["kafka_offset"].get(out.offset) || out.offset < 0)
    throw bad_request("Invalid offset " + entry.offset + " for partition " + entry.partition
                      + ": a sink connector's offset is {\"kafka_offset\": non-negative integer} or null");
  return out;
}

ConnectorOffset sink_offset_entry(const kafka::TopicPartitionOffset& offset) {
  std::string partition = "{\"kafka_topic\":";
  append_json_string(offset.topic, partition);
  partition += ",\"kafka_partition\":" + std::to_string(offset.partition) + "}";
  return {std::move(partition), "{\"kafka_offset\":" + std::to_string(offset.offset) + "}"};
}

void append_string_array(const std::vector<std::string>& values, std::string& out) {
  out += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    append_json_string(values[i], out);
  }
  out += ']';
}

void append_config(const ConfigMap& config, const std::set<std::string>& secret_keys, std::string& out) {
  out += '{';
  bool first = true;
  for (const auto& [key, value] : config) {
    if (!first) out += ',';
    first = false;
    append_json_string(key, out);
    out += ':';
    append_json_string(shown_value(key, value, secret_keys), out);
  }
  out += '}';
}

void append_connector_info(const ConnectorInfo& info, std::string& out) {
  out += "{\"name\":";
  append_json_string(info.name, out);
  out += ",\"config\":";
  append_config(info.config, info.secret_keys, out);
  out += ",\"tasks\":[";
  for (size_t i = 0; i < info.tasks.size(); ++i) {
    if (i) out += ',';
    append_task_id(info.tasks[i], out);
  }
  out += "],\"type\":";
  append_json_string(connector_type_name(info.type), out);
  out += '}';
}

void append_task_state(const TaskState& task, std::string& out) {
  out += "{\"id\":";
  append_int(task.id, out);
  out += ',';
  append_state_fields(task.state, out);
  // weir's, beside Kafka Connect's fields (its clients ignore what they do not know).
  if (!task.bottleneck.empty()) {
    out += ",\"bottleneck\":";
    append_json_string(task.bottleneck, out);
  }
  out += '}';
}

void append_connector_status(const ConnectorStatus& status, std::string& out) {
  out += "{\"name\":";
  append_json_string(status.name, out);
  out += ",\"connector\":{";
  append_state_fields(status.connector, out);
  out += "},\"tasks\":[";
  for (size_t i = 0; i < status.tasks.size(); ++i) {
    if (i) out += ',';
    append_task_state(status.tasks[i], out);
  }
  out += "],\"type\":";
  append_json_string(connector_type_name(status.type), out);
  out += '}';
}

void append_task_infos(const std::vector<TaskInfo>& tasks, std::string& out) {
  out += '[';
  for (size_t i = 0; i < tasks.size(); ++i) {
    if (i) out += ',';
    out += "{\"id\":";
    append_task_id(tasks[i].id, out);
    out += ",\"config\":";
    append_config(tasks[i].config, tasks[i].secret_keys, out);
    out += '}';
  }
  out += ']';
}

void append_offsets(const std::vector<ConnectorOffset>& offsets, std::string& out) {
  out += "{\"offsets\":[";
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (i) out += ',';
    out += "{\"partition\":" + offsets[i].partition + ",\"offset\":" + offsets[i].offset + '}';
  }
  out += "]}";
}

void append_plugin_infos(const std::vector<PluginInfo>& plugins, std::string& out) {
  out += '[';
  for (size_t i = 0; i < plugins.size(); ++i) {
    if (i) out += ',';
    out += "{\"class\":";
    append_json_string(plugins[i].class_name, out);
    out += ",\"type\":";
    append_json_string(plugins[i].type, out);
    if (!plugins[i].version.empty()) {
      out += ",\"version\":";
      append_json_string(plugins[i].version, out);
    }
    out += '}';
  }
  out += ']';
}

void append_config_key_info(const ConfigKeyInfo& key, std::string& out) {
  out += "{\"name\":";
  append_json_string(key.name, out);
  out += ",\"type\":";
  append_json_string(key.type, out);
  out += ",\"required\":";
  out += key.required ? "true" : "false";
  out += ",\"default_value\":";
  if (key.default_value && key.type == "PASSWORD") append_json_string(redacted_value, out);
  else append_optional_string(key.default_value, out);
  out += ",\"importance\":";
  append_json_string(key.importance, out);
  out += ",\"documentation\":";
  append_json_string(key.documentation, out);
  out += ",\"group\":";
  append_optional_string(key.group, out);
  out += ",\"width\":";
  append_json_string(key.width, out);
  out += ",\"display_name\":";
  append_json_string(key.display_name, out);
  out += ",\"dependents\":";
  append_string_array(key.dependents, out);
  out += ",\"order\":";
  append_int(key.order_in_group, out);
  out += '}';
}

void append_config_infos(const ConfigInfos& infos, std::string& out) {
  out += "{\"name\":";
  append_json_string(infos.name, out);
  out += ",\"error_count\":";
  append_int(infos.error_count, out);
  out += ",\"groups\":";
  append_string_array(infos.groups, out);
  out += ",\"configs\":[";
  for (size_t i = 0; i < infos.configs.size(); ++i) {
    if (i) out += ',';
    out += "{\"definition\":";
    append_config_key_info(infos.configs[i].definition, out);
    out += ",\"value\":";
    append_config_value_info(infos.configs[i].value, out);
    out += '}';
  }
  out += "]}";
}

void append_logger_level(const LoggerLevel& level, std::string& out) {
  out += "{\"level\":";
  append_json_string(level.level, out);
  out += ",\"last_modified\":";
  if (level.last_modified) append_int(*level.last_modified, out);
  else out += "null";
  out += '}';
}

void append_server_info(const ServerInfo& info, std::string& out) {
  out += "{\"version\":";
  append_json_string(info.version, out);
  out += ",\"commit\":";
  append_json_string(info.commit, out);
  out += ",\"kafka_cluster_id\":";
  append_json_string(info.kafka_cluster_id, out);
  out += '}';
}

void append_message(std::string_view message, std::string& out) {
  out += "{\"message\":";
  append_json_string(message, out);
  out += '}';
}

} // namespace weir::runtime::rest
