// A transformation and a predicate, built out of tree against the installed weir SDK
// (see docs/writing-a-transform.md, which walks through this file).
//
// ConcatFields joins string fields of the record's value into a new field:
//   transforms.name.type=com.example.weir.ConcatFields
//   transforms.name.fields=first_name,last_name
//   transforms.name.separator=-               (the default)
//   transforms.name.target=full_name
// on a schemaless value (a map) and on a struct (its schema gains an optional string
// field, derived once per input schema). A missing or null source field is skipped;
// a value that is neither a map nor a struct, or a source field that is not a
// string, is bad data: the connector's errors.tolerance decides.
//
// FieldEquals matches records whose value has `field` equal to `value` (as text):
//   predicates.vip.type=com.example.weir.FieldEquals
//   predicates.vip.field=tier
//   predicates.vip.value=gold
#include <string>
#include <vector>

#include <weir/plugin.hpp>

namespace {

using weir::data::DataError;
using weir::data::Kind;
using weir::data::Schema;
using weir::data::SchemaBuilder;
using weir::data::SchemaPtr;
using weir::data::Type;
using weir::data::Value;

/// A schemaless map's or a struct's field, or nullptr when absent.
const Value* field_of(const Value& v, std::string_view name) {
  if (v.kind() == Kind::Map)
    return v.find(name);
  if (v.kind() == Kind::Struct)
    return v.field(name);
  return nullptr;
}

class ConcatFields final : public weir::Transformation {
public:
  static void define(weir::ConfigDef& def) {
    def.define("fields", weir::ConfigType::List, weir::Importance::High,
               "Fields of the value to join, in order.", weir::validators::non_empty())
        .define("separator", weir::ConfigType::String, "-", weir::Importance::Medium,
                "Put between two joined fields.")
        .define("target", weir::ConfigType::String, weir::Importance::High,
                "The field the joined text goes to (replaced if present).", weir::validators::non_empty());
  }

  explicit ConcatFields(const weir::Config& config)
      : fields_(config.get_list("fields")), separator_(config.get_string("separator")),
        target_(config.get_string("target")) {}

  bool apply(const weir::Record& record) override {
    Value& value = record.value(); // a handle: changes go through the record's own Value
    if (value.is_null())
      return true; // a tombstone passes unchanged
    if (value.kind() != Kind::Map && value.kind() != Kind::Struct)
      throw DataError("ConcatFields needs a map or a struct value, found " + std::string(to_string(value.kind())));
    text_.clear();
    bool first = true;
    for (const auto& name : fields_) {
      const Value* f = field_of(value, name);
      if (f == nullptr || f->is_null())
        continue;
      if (f->kind() != Kind::String)
        throw DataError("ConcatFields: field " + name + " is " + std::string(to_string(f->kind()))
                        + ", not a string");
      if (!first)
        text_ += separator_;
      text_ += f->as_string();
      first = false;
    }
    Value joined = Value::string(record.copy(text_));
    if (value.kind() == Kind::Map) {
      value.put(record.arena(), record.copy(target_), joined);
      return true;
    }
    record.set_value(with_target(record, value, joined), derived(*record.value_schema()));
    return true;
  }

private:
  /// The input struct's fields plus the target, in a struct of the derived schema.
  Value with_target(const weir::Record& record, const Value& input, Value joined) {
    const SchemaPtr& schema = derived(*input.schema());
    Value out = Value::structure(record.arena(), *schema);
    for (const auto& field : schema->fields()) {
      if (field.name == target_)
        out.fields()[field.index] = joined;
      else if (const Value* v = input.field(field.name))
        out.fields()[field.index] = *v;
    }
    return out;
  }

  /// The input schema plus an optional string `target` field, cached per input schema.
  const SchemaPtr& derived(const Schema& input) {
    return cache_.get(input, [&](const Schema& in) {
      auto b = SchemaBuilder::copy_basics(in, Type::Struct).optional(in.optional());
      for (const auto& field : in.fields())
        if (field.name != target_)
          b.field(field.name, field.schema);
      b.field(target_, weir::data::schemas::optional_string());
      return b.build();
    });
  }

  std::vector<std::string> fields_;
  std::string separator_;
  std::string target_;
  std::string text_;
  weir::data::SchemaCache cache_;
};

class FieldEquals final : public weir::Predicate {
public:
  static void define(weir::ConfigDef& def) {
    def.define("field", weir::ConfigType::String, weir::Importance::High, "The value's field to compare.",
               weir::validators::non_empty())
        .define("value", weir::ConfigType::String, weir::Importance::High, "The text it must equal.");
  }

  explicit FieldEquals(const weir::Config& config)
      : field_(config.get_string("field")), value_(config.get_string("value")) {}

  bool test(const weir::Record& record) override {
    const Value* f = field_of(record.value(), field_);
    return f != nullptr && f->kind() == Kind::String && f->as_string() == value_;
  }

private:
  std::string field_;
  std::string value_;
};

void register_plugin(weir::PluginRegistrar& registrar) {
  registrar.add_transformation<ConcatFields>("com.example.weir.ConcatFields", {"ConcatFields"}, "1.0.0");
  registrar.add_predicate<FieldEquals>("com.example.weir.FieldEquals", {"FieldEquals"}, "1.0.0");
}

} // namespace

WEIR_PLUGIN(register_plugin)
