#include "runtime/config/connector_json.hpp"

#include <simdjson.h>

#include "runtime/config/convert.hpp"
#include "runtime/config/json_syntax.hpp"
#include "runtime/config/properties.hpp"
#include "weir/config.hpp"

namespace weir::runtime {

namespace {

using simdjson::ondemand::json_type;

std::string_view describe(json_type type) {
  switch (type) {
    case json_type::array: return "an array";
    case json_type::object: return "an object";
    case json_type::null: return "null";
    default: return "a non-string";
  }
}

[[noreturn]] void not_scalar(std::string_view key, json_type type) {
  throw ConfigError(std::string{key}, "Configuration \"" + std::string{key} + "\" is " +
                                          std::string{describe(type)} +
                                          ": connector config values must be strings");
}

// A string as is; a number as its JSON text (1.50 stays "1.50", which converting
// through a double would lose); a boolean as true/false. std::nullopt otherwise.
std::optional<std::string> scalar_text(simdjson::ondemand::value value) {
  switch (value.type().value()) {
    case json_type::string: return std::string{std::string_view{value.get_string()}};
    case json_type::number: return std::string{trim(value.raw_json_token())};
    case json_type::boolean: return value.get_bool().value() ? "true" : "false";
    default: return std::nullopt;
  }
}

std::map<std::string, std::string> flat_object(simdjson::ondemand::object object) {
  std::map<std::string, std::string> out;
  for (auto field : object) {
    std::string key{std::string_view{field.unescaped_key()}};
    simdjson::ondemand::value value = field.value();
    auto text = scalar_text(value);
    if (!text) not_scalar(key, value.type().value());
    out.insert_or_assign(std::move(key), std::move(*text));
  }
  return out;
}

ConnectorConfig parse_checked(const simdjson::padded_string& json) {
  simdjson::ondemand::parser parser;
  simdjson::ondemand::document doc = parser.iterate(json);
  if (doc.type().value() != json_type::object)
    throw ConfigError("", "A connector config in JSON must be an object");
  std::map<std::string, std::string> top;
  std::optional<std::map<std::string, std::string>> nested;
  std::optional<std::pair<std::string, json_type>> non_scalar;
  for (auto field : doc.get_object()) {
    std::string key{std::string_view{field.unescaped_key()}};
    simdjson::ondemand::value value = field.value();
    json_type type = value.type().value();
    if (key == "config" && type == json_type::object) {
      nested = flat_object(value.get_object());
    } else if (auto text = scalar_text(value)) {
      top.insert_or_assign(std::move(key), std::move(*text));
    } else if (!non_scalar) {
      non_scalar.emplace(std::move(key), type);
    }
  }
  if (!nested) {
    if (non_scalar) not_scalar(non_scalar->first, non_scalar->second);
    std::string name = top.count("name") ? top["name"] : "";
    return {std::move(name), std::move(top)};
  }
  // The wrapped form: {"name": ..., "config": {...}} and nothing else.
  if (non_scalar) top.emplace(non_scalar->first, "");
  for (const auto& [key, value] : top)
    if (key != "name")
      throw ConfigError(key, "Unexpected field \"" + key +
                                 "\" next to \"config\" in connector JSON; expected only "
                                 "\"name\" and \"config\"");
  auto name_field = top.find("name");
  std::string name{name_field == top.end() ? "" : trim(name_field->second)};
  if (name.empty()) throw ConfigError("name", "Connector name must be provided next to \"config\"");
  auto inner = nested->find("name");
  if (inner != nested->end() && inner->second != name)
    throw ConfigError("name", "Connector name configuration (" + inner->second +
                                  ") doesn't match connector name (" + name + ")");
  (*nested)["name"] = name;
  return {std::move(name), std::move(*nested)};
}

} // namespace

ConnectorConfig parse_connector_json(std::string_view json) {
  simdjson::padded_string padded{json};
  // On Demand is lazy: it does not reject trailing garbage or every malformed
  // token. A DOM parse validates the whole document first; start-up can afford it.
  simdjson::dom::parser validator;
  if (auto error = validator.parse(padded).error())
    throw ConfigError("", "Invalid connector JSON: " + describe_json_error(json, simdjson::error_message(error)));
  try {
    return parse_checked(padded);
  } catch (const simdjson::simdjson_error& e) {
    throw ConfigError("", std::string{"Invalid connector JSON: "} + e.what());
  }
}

ConnectorConfig load_connector_file(const std::filesystem::path& path) {
  std::string text = read_config_file(path);
  try {
    ConnectorConfig result;
    auto first = text.find_first_not_of(" \t\r\n\f");
    if (first != std::string::npos && text[first] == '{') {
      result = parse_connector_json(text);
    } else {
      result.config = load_properties(text);
      auto name = result.config.find("name");
      if (name != result.config.end()) result.name = name->second;
    }
    if (result.name.empty())
      throw ConfigError("name", "Missing required configuration \"name\" which has no default value.");
    return result;
  } catch (const ConfigError& e) {
    throw ConfigError(e.key(), path.string() + ": " + e.what());
  }
}

} // namespace weir::runtime
