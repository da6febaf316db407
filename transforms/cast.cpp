#include "transforms/cast.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "runtime/convert/json_text.hpp"
#include "runtime/convert/text.hpp"
#include "runtime/data/base64.hpp"
#include "runtime/data/decimal.hpp"
#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

namespace {

constexpr std::string_view purpose = "cast types";
constexpr std::string_view output_types = "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING]";
constexpr std::string_view input_types = "[INT8, INT16, INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES]";

std::optional<Type> type_by_enum_name(std::string_view name) {
  std::string upper;
  for (char c : runtime::convert::trim(name))
    upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (int i = 0; i <= static_cast<int>(Type::Struct); ++i)
    if (to_string(static_cast<Type>(i)) == upper)
      return static_cast<Type>(i);
  return std::nullopt;
}

bool is_output_type(Type t) { return t <= Type::String; }
bool is_input_type(Type t) { return t <= Type::Bytes; }

Type type_of_kind(Kind k) {
  switch (k) {
    case Kind::Boolean: return Type::Boolean;
    case Kind::Int8: return Type::Int8;
    case Kind::Int16: return Type::Int16;
    case Kind::Int32: return Type::Int32;
    case Kind::Int64: return Type::Int64;
    case Kind::Float32: return Type::Float32;
    case Kind::Float64: return Type::Float64;
    case Kind::String: return Type::String;
    case Kind::Bytes: return Type::Bytes;
    case Kind::Array: return Type::Array;
    case Kind::Map: return Type::Map;
    default: return Type::Struct;
  }
}

[[noreturn]] void out_of_range(std::string_view text) {
  throw DataError("Value (" + std::string(text) + ") was out of range for requested data type");
}

// Integer.parseInt and friends: optional sign, ASCII digits, range-checked.
int64_t parse_java_integer(std::string_view s, int64_t min, int64_t max) {
  std::string_view digits = s;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+'))
    digits.remove_prefix(1);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
    out_of_range(s);
  errno = 0;
  std::string text(s);
  long long v = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v < min || v > max)
    out_of_range(s);
  return v;
}

// Plain decimals of at most 15 significant digits ("-12.50"): the digits are exact in
// a double and so is 10^k for k <= 22, so one division is correctly rounded, the
// same result as Double.parseDouble (Clinger's fast path). False: use the full parser.
[[gnu::always_inline]] inline bool parse_simple_decimal(std::string_view s, double& out) noexcept {
  static constexpr double powers[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const char* p = s.data();
  const char* end = p + s.size();
  bool negative = p < end && *p == '-';
  p += negative ? 1 : 0;
  uint64_t mantissa = 0;
  auto digits = [&] { // the run of digits at p, into mantissa; returns its length
    const char* start = p;
    for (; p < end && static_cast<unsigned>(*p - '0') <= 9; ++p)
      mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    return static_cast<int>(p - start);
  };
  int whole = digits(), fraction = 0;
  if (p < end && *p == '.') {
    ++p;
    fraction = digits();
  }
  if (p != end || whole + fraction == 0 || whole + fraction > 15)
    return false;
  double d = static_cast<double>(mantissa);
  if (fraction > 0)
    d /= powers[fraction];
  out = negative ? -d : d;
  return true;
}

double parse_java_double_slow(std::string_view s);

// Double.parseDouble: plain decimals inline, everything else out of line.
inline double parse_java_double(std::string_view s) {
  if (double d; parse_simple_decimal(s, d)) [[likely]]
    return d;
  return parse_java_double_slow(s);
}

// Double.parseDouble: trimmed; NaN, Infinity, decimal or hex floats, optional f/d suffix.
[[gnu::noinline]] double parse_java_double_slow(std::string_view s) {
  std::string_view t = runtime::convert::trim(s);
  std::string_view body = t;
  bool negative = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "NaN")
    return std::numeric_limits<double>::quiet_NaN();
  if (body == "Infinity")
    return negative ? -HUGE_VAL : HUGE_VAL;
  if (!t.empty() && (t.back() == 'f' || t.back() == 'F' || t.back() == 'd' || t.back() == 'D'))
    t.remove_suffix(1);
  if (t.empty())
    out_of_range(s);
  for (char c : t) // no C's nan/inf spellings
    if (c == 'n' || c == 'N' || c == 'i' || c == 'I')
      out_of_range(s);
  // Java also accepts a leading '+', ".5" and "5."; from_chars (exact, no locale,
  // no allocation) takes the rest of the grammar.
  bool neg = false;
  if (t[0] == '+' || t[0] == '-') {
    neg = t[0] == '-';
    t.remove_prefix(1);
  }
  if (t.empty() || t[0] == '+' || t[0] == '-')
    out_of_range(s);
  double d = 0;
  auto r = std::from_chars(t.data(), t.data() + t.size(), d);
  if (r.ec == std::errc::result_out_of_range) {
    std::string text(t);
    d = std::strtod(text.c_str(), nullptr); // overflow to infinity, underflow to 0, as Java
  } else if (r.ec != std::errc() || r.ptr != t.data() + t.size()) {
    if (t.starts_with("0x") || t.starts_with("0X")) {
      std::string text(t); // Java's hex float syntax
      char* e = nullptr;
      d = std::strtod(text.c_str(), &e);
      if (e != text.c_str() + text.size())
        out_of_range(s);
    } else {
      out_of_range(s);
    }
  }
  return neg ? -d : d;
}

// Java's narrowing of a double to long / int (saturating, NaN -> 0).
int64_t java_d2l(double d) {
  if (std::isnan(d))
    return 0;
  if (d >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::max();
  if (d <= -9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}
int32_t java_d2i(double d) {
  if (std::isnan(d))
    return 0;
  if (d >= 2147483647.0)
    return std::numeric_limits<int32_t>::max();
  if (d <= -2147483648.0)
    return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(d);
}

// Values.dateFormatFor + SimpleDateFormat in UTC.
void append_iso_date(int64_t millis, std::string& out) {
  constexpr int64_t day = 86400000;
  auto two = [&](int64_t v) {
    out += static_cast<char>('0' + v / 10);
    out += static_cast<char>('0' + v % 10);
  };
  int64_t days = millis >= 0 ? millis / day : -((-millis + day - 1) / day);
  int64_t ms = millis - days * day;
  auto time = [&] {
    two(ms / 3600000);
    out += ':';
    two(ms / 60000 % 60);
    out += ':';
    two(ms / 1000 % 60);
    out += '.';
    out += static_cast<char>('0' + ms % 1000 / 100);
    two(ms % 100);
    out += 'Z';
  };
  if (millis < day) {
    time();
    return;
  }
  // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2)
    ++y;
  std::string year = std::to_string(y);
  if (year.size() < 4)
    out.append(4 - year.size(), '0');
  out += year;
  out += '-';
  two(m);
  out += '-';
  two(d);
  if (millis % day == 0)
    return;
  out += 'T';
  time();
}

} // namespace

const ConfigDef& Cast::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("spec", ConfigType::List, Importance::High,
             "List of fields and the type to cast them to of the form field1:type,field2:type to cast fields of "
             "Maps or Structs. A single type to cast the entire value. Valid types are int8, int16, int32, "
             "int64, float32, float64, boolean, and string. Note that binary fields can only be cast to string.")
        .define("replace.null.with.default", ConfigType::Boolean, "true", Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. "
                "When set to true, the default value is used, otherwise null is used.");
    return d;
  }();
  return def;
}

Cast::Cast(const Config& c, Side side)
    : side_(side), replace_null_with_default_(c.get_bool("replace.null.with.default")) {
  const auto& spec = c.get_list("spec");
  std::string shown = c.originals().count("spec") ? c.originals().at("spec") : "";
  if (spec.empty())
    config_error("spec", shown, "Must specify at least one field to cast.");
  auto parse_type = [&](std::string_view text) {
    auto t = type_by_enum_name(text);
    if (!t)
      config_error("spec", shown, "Invalid type found in casting spec: " + std::string(runtime::convert::trim(text)));
    if (!is_output_type(*t))
      config_error("spec", shown, "Cast transformation does not support casting to " + std::string(to_string(*t))
                                      + "; supported types are " + std::string(output_types));
    return *t;
  };
  for (const auto& mapping : spec) {
    auto parts = java_split(mapping, ':');
    if (parts.size() > 2 || parts.empty())
      config_error("spec", shown, "Invalid rename mapping: " + mapping);
    if (parts.size() == 1) {
      whole_ = true;
      whole_type_ = parse_type(parts[0]);
    } else {
      casts_.emplace_back(std::string(runtime::convert::trim(parts[0])), parse_type(parts[1]));
    }
  }
  if (whole_ && spec.size() > 1)
    config_error("spec", shown,
                 "Cast transformations that specify a type to cast the entire value to may only specify a single "
                 "cast in their spec");
  hints_.assign(casts_.size(), 0);
}

const Type* Cast::cast_for(std::string_view field) const noexcept {
  for (const auto& [name, type] : casts_)
    if (name == field)
      return &type;
  return nullptr;
}

namespace {

// The cold parts of Cast::cast, out of line: their strings and exceptions gave the
// hot numeric casts a large stack frame to set up on every call.

[[noreturn, gnu::noinline]] void unsupported_input(Type inferred) {
  throw DataError("Cast transformation does not support casting from " + std::string(to_string(inferred))
                  + "; supported types are " + std::string(input_types));
}

[[noreturn, gnu::noinline]] void unexpected_type(Kind kind) {
  throw DataError("Unexpected type in Cast transformation: class " + std::string(java_class_name(kind)));
}

// A number, read as long / int / double (Number.longValue() ...), cast to `target`
// (any target but STRING, which cast_to_string handles).
[[gnu::always_inline]] inline Value number_to(const Value& v, int64_t as_long, int32_t as_int, double as_double,
                                              Type target) {
  switch (target) {
    case Type::Int8: return Value::int8(static_cast<int8_t>(as_int));
    case Type::Int16: return Value::int16(static_cast<int16_t>(as_int));
    case Type::Int32: return Value::int32(as_int);
    case Type::Int64: return Value::int64(as_long);
    case Type::Float32: return Value::float32(v.kind() == Kind::Float32 ? v.as_float32() : static_cast<float>(as_double));
    case Type::Float64: return Value::float64(as_double);
    case Type::Boolean: return Value::boolean(as_long != 0);
    default: unexpected_type(v.kind());
  }
}

// Cast to STRING: Date/Time/Timestamp as ISO-8601, Decimal as BigDecimal.toString(),
// bytes as base64, anything else as Java's toString().
[[gnu::noinline]] Value cast_to_string(const Schema* schema, const Value& v, Logical logical, bool decimal,
                                       bool temporal, Arena& arena, std::string& scratch) {
  scratch.clear();
  if (temporal) {
    append_iso_date(logical == Logical::Date ? v.as_int() * 86400000 : v.as_int(), scratch);
  } else if (decimal) {
    scratch = decimal_to_string(decimal_unscaled(v.as_string()), schema->decimal_scale());
  } else if (v.kind() == Kind::Bytes) {
    base64_encode(v.as_string(), scratch);
  } else if (v.kind() == Kind::String) {
    return v;
  } else {
    runtime::convert::append_java_to_string(v, schema, scratch);
  }
  return Value::string(arena.copy(scratch));
}

} // namespace

Value Cast::cast(const Schema* schema, const Value& v, Type target, Arena& arena, std::string& scratch) {
  if (v.is_null())
    return v;
  Type inferred = schema ? schema->type() : type_of_kind(v.kind());
  if (!is_input_type(inferred)) [[unlikely]]
    unsupported_input(inferred);
  Logical logical = schema ? schema->logical() : Logical::None;
  bool decimal = logical == Logical::Decimal && v.kind() == Kind::Bytes;
  bool temporal = (logical == Logical::Date || logical == Logical::Time || logical == Logical::Timestamp)
                  && v.is_integer();
  if (target == Type::String)
    return cast_to_string(schema, v, logical, decimal, temporal, arena, scratch);

  // Everything below is Number.xxxValue(), Boolean -> 0/1, or String parsing.
  auto unexpected = [&]() -> Value { unexpected_type(v.kind()); };
  if (v.kind() == Kind::String) {
    auto s = v.as_string();
    switch (target) {
      case Type::Int8: return Value::int8(static_cast<int8_t>(parse_java_integer(s, INT8_MIN, INT8_MAX)));
      case Type::Int16: return Value::int16(static_cast<int16_t>(parse_java_integer(s, INT16_MIN, INT16_MAX)));
      case Type::Int32: return Value::int32(static_cast<int32_t>(parse_java_integer(s, INT32_MIN, INT32_MAX)));
      case Type::Int64: return Value::int64(parse_java_integer(s, INT64_MIN, INT64_MAX));
      case Type::Float32: return Value::float32(static_cast<float>(parse_java_double(s)));
      case Type::Float64: return Value::float64(parse_java_double(s));
      case Type::Boolean: {
        bool t = s.size() == 4 && std::tolower(static_cast<unsigned char>(s[0])) == 't'
                 && std::tolower(static_cast<unsigned char>(s[1])) == 'r'
                 && std::tolower(static_cast<unsigned char>(s[2])) == 'u'
                 && std::tolower(static_cast<unsigned char>(s[3])) == 'e';
        return Value::boolean(t);
      }
      default: return unexpected();
    }
  }
  if (v.kind() == Kind::Boolean) {
    int b = v.as_bool() ? 1 : 0;
    switch (target) {
      case Type::Float32: return Value::float32(static_cast<float>(b));
      case Type::Float64: return Value::float64(b);
      case Type::Boolean: return v;
      default: return Value::integer(kind_of(target), b);
    }
  }
  // Numbers: integers, floats, decimals (BigDecimal) and temporal values (their int).
  int64_t as_long;
  double as_double;
  int32_t as_int;
  if (decimal) {
    int128 u = decimal_unscaled(v.as_string());
    as_long = decimal_to_long(u, schema->decimal_scale());
    as_int = static_cast<int32_t>(as_long);
    as_double = decimal_to_double(u, schema->decimal_scale());
  } else if (v.is_integer()) {
    as_long = v.as_int();
    as_int = static_cast<int32_t>(as_long);
    as_double = static_cast<double>(as_long);
  } else if (v.is_floating()) {
    as_double = v.as_double();
    as_long = java_d2l(as_double);
    as_int = java_d2i(as_double);
  } else {
    return unexpected();
  }
  return number_to(v, as_long, as_int, as_double, target);
}

SchemaPtr Cast::derive(const Schema& input) {
  Arena tmp(256);
  std::optional<SchemaBuilder> b;
  if (whole_) {
    b.emplace(SchemaBuilder::copy_basics(input, whole_type_));
  } else {
    b.emplace(SchemaBuilder::copy_basics(input, Type::Struct));
    for (const auto& f : input.fields()) {
      const Type* t = cast_for(f.name);
      if (!t) {
        b->field(f.name, f.schema);
        continue;
      }
      SchemaBuilder fb(*t);
      if (f.schema->optional())
        fb.optional();
      if (const Value* d = f.schema->default_value())
        fb.default_value(cast(f.schema.get(), *d, *t, tmp, scratch_));
      b->field(f.name, fb.build());
    }
  }
  if (input.optional())
    b->optional();
  if (const Value* d = input.default_value())
    b->default_value(cast(&input, *d, b->type(), tmp, scratch_));
  return b->build();
}

// cast() of a schemaless value, with the common casts inline: integers to numbers
// or BOOLEAN, strings to FLOAT64 (what cast() does for them, without its call and
// its checks for schemas and logical types).
[[gnu::always_inline]] inline Value Cast::cast_schemaless(const Value& v, Type target, Arena& arena) {
  if (v.is_integer() && target != Type::String) [[likely]]
    return number_to(v, v.as_int(), static_cast<int32_t>(v.as_int()), static_cast<double>(v.as_int()), target);
  if (v.kind() == Kind::String && target == Type::Float64)
    return Value::float64(parse_java_double(v.as_string()));
  return cast(nullptr, v, target, arena, scratch_);
}

// Inlined into apply_from(), the loop over a batch.
[[gnu::always_inline]] inline bool Cast::apply(const RecordView& r) {
  Value& v = r.get(side_);
  if (v.is_null())
    return true;
  Arena& arena = r.arena();
  const Schema* schema = r.schema(side_);
  if (schema == nullptr) {
    if (whole_) {
      v = cast_schemaless(v, whole_type_, arena);
      return true;
    }
    Value& map = require_map(v, purpose);
    for (size_t i = 0; i < casts_.size(); ++i) {
      const auto& [field, type] = casts_[i];
      if (Value* x = find_hinted(map, field, hints_[i]))
        *x = cast_schemaless(*x, type, arena);
      else
        map.append(arena, Value::string(r.copy(field)), Value());
    }
    return true;
  }
  const SchemaPtr& out_schema = cache_.get(*schema, [this](const Schema& s) { return derive(s); });
  if (whole_) {
    r.set(side_, cast(schema, v, whole_type_, arena, scratch_), out_schema);
    return true;
  }
  Value& in = require_struct(v, purpose);
  const Schema& in_schema = *in.schema();
  Value out = Value::structure(arena, *out_schema);
  for (const auto& f : in_schema.fields()) {
    Value orig = field_value(in, f, arena, replace_null_with_default_);
    const Type* t = cast_for(f.name);
    out.fields()[f.index] = t ? cast(f.schema.get(), orig, *t, arena, scratch_) : orig;
  }
  r.set(side_, out, out_schema);
  return true;
}

void Cast::apply_from(DecodedBatch& batch, uint32_t& i) {
  apply_each(batch, i, [this](const RecordView& r) { return apply(r); });
}

} // namespace weir::transforms
