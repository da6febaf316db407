// ConfigDef: declaring keys, and the one evaluation path behind both validate()
// (collect every issue) and parse() (throw the first).
#include <algorithm>

#include "runtime/config/convert.hpp"
#include "weir/config.hpp"

namespace weir {

namespace {

struct Parsed {
  const ConfigKey* key;
  ConfigValue value;
};

// A password's text never reaches a message or a validate() response.
std::string shown(const ConfigKey& key, std::string_view raw) {
  return key.type == ConfigType::Password ? std::string{Password::hidden} : std::string{raw};
}

// Converts and validates one value; returns the error message on failure.
std::optional<std::string> check(const ConfigKey& key, std::string_view raw, ConfigValue& out) {
  std::string reason;
  auto value = runtime::convert(key.type, raw, reason);
  if (!value) return runtime::invalid_value_message(key.name, shown(key, raw), reason);
  if (key.validator) {
    if (auto why = key.validator(*value))
      return runtime::invalid_value_message(key.name, shown(key, raw), *why);
  }
  out = std::move(*value);
  return std::nullopt;
}

bool passes_through(const std::string& name, const ParseOptions& options) {
  auto& keys = options.passthrough_keys;
  if (std::find(keys.begin(), keys.end(), name) != keys.end()) return true;
  return std::any_of(options.passthrough_prefixes.begin(), options.passthrough_prefixes.end(),
                     [&](const std::string& p) { return name.starts_with(p); });
}

// The single evaluation path: fills `issues` and returns the values that parsed.
std::vector<Parsed> evaluate(const std::vector<ConfigKey>& keys,
                             const std::map<std::string, std::string>& raw,
                             const ParseOptions& options, std::vector<ConfigIssue>& issues) {
  std::vector<Parsed> parsed;
  parsed.reserve(keys.size());
  for (const auto& key : keys) {
    auto given = raw.find(key.name);
    if (given == raw.end() && !key.default_value) {
      issues.push_back({key.name, std::nullopt,
                        {"Missing required configuration \"" + key.name +
                         "\" which has no default value."}});
      continue;
    }
    const std::string& text = given != raw.end() ? given->second : *key.default_value;
    ConfigValue value;
    if (auto error = check(key, text, value)) {
      std::optional<std::string> as_given;
      if (given != raw.end()) as_given = shown(key, text);
      issues.push_back({key.name, std::move(as_given), {std::move(*error)}});
      continue;
    }
    parsed.push_back({&key, std::move(value)});
  }
  for (const auto& [name, value] : raw) {
    // &name = name: clang before 16 (the fuzz build's) cannot capture a binding.
    auto declared = std::find_if(keys.begin(), keys.end(),
                                 [&name = name](const ConfigKey& k) { return k.name == name; });
    if (declared != keys.end() || passes_through(name, options)) continue;
    std::string message = "Unknown configuration \"" + name + "\"";
    const ConfigKey* near = runtime::nearest_name(keys, name, [](const ConfigKey& k) -> const std::string& { return k.name; });
    if (near) message += "; did you mean \"" + near->name + "\"?";
    // A mistyped password key still holds a password.
    bool secret = near && near->type == ConfigType::Password;
    issues.push_back({name, secret ? std::string{Password::hidden} : value, {std::move(message)}});
  }
  return parsed;
}

} // namespace

ConfigDef& ConfigDef::define(std::string name, ConfigType type, std::string default_value,
                             Importance importance, std::string doc, Validator validator) {
  return define(ConfigKey{std::move(name), type, std::move(default_value), importance,
                          std::move(doc), std::move(validator), {}});
}

ConfigDef& ConfigDef::define(std::string name, ConfigType type, Importance importance,
                             std::string doc, Validator validator) {
  return define(ConfigKey{std::move(name), type, std::nullopt, importance, std::move(doc),
                          std::move(validator), {}});
}

ConfigDef& ConfigDef::define(ConfigKey key) {
  if (find(key.name))
    throw ConfigError(key.name, "Configuration \"" + key.name + "\" is defined twice.");
  if (key.default_value) {
    ConfigValue ignored;
    if (auto error = check(key, *key.default_value, ignored))
      throw ConfigError(key.name, "Bad default: " + *error);
  }
  if (key.group.empty()) key.group = group_;
  keys_.push_back(std::move(key));
  return *this;
}

ConfigDef& ConfigDef::group(std::string name) {
  group_ = std::move(name);
  return *this;
}

const ConfigKey* ConfigDef::find(std::string_view name) const noexcept {
  for (const auto& key : keys_)
    if (key.name == name) return &key;
  return nullptr;
}

std::vector<ConfigIssue> ConfigDef::validate(const std::map<std::string, std::string>& raw,
                                             const ParseOptions& options) const {
  std::vector<ConfigIssue> issues;
  evaluate(keys_, raw, options, issues);
  return issues;
}

Config ConfigDef::parse(const std::map<std::string, std::string>& raw,
                        const ParseOptions& options) const {
  std::vector<ConfigIssue> issues;
  auto parsed = evaluate(keys_, raw, options, issues);
  if (!issues.empty()) throw ConfigError(issues.front().name, issues.front().errors.front());
  Config config;
  for (auto& p : parsed) config.values_.emplace(p.key->name, Config::Entry{p.key->type, std::move(p.value)});
  config.originals_ = raw;
  return config;
}

} // namespace weir
