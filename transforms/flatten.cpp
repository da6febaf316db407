#include "transforms/flatten.hpp"

#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

namespace {

constexpr std::string_view purpose = "flattening";

// Leaves a struct schema flattens to (for skipping a null nested struct).
uint32_t leaf_count(const Schema& s) {
  uint32_t n = 0;
  for (const auto& f : s.fields())
    n += f.schema->type() == Type::Struct ? leaf_count(*f.schema) : 1;
  return n;
}

} // namespace

const ConfigDef& Flatten::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("delimiter", ConfigType::String, ".", Importance::Medium,
             "Delimiter to insert between field names from the input record when generating field names for the "
             "output record");
    return d;
  }();
  return def;
}

Flatten::Flatten(const Config& c, Side side) : side_(side), delimiter_(c.get_string("delimiter")) {}

void Flatten::flatten_map(const Value& map, Value& out, const RecordView& r) {
  const size_t prefix_len = name_.size();
  for (const auto& e : map.entries()) {
    if (e.key.kind() != Kind::String)
      throw DataError("Flatten transformation does not support map keys of type "
                      + std::string(java_class_name(e.key.kind())) + " for record without schemas.");
    std::string_view key = e.key.as_string();
    if (prefix_len != 0) {
      name_ += delimiter_;
      name_ += key;
    }
    switch (e.value.kind()) {
      case Kind::Map:
        if (prefix_len == 0)
          name_.assign(key);
        flatten_map(e.value, out, r);
        break;
      case Kind::Struct:
        throw DataError("Flatten transformation does not support class org.apache.kafka.connect.data.Struct for "
                        "record without schemas (for field " + (prefix_len == 0 ? std::string(key) : name_) + ").");
      default:
        // A top-level key keeps its bytes (already in the batch); a joined one is copied.
        out.put(r.arena(), prefix_len == 0 ? key : r.copy(name_), e.value);
        break;
    }
    name_.resize(prefix_len);
  }
}

void Flatten::derive_fields(const Schema& schema, SchemaBuilder& out, bool optional, const Value* default_from_parent) {
  const size_t prefix_len = name_.size();
  for (const auto& f : schema.fields()) {
    if (prefix_len != 0)
      name_ += delimiter_;
    name_ += f.name;
    bool field_optional = optional || f.schema->optional();
    const Value* field_default = f.schema->default_value();
    if (!field_default && default_from_parent && !default_from_parent->fields()[f.index].is_null())
      field_default = &default_from_parent->fields()[f.index];
    switch (f.schema->type()) {
      case Type::Struct: derive_fields(*f.schema, out, field_optional, field_default); break;
      case Type::Map:
        throw DataError("Flatten transformation does not support MAP for record with schemas (for field " + name_
                        + ").");
      default: {
        auto b = SchemaBuilder::copy_basics(*f.schema, f.schema->type());
        if (field_optional)
          b.optional();
        if (field_default)
          b.default_value(*field_default);
        out.field(name_, b.build());
        break;
      }
    }
    name_.resize(prefix_len);
  }
}

void Flatten::fill(const Value& structure, const Schema& schema, Value& out, uint32_t& next, Arena& arena) const {
  for (const auto& f : schema.fields()) {
    // Struct.get: a null field with a default reads as the default.
    Value x = field_value(structure, f, arena, true);
    if (f.schema->type() != Type::Struct)
      out.fields()[next++] = x;
    else if (x.is_null())
      next += leaf_count(*f.schema);
    else
      fill(x, *f.schema, out, next, arena);
  }
}

bool Flatten::apply(const RecordView& r) {
  Value& v = r.get(side_);
  if (v.is_null())
    return true;
  Arena& arena = r.arena();
  const Schema* schema = r.schema(side_);
  if (schema == nullptr) {
    require_map(v, purpose);
    Value out = Value::map(arena, v.size());
    name_.clear();
    flatten_map(v, out, r);
    v = out;
    return true;
  }
  require_struct(v, purpose);
  const SchemaPtr& out_schema = cache_.get(*schema, [this](const Schema& s) {
    auto b = SchemaBuilder::copy_basics(s, Type::Struct);
    name_.clear();
    derive_fields(s, b, s.optional(), s.default_value());
    return b.build();
  });
  Value out = Value::structure(arena, *out_schema);
  uint32_t next = 0;
  fill(v, *v.schema(), out, next, arena);
  r.set(side_, out, out_schema);
  return true;
}

} // namespace weir::transforms
