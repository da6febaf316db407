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
// line in transforms/transform_registry.cpp and transforms/meson.build.
#pragma once

#include <concepts>
#include <memory>
#include <string_view>

#include "runtime/data/decoded_batch.hpp"
#include "weir/config.hpp"

namespace weir::transforms {

using runtime::data::RecordView;
using runtime::data::Side;

/// Runs `apply(RecordView)` over the Live records of `batch` from index `i` on,
/// marking Dropped those it returns false for. An exception leaves `i` at the record
/// that threw.
template <class Apply>
inline void apply_each(runtime::data::DecodedBatch& batch, uint32_t& i, Apply&& apply) {
  for (; i < batch.size(); ++i) {
    auto& rec = batch[i];
    if (rec.live() && !apply(RecordView(batch, i)))
      rec.state = runtime::data::RecordState::Dropped;
  }
}

class Transformation {
public:
  virtual ~Transformation() = default;

  /// Applies the SMT to one live record, in place. Returns false to drop it.
  /// Throws runtime::data::DataError for a record it cannot handle.
  virtual bool apply(const RecordView& record) = 0;

  /// apply() on every Live record of `batch` from index `i` on, as apply_each()
  /// does; when apply() throws, `i` is the record that threw, and the caller marks
  /// it and calls again from the next one. An SMT may override this with
  /// apply_each() over its own apply(), which the compiler can then inline: one
  /// virtual call per batch instead of one per record.
  virtual void apply_from(runtime::data::DecodedBatch& batch, uint32_t& i) {
    apply_each(batch, i, [this](const RecordView& r) { return apply(r); });
  }
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
