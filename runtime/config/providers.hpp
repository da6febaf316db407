// Config providers: Kafka's `${provider:[path:]key}` references, resolved before a
// config is parsed so that secrets need not sit in connector configs.
//
// As in Kafka Connect, no provider is active unless the worker's config names it:
//   config.providers=file,env
//   config.providers.file.class=org.apache.kafka.common.config.provider.FileConfigProvider
//   config.providers.file.param.allowed.paths=/etc/weir/secrets   (KIP-993; optional)
//   config.providers.env.class=org.apache.kafka.common.config.provider.EnvVarConfigProvider
//   config.providers.env.param.allowlist.pattern=^DB_.*           (optional)
// The name before `.class` is what references use (`${file:...}`); the two classes
// are FileConfigProvider (`${NAME:PATH:KEY}`, KEY of the properties file PATH) and
// EnvVarConfigProvider (`${NAME:VAR}`). Anyone who may send a connector config (the
// REST API) can read what the providers give, which is why they are off by default
// and why allowed.paths should be set.
//
// Kafka's semantics, kept: a reference to a provider that is not configured, to a
// key the file lacks, to an environment variable that is unset or not allowed, or to
// a file outside allowed.paths stays as literal text. An error (a file that cannot
// be read, a path given to the env provider) names the config key, never a value.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "weir/config.hpp"

namespace weir::runtime {

/// Resolved values, plus what is needed to keep them secret: the keys whose values
/// came (at least partly) from a provider, and what each reference gave.
struct ResolvedConfig {
  std::map<std::string, std::string> values;
  std::set<std::string> secret_keys;

  /// One reference that a provider resolved.
  struct Substitution {
    std::string reference; ///< as written, e.g. `${file:/etc/db.properties:password}`
    std::string value;     ///< what it gave
  };
  std::vector<Substitution> substitutions;
  std::map<std::string, std::string> raw_of_secret; ///< key -> value as written

  /// `text` (an error message, a status trace, a log line) with every resolved value
  /// and every value a provider gave replaced by the text it was written as, and any
  /// other run of 8 or more characters of a provider's value (a piece of it quoted)
  /// by `[hidden]` (runtime::hide_values). Values of fewer than 4 characters are
  /// left (they would garble any message).
  std::string scrub(const std::string& text) const;

  /// `error` with a scrubbed message (same key).
  ConfigError scrub(const ConfigError& error) const;
};

/// The providers a worker enables. Default-constructed: none, every reference stays
/// as written.
class ConfigProviders {
public:
  ConfigProviders();
  ~ConfigProviders();
  ConfigProviders(const ConfigProviders&);
  ConfigProviders& operator=(const ConfigProviders&);

  /// From a worker's `config.providers*` keys (other keys are ignored). Throws
  /// ConfigError naming the key: a listed provider without `.class`, a class that is
  /// neither provider, a `.class` or `.param.` for a provider not listed, an unknown
  /// param, an allowed.paths entry that is not an existing absolute directory, an
  /// allowlist.pattern that is not a regular expression.
  static ConfigProviders from_config(const std::map<std::string, std::string>& worker);

  /// Replaces every resolvable reference in every value (several per value, with
  /// literal text around them; replacements are not rescanned). A `${...}` without
  /// a ':' is not a reference and is kept (TimestampRouter's `${topic}`). Throws
  /// ConfigError naming the key for a file that cannot be read, or a path given to
  /// the env provider.
  ResolvedConfig resolve(const std::map<std::string, std::string>& raw) const;

  /// The names of file providers without allowed.paths: they read any file weir
  /// can read, for whoever may send a connector config (worth a warning).
  std::vector<std::string> unlimited_file_providers() const;

  class Provider; ///< one configured provider (providers.cpp)

private:
  std::map<std::string, std::shared_ptr<const Provider>> providers_;
};

} // namespace weir::runtime
