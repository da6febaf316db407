// The one place built-in SMTs and predicates are registered: a name -> factory table
// resolving Kafka Connect's full class names and short aliases, e.g.
//   org.apache.kafka.connect.transforms.InsertField$Value, InsertField$Value
//   org.apache.kafka.connect.transforms.predicates.HasHeaderKey, HasHeaderKey
#pragma once

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
  std::string_view name; ///< short class name, without a variant suffix
  Variants variants;
  const ConfigDef& (*config_def)();
  std::unique_ptr<Transformation> (*make)(const Config& config, Side side);
};

struct PredicateInfo {
  std::string_view name;
  const ConfigDef& (*config_def)();
  std::unique_ptr<Predicate> (*make)(const Config& config);
};

template <TransformationComponent T>
TransformationInfo transformation_info() {
  return {T::name, T::variants, &T::config_def,
          [](const Config& c, Side s) -> std::unique_ptr<Transformation> {
            return std::make_unique<T>(c, s);
          }};
}

template <PredicateComponent T>
PredicateInfo predicate_info() {
  return {T::name, &T::config_def,
          [](const Config& c) -> std::unique_ptr<Predicate> { return std::make_unique<T>(c); }};
}

/// Every built-in SMT and predicate, in documentation order.
const std::vector<TransformationInfo>& transformations();
const std::vector<PredicateInfo>& predicates();

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
