#include "runtime/rest/config_info.hpp"

#include <algorithm>

namespace weir::runtime::rest {

namespace {

ConfigKeyInfo key_info(const ConfigKey& key, int order) {
  ConfigKeyInfo info;
  info.name = key.name;
  info.type = std::string{to_string(key.type)};
  info.required = !key.default_value;
  info.default_value = key.default_value;
  info.importance = std::string{to_string(key.importance)};
  info.documentation = key.doc;
  if (!key.group.empty()) info.group = key.group;
  info.order_in_group = order;
  info.display_name = key.name;
  return info;
}

// A definition for a key the connector does not declare, so its error can be shown.
ConfigKeyInfo unknown_key(const std::string& name) {
  ConfigKeyInfo info;
  info.name = name;
  info.type = "STRING";
  info.importance = "LOW";
  info.documentation = "Not a configuration of this connector.";
  info.display_name = name;
  return info;
}

} // namespace

std::vector<ConfigKeyInfo> config_key_infos(const ConfigDef& def) {
  std::vector<ConfigKeyInfo> infos;
  for (const auto& key : def.keys()) {
    int order = -1;
    if (!key.group.empty())
      order = static_cast<int>(std::count_if(infos.begin(), infos.end(), [&](const ConfigKeyInfo& k) {
                return k.group == key.group;
              })) + 1;
    infos.push_back(key_info(key, order));
  }
  return infos;
}

ConfigInfos config_infos(std::string name, const ConfigDef& def, const ConfigMap& raw,
                         const std::vector<ConfigIssue>& issues) {
  ConfigInfos infos;
  infos.name = std::move(name);
  auto errors_of = [&](const std::string& key) {
    std::vector<std::string> errors;
    for (const auto& issue : issues)
      if (issue.name == key) errors.insert(errors.end(), issue.errors.begin(), issue.errors.end());
    return errors;
  };
  for (auto& definition : config_key_infos(def)) {
    if (definition.group && std::find(infos.groups.begin(), infos.groups.end(), *definition.group) == infos.groups.end())
      infos.groups.push_back(*definition.group);
    ConfigValueInfo value;
    value.name = definition.name;
    if (auto given = raw.find(definition.name); given != raw.end())
      value.value = definition.type == "PASSWORD" ? std::string{Password::hidden} : given->second;
    value.errors = errors_of(definition.name);
    infos.configs.push_back({std::move(definition), std::move(value)});
  }
  for (const auto& issue : issues) {
    bool listed = std::any_of(infos.configs.begin(), infos.configs.end(),
                              [&](const ConfigInfo& c) { return c.definition.name == issue.name; });
    if (listed) continue;
    infos.configs.push_back({unknown_key(issue.name), {issue.name, issue.value, {}, errors_of(issue.name), true}});
  }
  for (const auto& config : infos.configs) infos.error_count += static_cast<int>(config.value.errors.size());
  return infos;
}

void throw_if_invalid(const ConfigInfos& infos) {
  if (infos.error_count == 0) return;
  std::string message = "Connector configuration is invalid and contains the following " +
                        std::to_string(infos.error_count) + " error(s):";
  for (const auto& config : infos.configs)
    for (const auto& error : config.value.errors) message += "\n" + error;
  message += "\nYou can also find the above list of errors at the endpoint "
             "`/connector-plugins/{connectorType}/config/validate`";
  throw bad_request(message);
}

} // namespace weir::runtime::rest
