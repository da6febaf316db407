// Declared configuration, modelled on Kafka's ConfigDef / AbstractConfig.
//
// Every component (connector, task, transform, converter) declares its keys once:
// name, type, default, importance, doc and validator. The same declaration parses a
// raw string map into typed values, reports every problem for the REST
// `/config/validate` endpoint, and documents the component. Unknown keys are errors,
// except those that another component owns (passthrough prefixes such as
// `transforms.`), so a typo never silently falls back to a default.
//
// Threading: a ConfigDef is immutable once defined and may be shared; a Config is a
// plain value. Parsing happens at start-up, never per record.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace weir {

/// A configuration problem, naming the offending key (empty when no key applies,
/// e.g. an unreadable file). Messages follow Kafka's wording, so operators recognise
/// them: `Invalid value X for configuration KEY: REASON`.
class ConfigError : public std::runtime_error {
public:
  ConfigError(std::string key, const std::string& message)
      : std::runtime_error(message), key_(std::move(key)) {}

  const std::string& key() const noexcept { return key_; }

private:
  std::string key_;
};

enum class ConfigType { Boolean, Int, Long, Double, String, List, Password, Class };

/// How much a user should care; drives documentation order, as in Kafka.
enum class Importance { High, Medium, Low };

/// Kafka's upper-case type name (`INT`, `PASSWORD`, ...), used in messages and docs.
std::string_view to_string(ConfigType type) noexcept;
std::string_view to_string(Importance importance) noexcept;

/// A secret. It is kept in memory as given but prints as `[hidden]`, so logging a
/// config or an error can never leak it; call value() where the secret is needed.
class Password {
public:
  Password() = default;
  explicit Password(std::string value) : value_(std::move(value)) {}

  const std::string& value() const noexcept { return value_; }
  static constexpr std::string_view hidden = "[hidden]";

  friend bool operator==(const Password&, const Password&) = default;

private:
  std::string value_;
};
std::ostream& operator<<(std::ostream& os, const Password& p);

/// A parsed value. `Class` keys hold their class name as a std::string.
using ConfigValue = std::variant<bool, int32_t, int64_t, double, std::string,
                                 std::vector<std::string>, Password>;

/// Renders a value the way Kafka prints it (lists comma-separated, passwords hidden).
std::string to_string(const ConfigValue& value);

/// Checks a parsed value; returns the reason it is invalid, or std::nullopt.
/// The reason completes `Invalid value X for configuration KEY: REASON`.
using Validator = std::function<std::optional<std::string>(const ConfigValue&)>;

namespace validators {
/// Numeric bounds, inclusive; either may be absent (Kafka's Range).
Validator range(std::optional<double> min, std::optional<double> max);
/// The value (each element, for a list) must be one of `allowed` (Kafka's ValidString).
Validator one_of(std::vector<std::string> allowed, bool case_insensitive = false);
/// A string, class name or list must not be empty (Kafka's NonEmptyString).
Validator non_empty();
/// A number must be >= 0.
Validator non_negative();
} // namespace validators

/// One declared key. `default_value` is the textual default, parsed like user input;
/// std::nullopt means the key is required.
struct ConfigKey {
  std::string name;
  ConfigType type = ConfigType::String;
  std::optional<std::string> default_value;
  Importance importance = Importance::Medium;
  std::string doc;
  Validator validator;
  std::string group;
};

/// Keys a ConfigDef does not declare but must let through, because another component
/// parses them (e.g. prefixes `transforms.`, `key.converter.`, `consumer.override.`).
struct ParseOptions {
  std::vector<std::string> passthrough_prefixes;
  std::vector<std::string> passthrough_keys;
};

/// Everything wrong with one key, for `/config/validate`. `value` is the raw value
/// as given (`[hidden]` for passwords), std::nullopt when the key was absent.
/// `errors` are complete messages, each one what parse() would throw.
struct ConfigIssue {
  std::string name;
  std::optional<std::string> value;
  std::vector<std::string> errors;
};

class Config;

/// The declaration of a component's keys.
class ConfigDef {
public:
  /// Declares a key with a default. The default is parsed and validated here, so a
  /// bad declaration fails at start-up, not when a user happens to omit the key.
  /// Throws ConfigError for a duplicate name or an invalid default.
  ConfigDef& define(std::string name, ConfigType type, std::string default_value,
                    Importance importance, std::string doc, Validator validator = {});
  /// Declares a required key (no default).
  ConfigDef& define(std::string name, ConfigType type, Importance importance, std::string doc,
                    Validator validator = {});
  /// Declares a fully spelled-out key.
  ConfigDef& define(ConfigKey key);

  /// Keys defined after this call belong to `name` (documentation grouping only).
  ConfigDef& group(std::string name);

  /// Declared keys, in declaration order.
  const std::vector<ConfigKey>& keys() const noexcept { return keys_; }
  const ConfigKey* find(std::string_view name) const noexcept;

  /// Every problem at once, without throwing: one issue per bad key, declared keys
  /// in declaration order, then unknown keys by name. Empty means parse() succeeds.
  std::vector<ConfigIssue> validate(const std::map<std::string, std::string>& raw,
                                    const ParseOptions& options = {}) const;

  /// Typed values with defaults applied. Throws ConfigError for the first problem
  /// validate() would report.
  Config parse(const std::map<std::string, std::string>& raw,
               const ParseOptions& options = {}) const;

private:
  std::vector<ConfigKey> keys_;
  std::string group_;
};

/// A parsed configuration: typed values of declared keys, plus the original strings
/// (including passthrough keys) for sub-components.
class Config {
public:
  Config() = default;

  // Typed getters. Each throws ConfigError if `name` is not declared or is declared
  // with another type. get_string also reads Class keys.
  bool get_bool(std::string_view name) const;
  int32_t get_int(std::string_view name) const;
  int64_t get_long(std::string_view name) const;
  double get_double(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;
  const std::vector<std::string>& get_list(std::string_view name) const;
  const Password& get_password(std::string_view name) const;

  /// The parsed value and declared type of a key; throws ConfigError if undeclared.
  const ConfigValue& get(std::string_view name) const;
  ConfigType type(std::string_view name) const;

  /// The raw map as given to parse(), including passthrough keys.
  const std::map<std::string, std::string>& originals() const noexcept { return originals_; }

  /// Originals whose key starts with `prefix` (and is longer than it), with the prefix
  /// removed when `strip` — how a connector hands `key.converter.*` to its converter.
  std::map<std::string, std::string> originals_with_prefix(std::string_view prefix,
                                                           bool strip = true) const;

  /// `key = value` lines for the start-up log, passwords hidden (AbstractConfig.logAll).
  std::string describe() const;

private:
  friend class ConfigDef;
  struct Entry {
    ConfigType type;
    ConfigValue value;
  };
  const Entry& entry(std::string_view name, std::initializer_list<ConfigType> expected) const;

  std::map<std::string, Entry, std::less<>> values_;
  std::map<std::string, std::string> originals_;
};

} // namespace weir
