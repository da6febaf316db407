// HeaderFrom$Key / HeaderFrom$Value: copies (`operation=copy`) or moves
// (`operation=move`) the fields named in `fields` to headers named in `headers`
// (pairwise, same length), appending one header per pair.
//
// Kafka semantics kept: the key/value must be a map (schemaless) or a struct
// (schema'd): null values and tombstones are record errors; a schemaless field
// that is missing gives a null header, a schema'd one is a record error; a header
// from a schema'd record carries the field's schema; one field may feed several
// headers and several fields one header name (headers are a list); move drops the
// fields from the value (the derived struct schema is cached per input schema);
// null fields with defaults read as the default unless replace.null.with.default
// is false.
#pragma once

#include <string>
#include <vector>

#include "runtime/data/schema.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class HeaderFrom final : public Transformation {
public:
  static constexpr std::string_view name = "HeaderFrom";
  static constexpr Variants variants = Variants::KeyValue;
  static const ConfigDef& config_def();

  HeaderFrom(const Config& config, Side side);
  bool apply(const RecordView& record) override;

private:
  bool moved(std::string_view field) const noexcept;

  Side side_;
  std::vector<std::string> fields_, headers_;
  bool move_;
  std::string purpose_;
  bool replace_null_with_default_;
  runtime::data::SchemaCache cache_;
};

} // namespace weir::transforms
