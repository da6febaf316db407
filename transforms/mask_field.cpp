#include "transforms/mask_field.hpp"

#include <algorithm>

#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

namespace {
constexpr std::string_view purpose = "mask fields";
} // namespace

const ConfigDef& MaskField::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("fields", ConfigType::List, Importance::High, "Names of fields to mask.", validators::non_empty())
        .define("replacement", ConfigType::String, "", Importance::Low,
                "Custom value replacement, that will be applied to all 'fields' values (numeric or non-empty "
                "string values only).")
        .define("replace.null.with.default", ConfigType::Boolean, "true", Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. "
                "When set to true, the default value is used, otherwise null is used.");
    return d;
  }();
  return def;
}

MaskField::MaskField(const Config& c, Side side)
    : side_(side), fields_(NameTable(c.get_list("fields"))), replacement_(optional_string(c, "replacement")),
      replace_null_with_default_(c.get_bool("replace.null.with.default")), hints_(fields_.size(), 0) {
  if (fields_.empty())
    config_error("fields", "", "Empty list");
  if (replacement_ && replacement_->empty())
    config_error("replacement", "", "String must be non-empty");
  if (replacement_) {
    try {
      replacement_number_ = decimal_parse_natural(*replacement_);
    } catch (const DataError&) {
      // Not a number: fine for string fields, a record error for numeric ones.
    }
  }
}

bool MaskField::is_masked(std::string_view field) const noexcept { return fields_.contains(field); }

Value MaskField::masked(const Value& v, const Schema* schema, const RecordView& r) const {
  if (v.is_null())
    return v;
  bool decimal = schema && schema->logical() == Logical::Decimal;
  bool temporal = schema && (schema->logical() == Logical::Date || schema->logical() == Logical::Time
                             || schema->logical() == Logical::Timestamp);
  auto type_name = [&]() -> std::string {
    if (decimal)
      return "class java.math.BigDecimal";
    if (temporal)
      return "class java.util.Date";
    return "class " + std::string(java_class_name(v.kind()));
  };
  if (!replacement_) {
    if (decimal)
      return Value::bytes(r.copy(decimal_bytes(0)));
    switch (v.kind()) {
      case Kind::Boolean: return Value::boolean(false);
      case Kind::Int8:
      case Kind::Int16:
      case Kind::Int32:
      case Kind::Int64: return Value::integer(v.kind(), 0);
      case Kind::Float32: return Value::float32(0);
      case Kind::Float64: return Value::float64(0);
      case Kind::String: return Value::plain_string({});
      case Kind::Array: return Value::array(r.arena(), 0);
      case Kind::Map: return Value::map(r.arena(), 0);
      default: throw DataError("Cannot mask value of type: " + type_name());
    }
  }
  if (temporal || v.kind() == Kind::Boolean || v.kind() == Kind::Array || v.kind() == Kind::Map
      || v.kind() == Kind::Struct || (v.kind() == Kind::Bytes && !decimal))
    throw DataError("Cannot mask value of type " + type_name() + " with custom replacement.");
  if (v.kind() == Kind::String)
    return Value::string(r.copy(*replacement_));
  if (!replacement_number_) {
    if (decimal)
      throw DataError("Unable to convert " + *replacement_ + " (class java.lang.String) to number");
    throw DataError("Unable to convert " + *replacement_ + " (class java.lang.String) to a number");
  }
  const auto& n = *replacement_number_;
  if (decimal)
    return Value::bytes(r.copy(decimal_bytes(decimal_rescale(n.unscaled, n.scale, schema->decimal_scale()))));
  switch (v.kind()) {
    case Kind::Int8: return Value::int8(static_cast<int8_t>(decimal_to_long(n.unscaled, n.scale)));
    case Kind::Int16: return Value::int16(static_cast<int16_t>(decimal_to_long(n.unscaled, n.scale)));
    case Kind::Int32: return Value::int32(static_cast<int32_t>(decimal_to_long(n.unscaled, n.scale)));
    case Kind::Int64: return Value::int64(decimal_to_long(n.unscaled, n.scale));
    case Kind::Float32: return Value::float32(static_cast<float>(decimal_to_double(n.unscaled, n.scale)));
    default: return Value::float64(decimal_to_double(n.unscaled, n.scale));
  }
}

// Inlined into apply_from(), the loop over a batch.
[[gnu::always_inline]] inline bool MaskField::apply(const RecordView& r) {
  Value& v = r.get(side_);
  Arena& arena = r.arena();
  if (r.schema(side_) == nullptr) {
    Value& map = require_map(v, purpose);
    for (size_t i = 0; i < fields_.size(); ++i) {
      const std::string& f = fields_[i];
      if (Value* x = find_hinted(map, f, hints_[i]))
        // A string without a replacement becomes "" (the common case, inline).
        *x = !replacement_ && x->kind() == Kind::String ? Value::plain_string({}) : masked(*x, nullptr, r);
      else
        map.append(arena, Value::string(r.copy(f)), Value()); // Kafka puts masked(null) = null
    }
    return true;
  }
  // Same schema, masked values: mutate the struct in place.
  Value& st = require_struct(v, purpose);
  for (const auto& f : st.schema()->fields()) {
    Value& x = st.fields()[f.index];
    Value orig = field_value(st, f, arena, replace_null_with_default_);
    x = is_masked(f.name) ? masked(orig, f.schema.get(), r) : orig;
  }
  return true;
}

void MaskField::apply_from(DecodedBatch& batch, uint32_t& i) {
  apply_each(batch, i, [this](const RecordView& r) { return apply(r); });
}

} // namespace weir::transforms
