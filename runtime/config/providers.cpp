#include "runtime/config/providers.hpp"

#include <cstdlib>
#include <optional>
#include <string_view>

#include "runtime/config/properties.hpp"
#include "weir/config.hpp"

namespace weir::runtime {

namespace {

// Kafka's ConfigTransformer pattern `\$\{([^}]*?):(([^}]*?):)?([^}]*?)\}`: provider
// up to the first ':', an optional path up to the next ':', the rest is the key.
struct Reference {
  std::string_view provider;
  std::optional<std::string_view> path;
  std::string_view key;
};

std::optional<Reference> split_reference(std::string_view body) {
  auto colon = body.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  Reference ref{body.substr(0, colon), std::nullopt, body.substr(colon + 1)};
  if (auto second = ref.key.find(':'); second != std::string_view::npos) {
    ref.path = ref.key.substr(0, second);
    ref.key.remove_prefix(second + 1);
  }
  return ref;
}

class Resolver {
public:
  // The replacement text for one reference inside the value of `config_key`.
  std::string lookup(const std::string& config_key, const Reference& ref, std::string_view text) {
    auto fail = [&](const std::string& what) -> std::string {
      throw ConfigError(config_key, "Configuration \"" + config_key + "\": " + what);
    };
    if (ref.provider == "env") {
      if (ref.path) return fail("the env provider takes no path, in " + std::string{text});
      std::string name{ref.key};
      const char* value = std::getenv(name.c_str());
      if (!value) return fail("environment variable " + name + " is not set");
      return value;
    }
    if (ref.provider == "file") {
      if (!ref.path || ref.path->empty())
        return fail("the file provider needs a path, as in ${file:PATH:KEY}, in " + std::string{text});
      std::string path{*ref.path};
      auto cached = files_.find(path);
      if (cached == files_.end()) {
        try {
          cached = files_.emplace(path, load_properties_file(path)).first;
        } catch (const ConfigError& e) {
          return fail(e.what());
        }
      }
      auto value = cached->second.find(std::string{ref.key});
      if (value == cached->second.end())
        return fail("key \"" + std::string{ref.key} + "\" not found in file " + path);
      return value->second;
    }
    return fail("unknown config provider \"" + std::string{ref.provider} + "\" in " +
                std::string{text} + " (built-in providers: env, file)");
  }

private:
  std::map<std::string, std::map<std::string, std::string>> files_; // read once per call
};

} // namespace

ResolvedConfig resolve_providers(const std::map<std::string, std::string>& raw) {
  ResolvedConfig out;
  Resolver resolver;
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
      resolved += resolver.lookup(key, *ref, text);
      secret = true;
      pos = end + 1;
    }
    resolved.append(value, pos);
    if (secret) out.secret_keys.insert(key);
    out.values.emplace(key, std::move(resolved));
  }
  return out;
}

} // namespace weir::runtime
