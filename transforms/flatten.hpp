// Flatten$Key / Flatten$Value: flattens nested structs (schema'd) or maps
// (schemaless) into one level, joining field names with `delimiter` (default ".").
//
// Kafka semantics kept: nulls and tombstones pass through untouched (with their
// schema); arrays are kept as they are, including structs inside them; a map field
// in a schema'd record is a record error; a flattened field is optional when it or
// any ancestor is optional, and takes its own default or else the one its
// ancestor's default struct holds; the flattened struct copies the top-level
// name/version/doc/parameters but not its optionality; names that collide are a
// record error with schemas (SchemaBuilder) and overwrite without (LinkedHashMap).
// The flattened schema is cached per input schema.
#pragma once

#include <string>

#include "runtime/data/schema.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class Flatten final : public Transformation {
public:
  static constexpr std::string_view name = "Flatten";
  static constexpr Variants variants = Variants::KeyValue;
  static const ConfigDef& config_def();

  Flatten(const Config& config, Side side);
  bool apply(const RecordView& record) override;

private:
  void flatten_map(const runtime::data::Value& map, runtime::data::Value& out, const RecordView& r);
  void derive_fields(const runtime::data::Schema& schema, runtime::data::SchemaBuilder& out, bool optional,
                     const runtime::data::Value* default_from_parent);
  void fill(const runtime::data::Value& structure, const runtime::data::Schema& schema, runtime::data::Value& out,
            uint32_t& next, runtime::data::Arena& arena) const;

  Side side_;
  std::string delimiter_;
  std::string name_; ///< the flattened name being built (scratch)
  runtime::data::SchemaCache cache_;
};

} // namespace weir::transforms
