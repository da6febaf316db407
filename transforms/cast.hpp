// Cast$Key / Cast$Value: casts the whole key/value (`spec=int32`) or top-level
// fields (`spec=a:int64,b:string`) to int8, int16, int32, int64, float32, float64,
// boolean or string.
//
// Kafka semantics kept: inputs may be integers, floats, booleans, strings and bytes
// (bytes only to string, base64); Date/Time/Timestamp cast to numbers as their
// underlying int, to strings as ISO-8601 text (UTC); Decimal casts like BigDecimal
// (to string with toString(), to integers truncated); numeric narrowing wraps like
// Java's casts; unparsable strings are record errors ("Value (x) was out of range
// for requested data type"); nulls stay null; a schemaless field named in the spec
// but missing is added as null. The derived schema is cached per input schema.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "runtime/data/schema.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class Cast final : public Transformation {
public:
  static constexpr std::string_view name = "Cast";
  static constexpr Variants variants = Variants::KeyValue;
  static const ConfigDef& config_def();

  Cast(const Config& config, Side side);
  bool apply(const RecordView& record) override;
  void apply_from(runtime::data::DecodedBatch& batch, uint32_t& i) override;

  /// Casts one value (Cast.castValueToType); `schema` may be nullptr (schemaless).
  /// Strings produced are built in `scratch` and copied into `arena`.
  static runtime::data::Value cast(const runtime::data::Schema* schema, const runtime::data::Value& v,
                                   runtime::data::Type target, runtime::data::Arena& arena,
                                   std::string& scratch);

private:
  runtime::data::SchemaPtr derive(const runtime::data::Schema& input);
  const runtime::data::Type* cast_for(std::string_view field) const noexcept;
  runtime::data::Value cast_schemaless(const runtime::data::Value& v, runtime::data::Type target,
                                       runtime::data::Arena& arena);

  Side side_;
  std::vector<std::pair<std::string, runtime::data::Type>> casts_;
  bool whole_ = false;
  runtime::data::Type whole_type_ = runtime::data::Type::String;
  bool replace_null_with_default_;
  runtime::data::SchemaCache cache_;
  std::string scratch_;
  std::vector<uint32_t> hints_; ///< per cast field: its index in the last schemaless record (find_hinted)
};

} // namespace weir::transforms
