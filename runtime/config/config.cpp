// Config: typed access to parsed values, and the originals for sub-components.
#include <algorithm>

#include "weir/config.hpp"

namespace weir {

const Config::Entry& Config::entry(std::string_view name,
                                   std::initializer_list<ConfigType> expected) const {
  auto it = values_.find(name);
  if (it == values_.end())
    throw ConfigError(std::string{name}, "Unknown configuration \"" + std::string{name} +
                                             "\": it is not declared");
  const Entry& e = it->second;
  if (expected.size() != 0 && std::find(expected.begin(), expected.end(), e.type) == expected.end())
    throw ConfigError(std::string{name}, "Configuration \"" + std::string{name} + "\" is of type " +
                                             std::string{to_string(e.type)} + ", not " +
                                             std::string{to_string(*expected.begin())});
  return e;
}

bool Config::get_bool(std::string_view name) const {
  return std::get<bool>(entry(name, {ConfigType::Boolean}).value);
}
int32_t Config::get_int(std::string_view name) const {
  return std::get<int32_t>(entry(name, {ConfigType::Int}).value);
}
int64_t Config::get_long(std::string_view name) const {
  return std::get<int64_t>(entry(name, {ConfigType::Long}).value);
}
double Config::get_double(std::string_view name) const {
  return std::get<double>(entry(name, {ConfigType::Double}).value);
}
const std::string& Config::get_string(std::string_view name) const {
  return std::get<std::string>(entry(name, {ConfigType::String, ConfigType::Class}).value);
}
const std::vector<std::string>& Config::get_list(std::string_view name) const {
  return std::get<std::vector<std::string>>(entry(name, {ConfigType::List}).value);
}
const Password& Config::get_password(std::string_view name) const {
  return std::get<Password>(entry(name, {ConfigType::Password}).value);
}
const ConfigValue& Config::get(std::string_view name) const { return entry(name, {}).value; }
ConfigType Config::type(std::string_view name) const { return entry(name, {}).type; }

std::map<std::string, std::string> Config::originals_with_prefix(std::string_view prefix,
                                                                 bool strip) const {
  std::map<std::string, std::string> out;
  for (const auto& [key, value] : originals_) {
    if (key.size() <= prefix.size() || !key.starts_with(prefix)) continue;
    out.emplace(strip ? key.substr(prefix.size()) : key, value);
  }
  return out;
}

std::string Config::describe() const {
  std::string out;
  for (const auto& [key, e] : values_) out += "\t" + key + " = " + to_string(e.value) + "\n";
  return out;
}

} // namespace weir
