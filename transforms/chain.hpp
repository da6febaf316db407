// A connector's SMT chain, built from its config the way Kafka Connect reads it:
//
//   transforms=mask,route
//   transforms.mask.type=org.apache.kafka.connect.transforms.MaskField$Value
//   transforms.mask.fields=ssn           <- the SMT's own keys, strictly checked
//   transforms.mask.predicate=isOrders   <- optional
//   transforms.mask.negate=true          <- optional, needs a predicate
//   predicates=isOrders
//   predicates.isOrders.type=TopicNameMatches
//   predicates.isOrders.pattern=orders.*
//
// Every configuration problem throws weir::ConfigError naming the exact key (e.g.
// `transforms.mask.fields`). Keys under `transforms.<alias>.` for an alias that is
// not listed in `transforms` are ignored, as Kafka Connect ignores them.
//
// Each stage can run in its own stage actor: take stage(i) and call its apply() on
// the batches that actor receives. A stage object is used by one actor at a time.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/decoded_batch.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

/// One SMT with its optional predicate: what one transform stage actor runs.
class TransformStage {
public:
  TransformStage(std::string alias, std::string class_name, std::unique_ptr<Transformation> smt,
                 std::unique_ptr<Predicate> predicate, bool negate);

  const std::string& alias() const noexcept { return alias_; }
  const std::string& class_name() const noexcept { return class_name_; }

  /// Applies the SMT to every Live record whose predicate matches (or every Live
  /// record without a predicate). A dropped record becomes Dropped; a throwing one
  /// becomes Failed with a RecordError (stage TRANSFORMATION, this SMT's class) in
  /// `errors`. Never throws for a bad record.
  void apply(runtime::data::DecodedBatch& batch, runtime::data::RecordErrors& errors);
  void apply(runtime::data::DecodedBatch& batch) { apply(batch, batch.errors()); }

private:
  std::string alias_;
  std::string class_name_;
  std::unique_ptr<Transformation> smt_;
  std::unique_ptr<Predicate> predicate_;
  bool negate_;
};

class Chain {
public:
  Chain() = default;

  /// Builds the chain from a whole connector config (other keys are not read).
  /// Throws weir::ConfigError naming the offending key.
  static Chain from_config(const std::map<std::string, std::string>& connector_config);

  size_t size() const noexcept { return stages_.size(); }
  bool empty() const noexcept { return stages_.empty(); }
  /// The alias (`mask`) and class name of stage i.
  const std::string& name(size_t i) const { return stages_.at(i)->alias(); }
  const std::string& class_name(size_t i) const { return stages_.at(i)->class_name(); }
  /// Stage i, to hand to its stage actor.
  const std::shared_ptr<TransformStage>& stage(size_t i) const { return stages_.at(i); }

  void apply(size_t i, runtime::data::DecodedBatch& batch, runtime::data::RecordErrors& errors) {
    stages_.at(i)->apply(batch, errors);
  }
  void apply(size_t i, runtime::data::DecodedBatch& batch) { apply(i, batch, batch.errors()); }
  /// Every stage in order (single-actor use, tests, `weir transform`).
  void apply_all(runtime::data::DecodedBatch& batch);

private:
  std::vector<std::shared_ptr<TransformStage>> stages_;
};

/// Declares `transforms` and `predicates` (Kafka's ConnectorConfig keys) in a
/// connector's ConfigDef; parse it with chain_passthrough() so the per-alias keys
/// pass through to Chain::from_config.
void define_chain_keys(ConfigDef& def);
ParseOptions chain_passthrough();

} // namespace weir::transforms
