// org.apache.kafka.connect.storage.StringConverter: bytes <-> a string with
// Schema.OPTIONAL_STRING_SCHEMA. Serializing a non-string value writes its Java
// toString() form, as Kafka's does. Only UTF-8 is supported (`converter.encoding`).
#pragma once

#include "runtime/convert/converter.hpp"

namespace weir::runtime::convert {

class StringConverter final : public Converter {
public:
  static constexpr std::string_view class_name_v = "org.apache.kafka.connect.storage.StringConverter";
  static const ConfigDef& config_def();

  StringConverter() : schema_(data::schemas::optional_string()) {}
  StringConverter(const Config& config, bool is_key);

  std::string_view class_name() const noexcept override { return class_name_v; }
  /// Views the raw bytes without copying when they lie in the batch's raw arena.
  void to_connect(const std::optional<std::string_view>& bytes, data::DecodedBatch& batch,
                  data::Value& out, const data::Schema*& schema) override;
  bool from_connect(const data::Value& v, const data::Schema* schema, std::string& out) override;
  /// A null (e.g. every key of a keyless topic) without touching the scratch buffer.
  std::optional<std::string_view> serialize(const data::Value& v, const data::Schema* schema) override {
    if (v.is_null())
      return std::nullopt;
    return Converter::serialize(v, schema);
  }

private:
  data::SchemaPtr schema_; ///< Schema.OPTIONAL_STRING_SCHEMA, looked up once
};

} // namespace weir::runtime::convert
