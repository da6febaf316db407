#include "transforms/extract_field.hpp"

#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

namespace {
constexpr std::string_view purpose = "field extraction";
} // namespace

const ConfigDef& ExtractField::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("field", ConfigType::String, Importance::Medium, "Field name to extract.")
        .define("replace.null.with.default", ConfigType::Boolean, "true", Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. "
                "When set to true, the default value is used, otherwise null is used.");
    define_field_syntax_version(d);
    return d;
  }();
  return def;
}

ExtractField::ExtractField(const Config& c, Side side)
    : side_(side), path_(c.get_string("field"), field_syntax_version(c), "field"),
      replace_null_with_default_(c.get_bool("replace.null.with.default")) {}

bool ExtractField::apply(const RecordView& r) {
  Value& v = r.get(side_);
  const Schema* schema = r.schema(side_);
  if (schema == nullptr) {
    if (v.is_null())
      return true;
    require_map(v, purpose);
    r.set(side_, path_.value_from_map(v), static_cast<const Schema*>(nullptr));
    return true;
  }
  if (!v.is_null())
    require_struct(v, purpose);
  const Field* field = path_.field_from(*schema);
  if (field == nullptr)
    throw DataError("Unknown field: " + path_.text(), "java.lang.IllegalArgumentException");
  Value out = v.is_null() ? Value() : path_.value_from_struct(v, r.arena(), replace_null_with_default_);
  // The field's schema belongs to the record's schema, which the batch already holds.
  r.set(side_, out, field->schema.get());
  return true;
}

} // namespace weir::transforms
