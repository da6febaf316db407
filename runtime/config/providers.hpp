// Config providers: Kafka's `${provider:[path:]key}` references, resolved before a
// config is parsed so that secrets need not sit in connector configs.
//
// Built in: `${env:NAME}` (an environment variable, like EnvVarConfigProvider) and
// `${file:PATH:KEY}` (KEY of the properties file PATH, like FileConfigProvider).
// Unlike Kafka, which leaves an unresolvable reference in place, every failure is an
// error naming the config key, so a connector never starts with a literal `${...}`.
#pragma once

#include <map>
#include <set>
#include <string>

namespace weir::runtime {

/// Resolved values, plus the keys whose values came (at least partly) from a
/// provider: those are secrets and must be redacted wherever configs are shown.
struct ResolvedConfig {
  std::map<std::string, std::string> values;
  std::set<std::string> secret_keys;
};

/// Replaces every reference in every value (several per value, with literal text
/// around them; replacements are not rescanned). A `${...}` without a ':' is not a
/// reference and is kept, as in Kafka (e.g. TimestampRouter's `${topic}`). Throws
/// weir::ConfigError naming the key and what was missing, e.g.
/// `Configuration "connection.password": environment variable DB_PASS is not set`.
ResolvedConfig resolve_providers(const std::map<std::string, std::string>& raw);

} // namespace weir::runtime
