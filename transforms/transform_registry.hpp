// The one table of SMTs and predicates: a name -> factory table resolving Kafka
// Connect's full class names and short aliases, e.g.
//   org.apache.kafka.connect.transforms.InsertField$Value, InsertField$Value
//   org.apache.kafka.connect.transforms.predicates.HasHeaderKey, HasHeaderKey
// Built-ins are listed in transform_registry.cpp; plugin classes are added at
// start-up (engine/plugins/loader.cpp) through add_transformation / add_predicate,
// by their full class names and aliases, and then resolve like the built-ins.
//
// Threading: additions happen at start-up only, before any connector starts;
// entries never move once added.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transforms/transformation.hpp"

namespace weir::transforms {

inline constexpr std::string_view transforms_package = "org.apache.kafka.connect.transforms.";
inline constexpr std::string_view predicates_package =
    "org.apache.kafka.connect.transforms.predicates.";

struct TransformationInfo {
  /// A built-in's short class name, without a variant suffix (`InsertField`); a
  /// plugin's full class name.
  std::string name;
  Variants variants;
  std::function<const ConfigDef&()> config_def;
  std::function<std::unique_ptr<Transformation>(const Config& config, Side side)> make;
  /// A plugin's: the other names it resolves by, its version and its file. Empty for
  /// built-ins (their version is weir's).
  std::vector<std::string> aliases = {};
  std::string version = {};
  std::string path = {};

  bool plugin() const noexcept { return !path.empty(); }
};

struct PredicateInfo {
  std::string name;
  std::function<const ConfigDef&()> config_def;
  std::function<std::unique_ptr<Predicate>(const Config& config)> make;
  std::vector<std::string> aliases = {};
  std::string version = {};
  std::string path = {};

  bool plugin() const noexcept { return !path.empty(); }
};

template <TransformationComponent T>
TransformationInfo transformation_info() {
  return {std::string(T::name), T::variants, &T::config_def,
          [](const Config& c, Side s) -> std::unique_ptr<Transformation> {
            return std::make_unique<T>(c, s);
          }};
}

template <PredicateComponent T>
PredicateInfo predicate_info() {
  return {std::string(T::name), &T::config_def,
          [](const Config& c) -> std::unique_ptr<Predicate> { return std::make_unique<T>(c); }};
}

/// Every SMT and predicate: the built-ins in documentation order, then the plugins'
/// in load order.
const std::deque<TransformationInfo>& transformations();
const std::deque<PredicateInfo>& predicates();

/// Adds a plugin's class. Throws std::invalid_argument naming a class name or alias
/// that already resolves (to a built-in or another plugin's class).
void add_transformation(TransformationInfo info);
void add_predicate(PredicateInfo info);

struct ResolvedTransformation {
  const TransformationInfo* info;
  Side side;
  std::string class_name; ///< the full Kafka class name, e.g. ...InsertField$Value
};

/// Resolves a full class name or alias; std::nullopt when unknown (including a bare
/// `InsertField`, which in Kafka is abstract: the `$Key`/`$Value` suffix is needed).
std::optional<ResolvedTransformation> find_transformation(std::string_view class_name);

struct ResolvedPredicate {
  const PredicateInfo* info;
  std::string class_name;
};
std::optional<ResolvedPredicate> find_predicate(std::string_view class_name);

} // namespace weir::transforms
