// The SMTs of bench/plugin_smt_bench.cpp as a plugin: the same logic as the built-in
// InsertField$Value (static.field / static.value) and MaskField$Value (string fields
// of a schemaless map become ""), written against the public SDK only, as a plugin
// author would write them.
#include <string>
#include <vector>

#include <weir/plugin.hpp>

namespace {

using weir::data::Kind;
using weir::data::Value;

class InsertStatic final : public weir::Transformation {
public:
  static void define(weir::ConfigDef& def) {
    def.define("field", weir::ConfigType::String, weir::Importance::High, "Field name.")
        .define("value", weir::ConfigType::String, weir::Importance::High, "Its value.");
  }
  explicit InsertStatic(const weir::Config& c) : field_(c.get_string("field")), value_(c.get_string("value")) {}

  bool apply(const weir::Record& record) override {
    Value& v = record.value();
    if (v.kind() != Kind::Map)
      throw weir::data::DataError("InsertStatic needs a map");
    v.put(record.arena(), record.copy(field_), Value::string(record.copy(value_)));
    return true;
  }

private:
  std::string field_, value_;
};

class MaskStrings final : public weir::Transformation {
public:
  static void define(weir::ConfigDef& def) {
    def.define("fields", weir::ConfigType::List, weir::Importance::High, "String fields to empty.");
  }
  explicit MaskStrings(const weir::Config& c) : fields_(c.get_list("fields")) {}

  bool apply(const weir::Record& record) override {
    Value& v = record.value();
    if (v.kind() != Kind::Map)
      throw weir::data::DataError("MaskStrings needs a map");
    for (const auto& name : fields_)
      if (Value* f = v.find(name); f != nullptr && f->kind() == Kind::String)
        *f = Value::plain_string({});
    return true;
  }

private:
  std::vector<std::string> fields_;
};

void register_plugin(weir::PluginRegistrar& r) {
  r.add_transformation<InsertStatic>("bench.InsertStatic", {}, "1.0.0");
  r.add_transformation<MaskStrings>("bench.MaskStrings", {}, "1.0.0");
}

} // namespace

WEIR_PLUGIN(register_plugin)
