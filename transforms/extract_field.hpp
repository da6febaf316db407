// ExtractField$Key / ExtractField$Value: replaces the key/value with one of its
// fields (`field`), or with a nested field when `field.syntax.version=V2`
// (`field=address.city`, backticks around names holding dots).
//
// Kafka semantics kept: nulls pass through; schemaless values must be maps and a
// missing field yields null; schema'd values must be structs, the result takes the
// field's schema, and a field missing from the schema is a record error
// (`Unknown field: x`, IllegalArgumentException) even for a null value; a null
// field with a default yields the default unless replace.null.with.default=false.
#pragma once

#include "transforms/field_path.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class ExtractField final : public Transformation {
public:
  static constexpr std::string_view name = "ExtractField";
  static constexpr Variants variants = Variants::KeyValue;
  static const ConfigDef& config_def();

  ExtractField(const Config& config, Side side);
  bool apply(const RecordView& record) override;

private:
  Side side_;
  FieldPath path_;
  bool replace_null_with_default_;
};

} // namespace weir::transforms
