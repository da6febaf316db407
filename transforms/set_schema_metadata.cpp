#include "transforms/set_schema_metadata.hpp"

#include <charconv>

#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

namespace {

std::optional<int32_t> parse_int(std::string_view s) {
  if (!s.empty() && s[0] == '+')
    s.remove_prefix(1);
  int32_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty())
    return std::nullopt;
  return v;
}

} // namespace

const ConfigDef& SetSchemaMetadata::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    // Kafka declares schema.version an INT whose default is null; weir's ConfigDef
    // has no null default, so it is a string checked as an INT here and below.
    d.define("schema.name", ConfigType::String, "", Importance::High, "Schema name to set.")
        .define("schema.version", ConfigType::String, "", Importance::High, "Schema version to set.",
                [](const ConfigValue& v) -> std::optional<std::string> {
                  const auto& s = std::get<std::string>(v);
                  if (s.empty() || parse_int(s))
                    return std::nullopt;
                  return "Not a number of type INT";
                })
        .define("replace.null.with.default", ConfigType::Boolean, "true", Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. "
                "When set to true, the default value is used, otherwise null is used.");
    return d;
  }();
  return def;
}

SetSchemaMetadata::SetSchemaMetadata(const Config& c, Side side)
    : side_(side), schema_name_(optional_string(c, "schema.name")),
      replace_null_with_default_(c.get_bool("replace.null.with.default")) {
  if (auto version = optional_string(c, "schema.version")) {
    schema_version_ = parse_int(*version);
    if (!schema_version_)
      config_error("schema.version", *version, "Not a number of type INT");
  }
  if (!schema_name_ && !schema_version_)
    throw ConfigError("", "Neither schema name nor version configured");
}

SchemaPtr SetSchemaMetadata::derive(const Schema& input) const {
  auto b = SchemaBuilder::copy_basics(input, input.type());
  for (const auto& f : input.fields())
    b.field(f.name, f.schema);
  if (input.optional())
    b.optional();
  // A struct default points at the old schema and cannot be re-pointed at a schema
  // that is not built yet: it is dropped (see docs/transforms.md).
  if (const Value* d = input.default_value(); d && input.type() != Type::Struct)
    b.default_value(*d);
  if (schema_name_)
    b.name(*schema_name_);
  if (schema_version_)
    b.version(*schema_version_);
  return b.build();
}

bool SetSchemaMetadata::apply(const RecordView& r) {
  Value& v = r.get(side_);
  const Schema* schema = r.schema(side_);
  if (v.is_null() && schema == nullptr)
    return true;
  require_schema(schema, "updating schema metadata");
  const SchemaPtr& out_schema = cache_.get(*schema, [this](const Schema& s) { return derive(s); });
  if (v.kind() != Kind::Struct) {
    r.set(side_, v, out_schema);
    return true;
  }
  Arena& arena = r.arena();
  Value out = Value::structure(arena, *out_schema);
  for (const auto& f : v.schema()->fields())
    out.fields()[f.index] = field_value(v, f, arena, replace_null_with_default_);
  r.set(side_, out, out_schema);
  return true;
}

} // namespace weir::transforms
