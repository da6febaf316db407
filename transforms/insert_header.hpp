// InsertHeader: appends the header `header` with the value `value.literal` to every
// record (an existing header of that name stays; Kafka's headers are a list).
//
// The literal is read as Kafka's Values.parseString reads it
// (runtime/convert/header_text.hpp): `null` is a null header, `true`/`false`
// booleans, a number the narrowest integer type that holds it (1.0 too), else float32,
// float64 or Decimal (only the text before the first , : [ ] { } " counts: "12:30" is
// the int8 12); ISO-8601 dates, times and timestamps, arrays and maps are parsed;
// anything else is a string.
#pragma once

#include <string>

#include "runtime/convert/header_text.hpp"
#include "runtime/data/arena.hpp"
#include "runtime/data/schema.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class InsertHeader final : public Transformation {
public:
  static constexpr std::string_view name = "InsertHeader";
  static constexpr Variants variants = Variants::None;
  static const ConfigDef& config_def();

  InsertHeader(const Config& config, Side side);
  bool apply(const RecordView& record) override;

private:
  std::string header_;
  runtime::data::Arena arena_; ///< value_'s strings and containers
  runtime::data::Value value_;
  runtime::data::SchemaPtr schema_; ///< null for a null header
};

} // namespace weir::transforms
