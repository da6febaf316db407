// MaskField$Key / MaskField$Value: replaces the listed fields' values with an
// "empty" value of their type (0, 0.0, false, "", empty array or map, epoch for
// Date/Time/Timestamp, zero for Decimal), or with `replacement` converted to the
// field's type (numbers and strings only).
//
// Kafka semantics kept: the key/value must be a map (schemaless) or struct (schema'd)
// -- unlike most SMTs, a null (tombstone) is a record error; a listed field missing
// from a schemaless map is added with a null value; null fields stay null; bytes,
// structs (and booleans, dates with a replacement) cannot be masked: record error.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/data/decimal.hpp"
#include "runtime/data/schema.hpp"
#include "transforms/support.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class MaskField final : public Transformation {
public:
  static constexpr std::string_view name = "MaskField";
  static constexpr Variants variants = Variants::KeyValue;
  static const ConfigDef& config_def();

  MaskField(const Config& config, Side side);
  bool apply(const RecordView& record) override;
  void apply_from(runtime::data::DecodedBatch& batch, uint32_t& i) override;

private:
  runtime::data::Value masked(const runtime::data::Value& v, const runtime::data::Schema* schema,
                              const RecordView& r) const;
  bool is_masked(std::string_view field) const noexcept;

  Side side_;
  NameTable fields_;
  std::optional<std::string> replacement_;
  // The replacement pre-converted the way Values.convertToX would (BigDecimal parse).
  std::optional<runtime::data::ParsedDecimal> replacement_number_;
  bool replace_null_with_default_;
  std::vector<uint32_t> hints_; ///< per field: its index in the last schemaless record (find_hinted)
};

} // namespace weir::transforms
