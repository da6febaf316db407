#include "transforms/timestamp_converter.hpp"

#include <limits>
#include <stdexcept>

#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

namespace {

constexpr std::string_view purpose = "converting timestamp formats";
constexpr int64_t ms_per_day = 86400000;
constexpr std::string_view connect_exception = "org.apache.kafka.connect.errors.ConnectException";
constexpr std::string_view missing_format =
    "TimestampConverter requires format option to be specified when using string timestamps";

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

// TimeUnit's conversions to a finer unit saturate instead of overflowing.
int64_t scale_up(int64_t v, int64_t factor) {
  int64_t out;
  if (__builtin_mul_overflow(v, factor, &out))
    return v < 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
  return out;
}

std::string class_of(const Value& v) { return "class " + std::string(java_class_name(v.kind())); }

const SchemaPtr& date_schema(bool optional) {
  static const SchemaPtr required = SchemaBuilder::date().build();
  static const SchemaPtr opt = SchemaBuilder::date().optional().build();
  return optional ? opt : required;
}

const SchemaPtr& time_schema(bool optional) {
  static const SchemaPtr required = SchemaBuilder::time().build();
  static const SchemaPtr opt = SchemaBuilder::time().optional().build();
  return optional ? opt : required;
}

} // namespace

const ConfigDef& TimestampConverter::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("field", ConfigType::String, "", Importance::High,
             "The field containing the timestamp, or empty if the entire value is a timestamp")
        .define("target.type", ConfigType::String, Importance::High,
                "The desired timestamp representation: string, unix, Date, Time, or Timestamp",
                validators::one_of({"string", "unix", "Date", "Time", "Timestamp"}))
        .define("format", ConfigType::String, "", Importance::Medium,
                "A SimpleDateFormat-compatible format for the timestamp. Used to generate the output when "
                "type=string or used to parse the input if the input is a string.")
        .define("unix.precision", ConfigType::String, "milliseconds", Importance::Low,
                "The desired Unix precision for the timestamp: seconds, milliseconds, microseconds, or "
                "nanoseconds. Used to generate the output when type=unix or used to parse the input if the input "
                "is a Long.Note: This SMT will cause precision loss during conversions from, and to, values with "
                "sub-millisecond components.",
                validators::one_of({"nanoseconds", "microseconds", "milliseconds", "seconds"}))
        .define("replace.null.with.default", ConfigType::Boolean, "true", Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. "
                "When set to true, the default value is used, otherwise null is used.");
    define_field_syntax_version(d);
    return d;
  }();
  return def;
}

TimestampConverter::TimestampConverter(const Config& c, Side side)
    : side_(side), replace_null_with_default_(c.get_bool("replace.null.with.default")) {
  const std::string& type = c.get_string("target.type");
  target_ = type == "string" ? Format::String
            : type == "unix" ? Format::Unix
            : type == "Date" ? Format::Date
            : type == "Time" ? Format::Time
                             : Format::Timestamp;
  const std::string& precision = c.get_string("unix.precision");
  precision_ = precision == "seconds"        ? Precision::Seconds
               : precision == "microseconds" ? Precision::Microseconds
               : precision == "nanoseconds"  ? Precision::Nanoseconds
                                             : Precision::Milliseconds;
  if (const std::string& field = c.get_string("field"); !field.empty())
    field_.emplace(field, field_syntax_version(c), "field");
  const std::string& pattern = c.get_string("format");
  if (target_ == Format::String && pattern.empty())
    throw ConfigError("format", std::string(missing_format));
  if (!pattern.empty()) {
    try {
      format_.emplace(pattern);
    } catch (const std::invalid_argument& e) {
      config_error("format", pattern,
                   "TimestampConverter requires a SimpleDateFormat-compatible pattern for string timestamps: "
                       + pattern + " (" + e.what() + ")");
    }
  }
}

TimestampConverter::Format TimestampConverter::format_of(const Schema& schema) {
  if (const auto& n = schema.name()) {
    if (*n == logical_names::timestamp)
      return Format::Timestamp;
    if (*n == logical_names::date)
      return Format::Date;
    if (*n == logical_names::time)
      return Format::Time;
  }
  if (schema.type() == Type::String)
    return Format::String;
  if (schema.type() == Type::Int64)
    return Format::Unix;
  throw DataError("Schema " + schema.describe() + " does not correspond to a known timestamp type format",
                  std::string(connect_exception));
}

TimestampConverter::Format TimestampConverter::infer(const Value& v) {
  if (v.is_java_date()) // Java's inferTimestampType: a java.util.Date is a Timestamp
    return Format::Timestamp;
  if (v.kind() == Kind::Int64)
    return Format::Unix;
  if (v.kind() == Kind::String)
    return Format::String;
  throw DataError("TimestampConverter does not support " + class_of(v) + " objects as timestamps");
}

int64_t TimestampConverter::to_millis(Format from, const Value& v) {
  switch (from) {
    case Format::String: {
      if (v.kind() != Kind::String)
        throw DataError("Expected string timestamp to be a String, but found " + class_of(v));
      if (!format_)
        throw DataError(std::string(missing_format));
      auto millis = format_->parse(v.as_string());
      if (!millis)
        throw DataError("Could not parse timestamp: value (" + std::string(v.as_string()) + ") does not match pattern ("
                        + format_->pattern() + ")");
      return *millis;
    }
    case Format::Unix: {
      if (v.kind() != Kind::Int64)
        throw DataError("Expected Unix timestamp to be a Long, but found " + class_of(v));
      int64_t t = v.as_int();
      switch (precision_) {
        case Precision::Seconds: return scale_up(t, 1000);
        case Precision::Microseconds: return t / 1000;
        case Precision::Nanoseconds: return t / 1000000;
        case Precision::Milliseconds: return t;
      }
      return t;
    }
    case Format::Date:
      if (!v.is_integer())
        throw DataError("Expected Date to be a java.util.Date, but found " + class_of(v));
      return v.as_int() * ms_per_day;
    case Format::Time:
      if (!v.is_integer())
        throw DataError("Expected Time to be a java.util.Date, but found " + class_of(v));
      return v.as_int();
    case Format::Timestamp:
      if (!v.is_integer())
        throw DataError("Expected Timestamp to be a java.util.Date, but found " + class_of(v));
      return v.as_int();
  }
  return 0;
}

Value TimestampConverter::from_millis(int64_t millis, bool schemaless, Arena& arena) {
  switch (target_) {
    case Format::String:
      scratch_.clear();
      format_->format(millis, scratch_);
      return Value::string(arena.copy(scratch_));
    case Format::Unix:
      switch (precision_) {
        case Precision::Seconds: return Value::int64(millis / 1000);
        case Precision::Microseconds: return Value::int64(scale_up(millis, 1000));
        case Precision::Nanoseconds: return Value::int64(scale_up(millis, 1000000));
        case Precision::Milliseconds: return Value::int64(millis);
      }
      return Value::int64(millis);
    case Format::Date: {
      int64_t days = floor_div(millis, ms_per_day);
      return schemaless ? Value::java_date(days * ms_per_day) : Value::int32(static_cast<int32_t>(days));
    }
    case Format::Time: {
      int64_t of_day = millis - floor_div(millis, ms_per_day) * ms_per_day;
      return schemaless ? Value::java_date(of_day) : Value::int32(static_cast<int32_t>(of_day));
    }
    case Format::Timestamp: return schemaless ? Value::java_date(millis) : Value::int64(millis);
  }
  return {};
}

Value TimestampConverter::convert(const Value& v, const Schema* schema, Arena& arena) {
  // Kafka reads the source type off the schema before it looks at the value.
  std::optional<Format> from;
  if (schema)
    from = format_of(*schema);
  if (v.is_null())
    return v;
  if (!from)
    from = infer(v);
  return from_millis(to_millis(*from, v), schema == nullptr, arena);
}

const SchemaPtr& TimestampConverter::target_schema(bool optional) const {
  switch (target_) {
    case Format::String: return optional ? schemas::optional_string() : schemas::string();
    case Format::Unix: return optional ? schemas::optional_int64() : schemas::int64();
    case Format::Date: return date_schema(optional);
    case Format::Time: return time_schema(optional);
    case Format::Timestamp: break;
  }
  return optional ? schemas::optional_timestamp() : schemas::timestamp();
}

SchemaPtr TimestampConverter::derive(const Schema& input, size_t depth) const {
  if (input.type() != Type::Struct)
    throw DataError("Cannot list fields on non-struct type");
  const auto& steps = field_->steps();
  bool last = depth + 1 == steps.size();
  auto b = SchemaBuilder::copy_basics(input, Type::Struct);
  for (const auto& f : input.fields()) {
    if (f.name != steps[depth])
      b.field(f.name, f.schema);
    else if (last)
      b.field(f.name, target_schema(f.schema->optional()));
    else if (f.schema->type() == Type::Struct)
      b.field(f.name, derive(*f.schema, depth + 1));
    else
      b.field(f.name, f.schema);
  }
  if (input.optional())
    b.optional();
  return b.build();
}

Value TimestampConverter::convert_struct(const Value& in, const Schema& out_schema, size_t depth, Arena& arena) {
  const auto& steps = field_->steps();
  bool last = depth + 1 == steps.size();
  Value out = Value::structure(arena, out_schema);
  for (const auto& f : in.schema()->fields()) {
    Value x = field_value(in, f, arena, replace_null_with_default_);
    if (f.name == steps[depth]) {
      if (last)
        x = convert(x, f.schema.get(), arena);
      else if (f.schema->type() == Type::Struct && !x.is_null())
        x = convert_struct(x, *out_schema.fields()[f.index].schema, depth + 1, arena);
    }
    out.fields()[f.index] = x;
  }
  return out;
}

bool TimestampConverter::apply(const RecordView& r) {
  Value& v = r.get(side_);
  const Schema* schema = r.schema(side_);
  Arena& arena = r.arena();
  if (!field_) {
    if (schema == nullptr)
      v = convert(v, nullptr, arena);
    else
      r.set(side_, convert(v, schema, arena), target_schema(schema->optional()));
    return true;
  }
  if (schema == nullptr) {
    if (v.is_null())
      return true;
    Value* map = &require_map(v, purpose);
    const auto& steps = field_->steps();
    for (size_t i = 0; i + 1 < steps.size(); ++i) { // V2: walk to the parent map
      Value* next = map->find(steps[i]);
      if (next == nullptr || next->is_null())
        return true;
      map = &require_map(*next, purpose);
    }
    if (Value* x = map->find(steps.back()))
      *x = convert(*x, nullptr, arena);
    else
      map->append(arena, Value::string(r.copy(steps.back())), Value()); // HashMap.put(field, null)
    return true;
  }
  if (!v.is_null())
    require_struct(v, purpose);
  const SchemaPtr& out_schema = cache_.get(*schema, [this](const Schema& s) { return derive(s, 0); });
  if (v.is_null()) {
    r.set(side_, Value(), out_schema);
    return true;
  }
  Value out = convert_struct(v, *out_schema, 0, arena);
  r.set(side_, out, out_schema);
  return true;
}

} // namespace weir::transforms
