// ValueToKey: replaces the key with a new map/struct made of the listed value fields.
//
// Kafka semantics kept: the value must be a map (schemaless) or struct (schema'd),
// so a tombstone is a record error; a schemaless field that is missing becomes a
// null entry; a schema'd field that is missing is a record error ("Field does not
// exist"); the key schema (a struct of the fields' schemas) is cached per value schema.
// With field.syntax.version=V2 (KIP-821, ValueToKey since Kafka 4.4) a field may be a
// nested path (`a.b`, backticks around names with dots): the key's field is named by
// the path as configured and holds the value found there.
#pragma once

#include <string>
#include <vector>

#include "runtime/data/schema.hpp"
#include "transforms/field_path.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class ValueToKey final : public Transformation {
public:
  static constexpr std::string_view name = "ValueToKey";
  static constexpr Variants variants = Variants::None;
  static const ConfigDef& config_def();

  ValueToKey(const Config& config, Side side);
  bool apply(const RecordView& record) override;

private:
  std::vector<FieldPath> fields_;
  bool replace_null_with_default_;
  runtime::data::SchemaCache cache_;
};

} // namespace weir::transforms
