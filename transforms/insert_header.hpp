// InsertHeader: appends the header `header` with the value `value.literal` to every
// record (an existing header of that name stays; Kafka's headers are a list).
//
// The literal is read like Kafka's Values.parseString: `null` is a null header,
// `true`/`false` booleans, a number the smallest of int8/int16/int32/int64 that
// holds it (1.0 too), else float32 or float64 (as Kafka, only the text before the
// first , : [ ] { } " counts: "12:30" is the int8 12); ISO-8601 dates, times and
// timestamps are normalised as Kafka writes them back; anything else is a string.
// weir differences: arrays and maps (`[1, 2]`, `{"a":1}`) and numbers beyond
// float64 stay strings as written (Kafka parses them and writes them back
// re-formatted); temporal literals are string headers (Kafka: Date/Time/Timestamp
// headers, which its SimpleHeaderConverter writes as the same text).
#pragma once

#include <string>

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

  /// The header value and schema (nullptr for null) `literal` stands for; string
  /// values view `literal` or `scratch`.
  static std::pair<runtime::data::Value, runtime::data::SchemaPtr> parse_literal(std::string_view literal,
                                                                                 std::string& scratch);

private:
  std::string header_;
  std::string text_; ///< what a string value views
  runtime::data::Value value_;
  runtime::data::SchemaPtr schema_; ///< a shared static schema, or null
};

} // namespace weir::transforms
