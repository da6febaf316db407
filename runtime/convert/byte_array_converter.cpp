#include "runtime/convert/byte_array_converter.hpp"

namespace weir::runtime::convert {

using namespace runtime::data;

const ConfigDef& ByteArrayConverter::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("converter.type", ConfigType::String, "value", Importance::Low,
             "How this converter will be used: key, value or header.",
             validators::one_of({"key", "value", "header"}, true));
    return d;
  }();
  return def;
}

ByteArrayConverter::ByteArrayConverter(const Config&, bool) {}

void ByteArrayConverter::to_connect(const std::optional<std::string_view>& bytes, DecodedBatch& batch,
                                    Value& out, const Schema*& schema) {
  schema = batch.retain(schemas::of(Type::Bytes, true));
  out = bytes ? Value::bytes(*bytes) : Value();
}

bool ByteArrayConverter::from_connect(const Value& v, const Schema* schema, std::string& out) {
  if (schema != nullptr && schema->type() != Type::Bytes)
    throw DataError("Invalid schema type for ByteArrayConverter: " + std::string(to_string(schema->type())));
  if (v.is_null())
    return false;
  if (v.kind() != Kind::Bytes)
    throw DataError("ByteArrayConverter is not compatible with objects of type class "
                    + std::string(java_class_name(v.kind())));
  out += v.as_string();
  return true;
}

} // namespace weir::runtime::convert
