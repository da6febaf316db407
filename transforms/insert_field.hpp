// InsertField$Key / InsertField$Value: adds record metadata (topic, partition,
// offset, timestamp) and a static string as fields. A field spec ending in `!` is
// required in the derived schema, `?` (the default) optional.
//
// Kafka semantics kept: null keys/values pass through untouched; schemaless values
// must be maps, schema'd ones structs; the derived struct schema copies the input's
// name/version/doc/parameters (not its optionality) and is cached per input schema;
// offset.field needs a sink record (one with a Kafka offset).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "runtime/data/schema.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class InsertField final : public Transformation {
public:
  static constexpr std::string_view name = "InsertField";
  static constexpr Variants variants = Variants::KeyValue;
  static const ConfigDef& config_def();

  InsertField(const Config& config, Side side);
  bool apply(const RecordView& record) override;
  void apply_from(runtime::data::DecodedBatch& batch, uint32_t& i) override;

private:
  struct Spec {
    std::string name;
    bool optional = true;
    runtime::data::Value key; ///< `name` as a map key (set once the Spec has its final address)
  };
  static std::optional<Spec> parse_spec(const std::optional<std::string>& text);
  runtime::data::SchemaPtr derive(const runtime::data::Schema& input) const;
  runtime::data::Value topic_value(std::string_view topic);

  // Records view these strings instead of copying them: each batch they are used in
  // keeps them alive (DecodedBatch::keep_alive), even if this SMT goes away first.
  struct Specs {
    std::optional<Spec> topic, partition, offset, timestamp, static_field;
    std::optional<std::string> static_value;
  };

  Side side_;
  std::shared_ptr<const Specs> specs_;
  bool replace_null_with_default_;
  runtime::data::SchemaCache cache_;
  std::string checked_topic_; ///< the last topic topic_value() saw, and whether it is plain
  bool topic_plain_ = true; // "" (the initial checked_topic_) needs no escaping
};

} // namespace weir::transforms
