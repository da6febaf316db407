// Single message transforms and predicates a plugin provides: Kafka Connect's
// Transformation<R> and Predicate<R>, over weir's records (weir/record.hpp).
//
// Configuration: a plugin class declares its keys in a static `define(ConfigDef&)`
// and is constructed from the parsed Config, with the chain's prefix
// (`transforms.<alias>.`) already taken off; an unknown or bad key is reported by name
// before anything runs (also by /config/validate). Throw ConfigError from the
// constructor for a check a ConfigDef cannot express.
//
// Differences from Kafka's contract, on purpose (the same as weir's built-in SMTs):
// - apply() changes the record in place and returns false to drop it (Kafka returns a
//   new record, or null).
// - Bad data in one record: throw data::DataError. The connector's errors.tolerance
//   decides (fail the task, or log it and send the record to the dead-letter topic
//   with stage TRANSFORMATION and the class name). Any other exception is handled the
//   same way and named org.apache.kafka.connect.errors.ConnectException.
// - Kafka's Key/Value variants (`InsertField$Key`) are two class names: register
//   each one (e.g. `com.example.Mask$Key` and `com.example.Mask$Value`).
//
// Threading: each connector task has its own instances, used from one thread at a
// time, so a transformation may keep caches (derived schemas, buffers) without locks.
// A predicate instance belongs to one transformation of one task.
#pragma once

#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "weir/config.hpp"
#include "weir/data/error.hpp"
#include "weir/record.hpp"

namespace weir {

class Transformation {
public:
  virtual ~Transformation() = default;
  /// Transforms one record in place. Returns false to drop it.
  virtual bool apply(const Record& record) = 0;
};

class Predicate {
public:
  virtual ~Predicate() = default;
  /// Whether the record matches.
  virtual bool test(const Record& record) = 0;
};

/// A transformation class a plugin provides.
struct TransformationDescriptor {
  /// Full class name configs use (`transforms.x.type`), unique in the worker.
  std::string class_name;
  /// Short names that resolve too.
  std::vector<std::string> aliases;
  /// The plugin's own version, listed by `GET /connector-plugins?connectorsOnly=false`.
  std::string version;
  /// Declares the transformation's keys (without the `transforms.<alias>.` prefix).
  std::function<void(ConfigDef&)> define;
  /// A new instance from its parsed keys. Called once per task, possibly from several
  /// threads at once.
  std::function<std::unique_ptr<Transformation>(const Config&)> make;
};

/// A predicate class a plugin provides (used as `predicates.<alias>.type`).
struct PredicateDescriptor {
  std::string class_name;
  std::vector<std::string> aliases;
  std::string version;
  std::function<void(ConfigDef&)> define;
  std::function<std::unique_ptr<Predicate>(const Config&)> make;
};

/// A transformation class the registrar can describe by itself: constructible from
/// its Config, with a static `define(ConfigDef&)`.
template <class T>
concept TransformationClass = std::derived_from<T, Transformation> && std::constructible_from<T, const Config&>
                              && requires(ConfigDef& def) { T::define(def); };

template <class T>
concept PredicateClass = std::derived_from<T, Predicate> && std::constructible_from<T, const Config&>
                         && requires(ConfigDef& def) { T::define(def); };

} // namespace weir
