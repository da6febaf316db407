// SetSchemaMetadata$Key / SetSchemaMetadata$Value: sets the name (`schema.name`)
// and/or version (`schema.version`) of the key/value schema. At least one is needed.
//
// Kafka semantics kept: a schemaless null passes through; any other schemaless
// record is a record error ("Schema required"); type, optionality, default, doc,
// parameters, fields and key/value schemas are kept; a struct is re-pointed at the
// renamed schema, its null fields taking their defaults unless
// replace.null.with.default=false. Naming a schema after a logical type (e.g.
// org.apache.kafka.connect.data.Timestamp on an int64) makes it that logical type,
// as in Kafka. The renamed schema is cached per input schema.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/data/schema.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class SetSchemaMetadata final : public Transformation {
public:
  static constexpr std::string_view name = "SetSchemaMetadata";
  static constexpr Variants variants = Variants::KeyValue;
  static const ConfigDef& config_def();

  SetSchemaMetadata(const Config& config, Side side);
  bool apply(const RecordView& record) override;

private:
  runtime::data::SchemaPtr derive(const runtime::data::Schema& input) const;

  Side side_;
  std::optional<std::string> schema_name_;
  std::optional<int32_t> schema_version_;
  bool replace_null_with_default_;
  runtime::data::SchemaCache cache_;
};

} // namespace weir::transforms
