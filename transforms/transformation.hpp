// The SMT and predicate contracts (Kafka's Transformation<R> and Predicate<R>), and
// the concepts every built-in component must satisfy to be registered.
//
// Differences from Kafka's contract, on purpose:
// - The record is mutated in place (parse once, serialize once); Kafka returns a new
//   record. "Return null to drop" becomes "return false".
// - A component instance is used by one stage actor at a time, so it may keep
//   mutable caches (derived schemas, scratch buffers) without locks.
// - A bad record throws data::DataError; the chain turns it into a per-record error
//   (stage TRANSFORMATION) and goes on with the batch.
//
// Adding an SMT: see docs/transforms.md ("Adding an SMT"): one file trio plus one
// line in transforms/registry.cpp and transforms/meson.build.
#pragma once

#include <concepts>
#include <memory>
#include <string_view>

#include "runtime/data/decoded_batch.hpp"
#include "weir/config.hpp"

namespace weir::transforms {

using runtime::data::RecordView;
using runtime::data::Side;

class Transformation {
public:
  virtual ~Transformation() = default;

  /// Applies the SMT to one live record, in place. Returns false to drop it.
  /// Throws runtime::data::DataError for a record it cannot handle.
  virtual bool apply(const RecordView& record) = 0;
};

class Predicate {
public:
  virtual ~Predicate() = default;

  /// Whether the record matches. Throws runtime::data::DataError on bad data.
  virtual bool test(const RecordView& record) = 0;
};

/// Whether Kafka Connect has `$Key` / `$Value` variants of an SMT.
enum class Variants { None, KeyValue };

/// A built-in SMT: a Transformation with a short name (`InsertField`), its variants,
/// its declared config and a constructor from a parsed Config and the side it works
/// on (Side::Value for SMTs without variants). The constructor throws ConfigError
/// for checks a ConfigDef cannot express, naming the key without any prefix.
template <class T>
concept TransformationComponent =
    std::derived_from<T, Transformation> && std::constructible_from<T, const Config&, Side>
    && requires {
         { T::name } -> std::convertible_to<std::string_view>;
         { T::variants } -> std::convertible_to<Variants>;
         { T::config_def() } -> std::same_as<const ConfigDef&>;
       };

/// A built-in predicate: like an SMT, without variants.
template <class T>
concept PredicateComponent =
    std::derived_from<T, Predicate> && std::constructible_from<T, const Config&> && requires {
      { T::name } -> std::convertible_to<std::string_view>;
      { T::config_def() } -> std::same_as<const ConfigDef&>;
    };

} // namespace weir::transforms
