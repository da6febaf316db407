// org.apache.kafka.connect.json.JsonConverter: JSON with or without the
// {"schema": ..., "payload": ...} envelope, Kafka Connect's keys and semantics.
//
// Keys: schemas.enable (true), schemas.cache.size (1000), decimal.format (BASE64 |
// NUMERIC), replace.null.with.default (true), converter.type (key | value | header;
// set from the side the converter serves).
//
// Decoding parses each record once with simdjson (one DOM parser reused for every
// record; a second time, from a copy with its numbers indexed, when only their text
// gives Connect's result: json_dom_numbers.hpp) straight into the batch arena. A
// schema is parsed once per distinct schema text and then found by its text, so
// schema'd records cost one hash lookup for their schema. Without schemas, objects
// become maps, integers int64, other numbers float64. Numbers give what Connect reads
// from their exact text (Jackson's BigInteger and BigDecimal nodes, json_number.hpp):
// integers of any width keep their low bits, a Decimal given as a number keeps every
// digit. A key repeated in a JSON object counts once, at its first position with its
// last value, as in Jackson's tree (json_keys.hpp).
#pragma once

#include <memory>

#include "runtime/convert/converter.hpp"

namespace weir::runtime::convert {

class JsonConverter final : public Converter {
public:
  static constexpr std::string_view class_name_v = "org.apache.kafka.connect.json.JsonConverter";

  struct Options {
    bool schemas_enable = true;
    bool decimal_numeric = false; ///< decimal.format=NUMERIC (default BASE64)
    bool replace_null_with_default = true;
    int32_t schemas_cache_size = 1000;
  };

  static const ConfigDef& config_def();

  explicit JsonConverter(Options options);
  JsonConverter(const Config& config, bool is_key);
  ~JsonConverter() override;

  std::string_view class_name() const noexcept override { return class_name_v; }
  void to_connect(const std::optional<std::string_view>& bytes, data::DecodedBatch& batch,
                  data::Value& out, const data::Schema*& schema) override;
  bool from_connect(const data::Value& v, const data::Schema* schema, std::string& out) override;
  std::optional<std::string_view> serialize(const data::Value& v, const data::Schema* schema) override;

  /// A schema parsed from its JSON form (JsonConverter.asConnectSchema), interned:
  /// the same text gives the same object. Throws data::DataError.
  data::SchemaPtr parse_schema(std::string_view schema_json);
  /// The JSON form of a schema (asJsonSchema), cached per schema.
  const std::string& schema_json(const data::Schema& schema);
  /// Appends the payload JSON of `v` (no envelope).
  void write_payload(const data::Value& v, const data::Schema* schema, std::string& out);

  const Options& options() const noexcept { return options_; }

private:
  struct Impl;
  Options options_;
  std::unique_ptr<Impl> impl_;
};

} // namespace weir::runtime::convert
