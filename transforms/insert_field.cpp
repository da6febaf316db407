#include "transforms/insert_field.hpp"

#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

namespace {
constexpr std::string_view purpose = "field insertion";
constexpr std::string_view optionality =
    " Suffix with <code>!</code> to make this a required field, or <code>?</code> to keep it optional (the default).";
} // namespace

const ConfigDef& InsertField::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    auto text = [](std::string_view doc) { return std::string(doc) + std::string(optionality); };
    d.define("topic.field", ConfigType::String, "", Importance::Medium, text("Field name for Kafka topic."))
        .define("partition.field", ConfigType::String, "", Importance::Medium, text("Field name for Kafka partition."))
        .define("offset.field", ConfigType::String, "", Importance::Medium,
                text("Field name for Kafka offset - only applicable to sink connectors."))
        .define("timestamp.field", ConfigType::String, "", Importance::Medium, text("Field name for record timestamp."))
        .define("static.field", ConfigType::String, "", Importance::Medium, text("Field name for static data field."))
        .define("static.value", ConfigType::String, "", Importance::Medium,
                "Static field value, if field name configured.")
        .define("replace.null.with.default", ConfigType::Boolean, "true", Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. "
                "When set to true, the default value is used, otherwise null is used.");
    return d;
  }();
  return def;
}

std::optional<InsertField::Spec> InsertField::parse_spec(const std::optional<std::string>& text) {
  if (!text)
    return std::nullopt;
  const std::string& s = *text;
  if (!s.empty() && s.back() == '?')
    return Spec{s.substr(0, s.size() - 1), true, {}};
  if (!s.empty() && s.back() == '!')
    return Spec{s.substr(0, s.size() - 1), false, {}};
  return Spec{s, true, {}};
}

InsertField::InsertField(const Config& c, Side side)
    : side_(side), replace_null_with_default_(c.get_bool("replace.null.with.default")) {
  auto s = std::make_shared<Specs>();
  s->topic = parse_spec(optional_string(c, "topic.field"));
  s->partition = parse_spec(optional_string(c, "partition.field"));
  s->offset = parse_spec(optional_string(c, "offset.field"));
  s->timestamp = parse_spec(optional_string(c, "timestamp.field"));
  s->static_field = parse_spec(optional_string(c, "static.field"));
  s->static_value = optional_string(c, "static.value");
  for (auto* spec : {&s->topic, &s->partition, &s->offset, &s->timestamp, &s->static_field})
    if (*spec)
      (*spec)->key = text_value((*spec)->name); // views the name: Specs never moves
  if (!s->topic && !s->partition && !s->offset && !s->timestamp && !s->static_field)
    throw ConfigError("", "No field insertion configured");
  if (s->static_field && !s->static_value)
    config_error("static.value", "null", "No value specified for static field: " + s->static_field->name);
  specs_ = std::move(s);
}

SchemaPtr InsertField::derive(const Schema& input) const {
  const auto& [topic_, partition_, offset_, timestamp_, static_, static_value_] = *specs_;
  auto b = SchemaBuilder::copy_basics(input, Type::Struct);
  for (const auto& f : input.fields())
    b.field(f.name, f.schema);
  if (topic_)
    b.field(topic_->name, topic_->optional ? schemas::optional_string() : schemas::string());
  if (partition_)
    b.field(partition_->name, partition_->optional ? schemas::optional_int32() : schemas::int32());
  if (offset_)
    b.field(offset_->name, offset_->optional ? schemas::optional_int64() : schemas::int64());
  if (timestamp_)
    b.field(timestamp_->name, timestamp_->optional ? schemas::optional_timestamp() : schemas::timestamp());
  if (static_)
    b.field(static_->name, static_->optional ? schemas::optional_string() : schemas::string());
  return b.build();
}

// The record's topic as a field value, marked plain when it needs no JSON escaping.
// Records of a batch share their topic: the check is remembered for the last one.
Value InsertField::topic_value(std::string_view topic) {
  // Compared inline: a memcmp call per record was ~1% of the transform path.
  if (topic.size() != checked_topic_.size() || !equal_bytes(topic.data(), checked_topic_.data(), topic.size())) {
    topic_plain_ = text_value(topic).is_plain();
    checked_topic_.assign(topic);
  }
  return topic_plain_ ? Value::plain_string(topic) : Value::string(topic);
}

// Inlined into apply_from(), the loop over a batch.
[[gnu::always_inline]] inline bool InsertField::apply(const RecordView& r) {
  Value& v = r.get(side_);
  if (v.is_null())
    return true;
  Arena& arena = r.arena();
  const auto& [topic_, partition_, offset_, timestamp_, static_, static_value_] = *specs_;
  // Field names and the static value are views of *specs_, which the batch keeps
  // alive: a batch may outlive this SMT (it travels on downstream).
  r.batch().keep_alive(specs_);
  if (r.schema(side_) == nullptr) {
    Value& map = require_map(v, purpose);
    if (topic_)
      map.put(arena, topic_->key, topic_value(r.topic()));
    if (partition_ && r.partition())
      map.put(arena, partition_->key, Value::int32(*r.partition()));
    if (offset_) {
      require_sink_record(r, purpose);
      map.put(arena, offset_->key, Value::int64(r.offset()));
    }
    if (timestamp_ && r.timestamp())
      map.put(arena, timestamp_->key, Value::int64(*r.timestamp()));
    if (static_ && static_value_)
      map.put(arena, static_->key, text_value(*static_value_));
    return true;
  }
  Value& in = require_struct(v, purpose);
  const Schema& input_schema = *in.schema();
  const SchemaPtr& out_schema = cache_.get(input_schema, [this](const Schema& s) { return derive(s); });
  Value out = Value::structure(arena, *out_schema);
  for (const auto& f : input_schema.fields())
    out.fields()[f.index] = field_value(in, f, arena, replace_null_with_default_);
  auto set = [&](const std::optional<Spec>& spec, Value x) { *out.field(spec->name) = x; };
  if (topic_)
    set(topic_, topic_value(r.topic()));
  if (partition_ && r.partition())
    set(partition_, Value::int32(*r.partition()));
  if (offset_) {
    require_sink_record(r, purpose);
    set(offset_, Value::int64(r.offset()));
  }
  if (timestamp_ && r.timestamp())
    set(timestamp_, Value::int64(*r.timestamp()));
  if (static_ && static_value_)
    set(static_, text_value(*static_value_));
  r.set(side_, out, out_schema);
  return true;
}

void InsertField::apply_from(DecodedBatch& batch, uint32_t& i) {
  apply_each(batch, i, [this](const RecordView& r) { return apply(r); });
}

} // namespace weir::transforms
