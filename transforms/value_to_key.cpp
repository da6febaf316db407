#include "transforms/value_to_key.hpp"

#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

namespace {
constexpr std::string_view purpose = "copying fields from value to key";
} // namespace

const ConfigDef& ValueToKey::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("fields", ConfigType::List, Importance::High,
             "Field names on the record value to extract as the record key.", validators::non_empty())
        .define("replace.null.with.default", ConfigType::Boolean, "true", Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. "
                "When set to true, the default value is used, otherwise null is used.");
    define_field_syntax_version(d);
    return d;
  }();
  return def;
}

ValueToKey::ValueToKey(const Config& c, Side) : replace_null_with_default_(c.get_bool("replace.null.with.default")) {
  const auto version = field_syntax_version(c);
  for (const auto& f : c.get_list("fields"))
    fields_.emplace_back(f, version, "fields");
  if (fields_.empty())
    config_error("fields", "", "Empty list");
}

bool ValueToKey::apply(const RecordView& r) {
  Arena& arena = r.arena();
  Value& v = r.get(Side::Value);
  if (r.schema(Side::Value) == nullptr) {
    Value& map = require_map(v, purpose);
    Value key = Value::map(arena, static_cast<uint32_t>(fields_.size()));
    for (const auto& f : fields_)
      key.put(arena, r.copy(f.text()), f.value_from_map(map));
    r.set(Side::Key, key, nullptr);
    return true;
  }
  Value& st = require_struct(v, purpose);
  const Schema& value_schema = *st.schema();
  const SchemaPtr& key_schema = cache_.get(value_schema, [this](const Schema& s) {
    auto b = SchemaBuilder::struct_();
    for (const auto& f : fields_) {
      const Field* from = f.field_from(s);
      if (!from)
        throw DataError("Field does not exist: " + f.text());
      b.field(f.text(), from->schema);
    }
    return b.build();
  });
  Value key = Value::structure(arena, *key_schema);
  for (size_t i = 0; i < fields_.size(); ++i)
    key.fields()[i] = fields_[i].value_from_struct(st, arena, replace_null_with_default_);
  r.set(Side::Key, key, key_schema);
  return true;
}

} // namespace weir::transforms
