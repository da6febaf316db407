#include "weir/data/schema.hpp"

#include <array>

#include "weir/data/error.hpp"

namespace weir::data {

std::string_view to_string(Type type) noexcept {
  switch (type) {
    case Type::Int8: return "INT8";
    case Type::Int16: return "INT16";
    case Type::Int32: return "INT32";
    case Type::Int64: return "INT64";
    case Type::Float32: return "FLOAT32";
    case Type::Float64: return "FLOAT64";
    case Type::Boolean: return "BOOLEAN";
    case Type::String: return "STRING";
    case Type::Bytes: return "BYTES";
    case Type::Array: return "ARRAY";
    case Type::Map: return "MAP";
    case Type::Struct: return "STRUCT";
  }
  return "?";
}

std::string_view json_name(Type type) noexcept {
  switch (type) {
    case Type::Int8: return "int8";
    case Type::Int16: return "int16";
    case Type::Int32: return "int32";
    case Type::Int64: return "int64";
    case Type::Float32: return "float";
    case Type::Float64: return "double";
    case Type::Boolean: return "boolean";
    case Type::String: return "string";
    case Type::Bytes: return "bytes";
    case Type::Array: return "array";
    case Type::Map: return "map";
    case Type::Struct: return "struct";
  }
  return "?";
}

std::optional<Type> type_from_json_name(std::string_view name) noexcept {
  static constexpr std::array<Type, 12> all{Type::Int8, Type::Int16, Type::Int32, Type::Int64,
                                            Type::Float32, Type::Float64, Type::Boolean,
                                            Type::String, Type::Bytes, Type::Array, Type::Map,
                                            Type::Struct};
  for (auto t : all)
    if (json_name(t) == name)
      return t;
  return std::nullopt;
}

Kind kind_of(Type type) noexcept {
  switch (type) {
    case Type::Int8: return Kind::Int8;
    case Type::Int16: return Kind::Int16;
    case Type::Int32: return Kind::Int32;
    case Type::Int64: return Kind::Int64;
    case Type::Float32: return Kind::Float32;
    case Type::Float64: return Kind::Float64;
    case Type::Boolean: return Kind::Boolean;
    case Type::String: return Kind::String;
    case Type::Bytes: return Kind::Bytes;
    case Type::Array: return Kind::Array;
    case Type::Map: return Kind::Map;
    case Type::Struct: return Kind::Struct;
  }
  return Kind::Null;
}

const std::string* Schema::parameter(std::string_view key) const noexcept {
  if (!parameters_)
    return nullptr;
  for (const auto& [k, v] : *parameters_)
    if (k == key)
      return &v;
  return nullptr;
}

const Field* Schema::field(std::string_view name) const noexcept {
  for (const auto& f : fields_)
    if (f.name == name)
      return &f;
  return nullptr;
}

namespace {

bool same(const SchemaPtr& a, const SchemaPtr& b) noexcept {
  if (a == b)
    return true;
  if (!a || !b)
    return false;
  return a->equals(*b);
}

} // namespace

bool Schema::equals(const Schema& o) const noexcept {
  if (this == &o)
    return true;
  if (type_ != o.type_ || optional_ != o.optional_ || name_ != o.name_ || version_ != o.version_
      || doc_ != o.doc_ || parameters_ != o.parameters_ || has_default_ != o.has_default_
      || fields_.size() != o.fields_.size())
    return false;
  if (has_default_ && !(default_ == o.default_))
    return false;
  for (size_t i = 0; i < fields_.size(); ++i)
    if (fields_[i].name != o.fields_[i].name || !same(fields_[i].schema, o.fields_[i].schema))
      return false;
  return same(key_schema_, o.key_schema_) && same(value_schema_, o.value_schema_);
}

std::string Schema::describe() const {
  std::string s = "Schema{";
  if (name_) {
    s += *name_;
    s += ':';
  }
  s += to_string(type_);
  s += '}';
  return s;
}

SchemaBuilder::SchemaBuilder(Type type) : type_(type) {}

SchemaBuilder SchemaBuilder::array(SchemaPtr value_schema) {
  SchemaBuilder b(Type::Array);
  b.value_schema_ = std::move(value_schema);
  return b;
}

SchemaBuilder SchemaBuilder::map(SchemaPtr key_schema, SchemaPtr value_schema) {
  SchemaBuilder b(Type::Map);
  b.key_schema_ = std::move(key_schema);
  b.value_schema_ = std::move(value_schema);
  return b;
}

SchemaBuilder SchemaBuilder::copy_basics(const Schema& source, Type type) {
  SchemaBuilder b(type);
  if (type == Type::Array || type == Type::Map) {
    b.key_schema_ = source.key_schema();
    b.value_schema_ = source.value_schema();
  }
  b.name_ = source.name();
  b.version_ = source.version();
  b.doc_ = source.doc();
  b.parameters_ = source.parameters();
  return b;
}

SchemaBuilder SchemaBuilder::decimal(int32_t scale) {
  SchemaBuilder b(Type::Bytes);
  b.name(std::string(logical_names::decimal)).version(1);
  b.parameter(std::string(logical_names::decimal_scale), std::to_string(scale));
  return b;
}

SchemaBuilder SchemaBuilder::date() {
  SchemaBuilder b(Type::Int32);
  b.name(std::string(logical_names::date)).version(1);
  return b;
}

SchemaBuilder SchemaBuilder::time() {
  SchemaBuilder b(Type::Int32);
  b.name(std::string(logical_names::time)).version(1);
  return b;
}

SchemaBuilder SchemaBuilder::timestamp() {
  SchemaBuilder b(Type::Int64);
  b.name(std::string(logical_names::timestamp)).version(1);
  return b;
}

SchemaBuilder& SchemaBuilder::parameter(std::string key, std::string value) {
  if (!parameters_)
    parameters_.emplace();
  for (auto& [k, v] : *parameters_)
    if (k == key) {
      v = std::move(value);
      return *this;
    }
  parameters_->emplace_back(std::move(key), std::move(value));
  return *this;
}

SchemaBuilder& SchemaBuilder::default_value(const Value& v) {
  if (!default_arena_)
    default_arena_ = std::make_shared<Arena>(256);
  default_ = v.deep_copy(*default_arena_);
  return *this;
}

SchemaBuilder& SchemaBuilder::field(std::string name, SchemaPtr schema) {
  if (type_ != Type::Struct)
    throw DataError("Cannot create fields on type " + std::string(to_string(type_)));
  if (name.empty())
    throw DataError("fieldName cannot be null.");
  if (has_field(name))
    throw DataError("Cannot create field because of field name duplication " + name);
  if (!schema)
    throw DataError("fieldSchema for field " + name + " cannot be null.");
  auto index = static_cast<uint32_t>(fields_.size());
  fields_.push_back({std::move(name), index, std::move(schema)});
  return *this;
}

bool SchemaBuilder::has_field(std::string_view name) const noexcept {
  for (const auto& f : fields_)
    if (f.name == name)
      return true;
  return false;
}

SchemaPtr SchemaBuilder::build() {
  std::shared_ptr<Schema> s(new Schema());
  s->type_ = type_;
  s->optional_ = optional_;
  s->name_ = name_;
  s->version_ = version_;
  s->doc_ = doc_;
  s->parameters_ = parameters_;
  s->fields_ = fields_;
  s->key_schema_ = key_schema_;
  s->value_schema_ = value_schema_;
  if (name_) {
    if (*name_ == logical_names::decimal && type_ == Type::Bytes) {
      s->logical_ = Logical::Decimal;
      if (const auto* scale = s->parameter(logical_names::decimal_scale)) {
        try {
          s->scale_ = std::stoi(*scale);
        } catch (const std::exception&) {
          throw DataError("Invalid Decimal scale parameter: " + *scale);
        }
      } else {
        throw DataError("Invalid Decimal schema: scale parameter not found.");
      }
    } else if (*name_ == logical_names::date && type_ == Type::Int32) {
      s->logical_ = Logical::Date;
    } else if (*name_ == logical_names::time && type_ == Type::Int32) {
      s->logical_ = Logical::Time;
    } else if (*name_ == logical_names::timestamp && type_ == Type::Int64) {
      s->logical_ = Logical::Timestamp;
    }
  }
  if (default_) {
    // The default lives in the schema's own arena; validate it like Kafka's builder.
    s->default_arena_ = std::make_unique<Arena>(256);
    s->default_ = default_->deep_copy(*s->default_arena_);
    s->has_default_ = !s->default_.is_null();
    if (s->has_default_) {
      try {
        validate_value(*s, s->default_, "default value");
      } catch (const DataError& e) {
        throw DataError(std::string("Invalid default value: ") + e.what());
      }
    }
  }
  return s;
}

namespace schemas {

const SchemaPtr& of(Type type, bool optional) {
  static const auto table = [] {
    std::array<std::array<SchemaPtr, 2>, 9> t;
    for (int i = 0; i < 9; ++i)
      for (int o = 0; o < 2; ++o)
        t[i][o] = SchemaBuilder(static_cast<Type>(i)).optional(o == 1).build();
    return t;
  }();
  static const SchemaPtr none;
  auto i = static_cast<size_t>(type);
  return i < 9 ? table[i][optional ? 1 : 0] : none;
}

const SchemaPtr& string() { return of(Type::String); }
const SchemaPtr& optional_string() { return of(Type::String, true); }
const SchemaPtr& int32() { return of(Type::Int32); }
const SchemaPtr& optional_int32() { return of(Type::Int32, true); }
const SchemaPtr& int64() { return of(Type::Int64); }
const SchemaPtr& optional_int64() { return of(Type::Int64, true); }
const SchemaPtr& timestamp() {
  static const SchemaPtr s = SchemaBuilder::timestamp().build();
  return s;
}
const SchemaPtr& optional_timestamp() {
  static const SchemaPtr s = SchemaBuilder::timestamp().optional().build();
  return s;
}

} // namespace schemas

Value field_value(const Value& structure, const Field& field, Arena& arena,
                  bool replace_null_with_default) {
  const Value& v = structure.fields()[field.index];
  if (v.is_null() && replace_null_with_default) {
    if (const Value* d = field.schema->default_value())
      return d->deep_copy(arena);
  }
  return v;
}

void validate_value(const Schema& schema, const Value& v, std::string_view what) {
  if (v.is_null()) {
    if (schema.optional() || schema.default_value())
      return;
    throw DataError("Invalid value: null used for required field: \"" + std::string(what)
                    + "\", schema type: " + std::string(to_string(schema.type())));
  }
  if (v.kind() != kind_of(schema.type()))
    throw DataError("Invalid Java object for schema \"" + schema.describe() + "\" with type "
                    + std::string(to_string(schema.type())) + ": " + std::string(to_string(v.kind()))
                    + " for field: \"" + std::string(what) + "\"");
  switch (schema.type()) {
    case Type::Struct:
      if (v.schema() != &schema && !v.schema()->equals(schema))
        throw DataError("Struct schemas do not match.");
      break;
    case Type::Array:
      for (const auto& x : v.items())
        validate_value(*schema.value_schema(), x, "entry");
      break;
    case Type::Map:
      for (const auto& e : v.entries()) {
        validate_value(*schema.key_schema(), e.key, "key");
        validate_value(*schema.value_schema(), e.value, "value");
      }
      break;
    default:
      break;
  }
}

} // namespace weir::data

namespace weir::data {

DataError::~DataError() = default;
RetriableError::~RetriableError() = default;

} // namespace weir::data
