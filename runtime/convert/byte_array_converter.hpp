// org.apache.kafka.connect.converters.ByteArrayConverter: bytes pass through with
// Schema.OPTIONAL_BYTES_SCHEMA; only bytes values (or null) can be serialized.
#pragma once

#include "runtime/convert/converter.hpp"

namespace weir::runtime::convert {

class ByteArrayConverter final : public Converter {
public:
  static constexpr std::string_view class_name_v = "org.apache.kafka.connect.converters.ByteArrayConverter";
  static const ConfigDef& config_def();

  ByteArrayConverter() = default;
  ByteArrayConverter(const Config& config, bool is_key);

  std::string_view class_name() const noexcept override { return class_name_v; }
  void to_connect(const std::optional<std::string_view>& bytes, data::DecodedBatch& batch,
                  data::Value& out, const data::Schema*& schema) override;
  bool from_connect(const data::Value& v, const data::Schema* schema, std::string& out) override;
};

} // namespace weir::runtime::convert
