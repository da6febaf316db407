// TimestampConverter$Key / TimestampConverter$Value: converts a timestamp (the whole
// key/value, or the field `field`) between `target.type`s string (with `format`, a
// java.text.SimpleDateFormat pattern, UTC), unix (epoch number in `unix.precision`),
// Date, Time and Timestamp (Connect's logical types).
//
// Kafka semantics kept: the source type comes from the schema (Timestamp/Date/Time
// logical names, else STRING -> string, INT64 -> unix, else a ConnectException
// record error), or without a schema from the value (integers -> unix, strings ->
// string, anything else a record error); nulls stay null; conversions go through
// epoch milliseconds, so sub-millisecond precision is lost; a schemaless field
// named but missing is added as null; the converted field's schema is the target's
// (keeping only its optionality) and the derived struct schema is cached.
//
// weir's additions and differences (docs/transforms.md): without a schema, a
// Date/Time/Timestamp result is its epoch milliseconds as an int64 (Kafka holds a
// java.util.Date, which its JsonConverter cannot write); `field.syntax.version=V2`
// (KIP-821) lets `field` name a nested field.
#pragma once

#include <optional>
#include <string>

#include "runtime/data/schema.hpp"
#include "transforms/field_path.hpp"
#include "transforms/simple_date_format.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class TimestampConverter final : public Transformation {
public:
  static constexpr std::string_view name = "TimestampConverter";
  static constexpr Variants variants = Variants::KeyValue;
  static const ConfigDef& config_def();

  TimestampConverter(const Config& config, Side side);
  bool apply(const RecordView& record) override;

  enum class Format : uint8_t { String, Unix, Date, Time, Timestamp };
  enum class Precision : uint8_t { Seconds, Milliseconds, Microseconds, Nanoseconds };

private:
  /// The source format a schema denotes (timestampTypeFromSchema).
  static Format format_of(const runtime::data::Schema& schema);
  /// The source format of a schemaless value (inferTimestampType).
  static Format infer(const runtime::data::Value& v);
  int64_t to_millis(Format from, const runtime::data::Value& v);
  runtime::data::Value from_millis(int64_t millis, bool schemaless, runtime::data::Arena& arena);
  runtime::data::Value convert(const runtime::data::Value& v, const runtime::data::Schema* schema,
                               runtime::data::Arena& arena);
  const runtime::data::SchemaPtr& target_schema(bool optional) const;
  runtime::data::SchemaPtr derive(const runtime::data::Schema& input, size_t depth) const;
  runtime::data::Value convert_struct(const runtime::data::Value& in, const runtime::data::Schema& out_schema,
                                      size_t depth, runtime::data::Arena& arena);

  Side side_;
  Format target_;
  Precision precision_;
  std::optional<FieldPath> field_; ///< std::nullopt: the whole key/value
  std::optional<SimpleDateFormat> format_;
  bool replace_null_with_default_;
  runtime::data::SchemaCache cache_;
  std::string scratch_;
};

} // namespace weir::transforms
