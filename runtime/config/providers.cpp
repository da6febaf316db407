#include "runtime/config/providers.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <regex>
#include <string_view>

#include <spdlog/spdlog.h>

#include "runtime/config/properties.hpp"
#include "runtime/config/secrets.hpp"

namespace weir::runtime {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view prefix = "config.providers.";
constexpr std::string_view file_class = "org.apache.kafka.common.config.provider.FileConfigProvider";
constexpr std::string_view env_class = "org.apache.kafka.common.config.provider.EnvVarConfigProvider";

// Kafka's ConfigTransformer pattern `\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}`: provider
// up to the first ':', an optional path up to the next ':', the rest is the key.
struct Reference {
  std::string_view provider;
  std::string_view path; // empty when absent, as Kafka's ConfigVariable has it
  std::string_view key;
};

std::optional<Reference> split_reference(std::string_view body) {
  auto colon = body.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  Reference ref{body.substr(0, colon), {}, body.substr(colon + 1)};
  if (auto second = ref.key.find(':'); second != std::string_view::npos) {
    ref.path = ref.key.substr(0, second);
    ref.key.remove_prefix(second + 1);
  }
  return ref;
}

std::vector<std::string> split_list(const std::string& value) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= value.size()) {
    auto comma = value.find(',', pos);
    if (comma == std::string::npos) comma = value.size();
    auto item = value.substr(pos, comma - pos);
    auto first = item.find_first_not_of(" \t");
    if (first != std::string::npos)
      out.push_back(item.substr(first, item.find_last_not_of(" \t") + 1 - first));
    pos = comma + 1;
  }
  return out;
}

bool is_class(const std::string& value, std::string_view full) {
  return value == full || value == full.substr(full.rfind('.') + 1);
}

// Whether `path` lies inside `dir` (both canonical), compared by path components
// (so /etc/weir does not admit /etc/weirdo).
bool inside(const fs::path& path, const fs::path& dir) {
  auto p = path.begin();
  for (const auto& part : dir) {
    if (p == path.end() || *p != part) return false;
    ++p;
  }
  return true;
}

using FileCache = std::map<std::string, std::map<std::string, std::string>>;

} // namespace

/// One configured provider: the value of a reference, or nothing (it stays literal).
class ConfigProviders::Provider {
public:
  virtual ~Provider() = default;
  virtual std::optional<std::string> get(const std::string& config_key, const Reference& ref,
                                         FileCache& files) const = 0;
  virtual bool reads_any_file() const { return false; }
};

namespace {

/// FileConfigProvider: KEY of the properties file PATH, limited to allowed.paths.
class FileProvider final : public ConfigProviders::Provider {
public:
  explicit FileProvider(std::optional<std::vector<fs::path>> allowed) : allowed_(std::move(allowed)) {}

  std::optional<std::string> get(const std::string& config_key, const Reference& ref,
                                  FileCache& files) const override {
    if (ref.path.empty()) return std::nullopt; // Kafka: no path, no data
    std::error_code ec;
    fs::path path = fs::weakly_canonical(fs::absolute(fs::path{ref.path}, ec), ec);
    if (ec) return std::nullopt;
    // Symlinks are resolved before the check, so a link inside an allowed
    // directory cannot lead out of it.
    if (allowed_ && std::none_of(allowed_->begin(), allowed_->end(),
                                 [&](const fs::path& dir) { return inside(path, dir); }))
      return std::nullopt;
    auto cached = files.find(path.string());
    if (cached == files.end()) {
      // A device or a pipe (/dev/zero, /dev/stdin) would never end or would hang.
      if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
        throw ConfigError(config_key, "Configuration \"" + config_key + "\": " + std::string{ref.path} +
                                        " is not a regular file, which the file config provider reads");
      try {
        cached = files.emplace(path.string(), load_properties_file(path)).first;
      } catch (const ConfigError& e) {
        throw ConfigError(config_key, "Configuration \"" + config_key + "\": " + e.what());
      }
    }
    auto value = cached->second.find(std::string{ref.key});
    if (value == cached->second.end()) return std::nullopt;
    return value->second;
  }

  bool reads_any_file() const override { return !allowed_; }

private:
  std::optional<std::vector<fs::path>> allowed_; // nullopt: every path (Kafka's default)
};

/// EnvVarConfigProvider: an environment variable whose name allowlist.pattern finds.
class EnvProvider final : public ConfigProviders::Provider {
public:
  explicit EnvProvider(std::optional<std::regex> allow) : allow_(std::move(allow)) {}

  std::optional<std::string> get(const std::string& config_key, const Reference& ref,
                                 FileCache&) const override {
    if (!ref.path.empty())
      throw ConfigError(config_key, "Configuration \"" + config_key + "\": the path \"" +
                                      std::string{ref.path} + "\" is not supported by "
                                      "EnvVarConfigProvider (write ${" + std::string{ref.provider} +
                                      ":NAME})");
    std::string name{ref.key};
    // Java's Pattern.asPredicate: the pattern is searched for, not matched whole.
    if (allow_ && !std::regex_search(name, *allow_)) return std::nullopt;
    const char* value = std::getenv(name.c_str());
    if (!value) return std::nullopt;
    return std::string{value};
  }

private:
  std::optional<std::regex> allow_; // nullopt: every variable
};

std::shared_ptr<const ConfigProviders::Provider>
make_provider(const std::string& name, const std::string& cls,
              const std::map<std::string, std::string>& params) {
  const std::string class_key = std::string{prefix} + name + ".class";
  auto param_key = [&](const std::string& param) { return std::string{prefix} + name + ".param." + param; };
  auto only = [&](std::string_view allowed) {
    for (const auto& [param, value] : params)
      if (param != allowed)
        throw ConfigError(param_key(param), "Unknown configuration \"" + param_key(param) + "\": " +
                                              cls + " takes only the param " + std::string{allowed});
  };
  if (is_class(cls, file_class)) {
    only("allowed.paths");
    auto given = params.find("allowed.paths");
    if (given == params.end()) return std::make_shared<FileProvider>(std::nullopt);
    std::vector<fs::path> dirs;
    for (const auto& entry : split_list(given->second)) {
      fs::path dir{entry};
      std::error_code ec;
      if (!dir.is_absolute() || !fs::exists(dir, ec))
        throw ConfigError(param_key("allowed.paths"),
                          "Invalid value " + entry + " for configuration " + param_key("allowed.paths") +
                            (dir.is_absolute() ? ": the path does not exist" : ": the path is not absolute"));
      dirs.push_back(fs::canonical(dir, ec));
    }
    if (dirs.empty())
      throw ConfigError(param_key("allowed.paths"),
                        "Invalid value for configuration " + param_key("allowed.paths") +
                          ": it lists no directory (leave it out to allow every path)");
    return std::make_shared<FileProvider>(std::move(dirs));
  }
  if (is_class(cls, env_class)) {
    only("allowlist.pattern");
    auto given = params.find("allowlist.pattern");
    if (given == params.end()) return std::make_shared<EnvProvider>(std::nullopt);
    try {
      return std::make_shared<EnvProvider>(std::regex{given->second});
    } catch (const std::regex_error& e) {
      throw ConfigError(param_key("allowlist.pattern"),
                        "Invalid value " + given->second + " for configuration " +
                          param_key("allowlist.pattern") + ": " + e.what());
    }
  }
  throw ConfigError(class_key, "Invalid value " + cls + " for configuration " + class_key +
                                 ": weir's config providers are " + std::string{file_class} +
                                 " and " + std::string{env_class});
}

} // namespace

ConfigProviders::ConfigProviders() = default;
ConfigProviders::~ConfigProviders() = default;
ConfigProviders::ConfigProviders(const ConfigProviders&) = default;
ConfigProviders& ConfigProviders::operator=(const ConfigProviders&) = default;

ConfigProviders ConfigProviders::from_config(const std::map<std::string, std::string>& worker) {
  std::set<std::string> listed;
  if (auto it = worker.find("config.providers"); it != worker.end())
    for (auto& name : split_list(it->second)) listed.insert(std::move(name));
  std::map<std::string, std::string> classes;
  std::map<std::string, std::map<std::string, std::string>> params;
  for (auto it = worker.lower_bound(std::string{prefix}); it != worker.end(); ++it) {
    const auto& [key, value] = *it;
    if (key.compare(0, prefix.size(), prefix) != 0) break;
    std::string_view rest = std::string_view{key}.substr(prefix.size());
    auto dot = rest.find('.');
    std::string name{rest.substr(0, dot)};
    std::string_view what = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
    if (what != "class" && what.rfind("param.", 0) != 0)
      throw ConfigError(key, "Unknown configuration \"" + key + "\": expected config.providers." +
                               name + ".class or config.providers." + name + ".param.NAME");
    if (!listed.count(name))
      throw ConfigError(key, "Configuration \"" + key + "\" is set, but config.providers does not "
                             "list \"" + name + "\"");
    if (what == "class")
      classes[name] = value;
    else
      params[name][std::string{what.substr(6)}] = value;
  }
  ConfigProviders providers;
  for (const auto& name : listed) {
    auto cls = classes.find(name);
    if (cls == classes.end())
      throw ConfigError(std::string{prefix} + name + ".class",
                        "Missing required configuration \"config.providers." + name +
                          ".class\": config.providers lists \"" + name + "\"");
    providers.providers_.emplace(name, make_provider(name, cls->second, params[name]));
  }
  return providers;
}

std::vector<std::string> ConfigProviders::unlimited_file_providers() const {
  std::vector<std::string> out;
  for (const auto& [name, provider] : providers_)
    if (provider->reads_any_file()) out.push_back(name);
  return out;
}

ResolvedConfig ConfigProviders::resolve(const std::map<std::string, std::string>& raw) const {
  ResolvedConfig out;
  FileCache files; // each file read once per call
  for (const auto& [key, value] : raw) {
    std::string resolved;
    bool secret = false;
    size_t pos = 0;
    for (;;) {
      auto start = value.find("${", pos);
      auto end = start == std::string::npos ? start : value.find('}', start + 2);
      if (end == std::string::npos) break;
      std::string_view text = std::string_view{value}.substr(start, end + 1 - start);
      auto ref = split_reference(text.substr(2, text.size() - 3));
      if (!ref) { // `${topic}`: not a reference; the regex would retry one char later
        resolved.append(value, pos, start + 1 - pos);
        pos = start + 1;
        continue;
      }
      resolved.append(value, pos, start - pos);
      auto provider = providers_.find(std::string{ref->provider});
      auto given = provider == providers_.end() ? std::nullopt : provider->second->get(key, *ref, files);
      if (given) {
        out.substitutions.push_back({std::string{text}, *given});
        remember_provided(*given, std::string{text});
        resolved += *given;
        secret = true;
      } else {
        resolved += text;
        if (provider != providers_.end())
          spdlog::warn("Configuration \"{}\": {} gave no value (not set, not found, or outside "
                       "the provider's allowed.paths or allowlist.pattern); it is kept as written",
                       key, text);
      }
      pos = end + 1;
    }
    resolved.append(value, pos);
    if (secret) {
      out.secret_keys.insert(key);
      out.raw_of_secret.emplace(key, value);
    }
    out.values.emplace(key, std::move(resolved));
  }
  return out;
}

std::string ResolvedConfig::scrub(const std::string& text) const {
  // Whole resolved values read back as written; a provider's value as its reference.
  std::vector<std::pair<std::string, std::string>> replacements;
  std::vector<std::string> secrets;
  for (const auto& [key, raw] : raw_of_secret) replacements.emplace_back(values.at(key), raw);
  for (const auto& s : substitutions) {
    replacements.emplace_back(s.value, s.reference);
    secrets.push_back(s.value);
  }
  return hide_values(text, std::move(replacements), secrets);
}

ConfigError ResolvedConfig::scrub(const ConfigError& error) const {
  return ConfigError(error.key(), scrub(std::string{error.what()}));
}

} // namespace weir::runtime
