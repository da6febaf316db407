#include "transforms/hoist_field.hpp"

namespace weir::transforms {

using namespace runtime::data;

const ConfigDef& HoistField::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("field", ConfigType::String, Importance::Medium,
             "Field name for the single field that will be created in the resulting Struct or Map.");
    return d;
  }();
  return def;
}

HoistField::HoistField(const Config& c, Side side) : side_(side), field_(c.get_string("field")) {}

bool HoistField::apply(const RecordView& r) {
  Value v = r.get(side_);
  const Schema* schema = r.schema(side_);
  Arena& arena = r.arena();
  if (schema == nullptr) {
    Value map = Value::map(arena, 1);
    map.append(arena, Value::string(r.copy(field_)), v);
    r.set(side_, map, static_cast<const Schema*>(nullptr));
    return true;
  }
  const SchemaPtr& out_schema = cache_.get(*schema, [this](const Schema& s) {
    return SchemaBuilder::struct_().field(field_, s.shared_from_this()).build();
  });
  if (v.is_null() && !schema->optional()) // Struct.put validates the value
    throw DataError("Invalid value: null used for required field: \"" + field_ + "\", schema type: "
                    + std::string(to_string(schema->type())));
  Value out = Value::structure(arena, *out_schema);
  out.fields()[0] = v;
  r.set(side_, out, out_schema);
  return true;
}

} // namespace weir::transforms
