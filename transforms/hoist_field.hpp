// HoistField$Key / HoistField$Value: wraps the whole key/value in a struct (schema'd)
// or a map (schemaless) with one field named `field`.
//
// Kafka semantics kept: nulls are wrapped too (no pass-through): a schemaless null
// becomes {"field": null}; a schema'd null is wrapped when its schema is optional
// and is a record error when it is required. The wrapper schema is a required,
// unnamed struct, cached per input schema.
#pragma once

#include <string>

#include "runtime/data/schema.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class HoistField final : public Transformation {
public:
  static constexpr std::string_view name = "HoistField";
  static constexpr Variants variants = Variants::KeyValue;
  static const ConfigDef& config_def();

  HoistField(const Config& config, Side side);
  bool apply(const RecordView& record) override;

private:
  Side side_;
  std::string field_;
  runtime::data::SchemaCache cache_;
};

} // namespace weir::transforms
