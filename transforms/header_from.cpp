#include "transforms/header_from.hpp"

#include <algorithm>

#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

const ConfigDef& HeaderFrom::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("fields", ConfigType::List, Importance::High,
             "Field names in the record whose values are to be copied or moved to headers.", validators::non_empty())
        .define("headers", ConfigType::List, Importance::High,
                "Header names, in the same order as the field names listed in the fields configuration property.",
                validators::non_empty())
        .define("operation", ConfigType::String, Importance::High,
                "Either <code>move</code> if the fields are to be moved to the headers (removed from the key/value), "
                "or <code>copy</code> if the fields are to be copied to the headers (retained in the key/value).",
                validators::one_of({"move", "copy"}))
        .define("replace.null.with.default", ConfigType::Boolean, "true", Importance::Medium,
                "Whether to replace fields that have a default value and that are null to the default value. "
                "When set to true, the default value is used, otherwise null is used.");
    return d;
  }();
  return def;
}

HeaderFrom::HeaderFrom(const Config& c, Side side)
    : side_(side), fields_(c.get_list("fields")), headers_(c.get_list("headers")),
      move_(c.get_string("operation") == "move"), purpose_(move_ ? "header move" : "header copy"),
      replace_null_with_default_(c.get_bool("replace.null.with.default")) {
  if (fields_.size() != headers_.size())
    throw ConfigError("headers", "'fields' config must have the same number of elements as 'headers' config.");
}

bool HeaderFrom::moved(std::string_view field) const noexcept {
  return move_ && std::find(fields_.begin(), fields_.end(), field) != fields_.end();
}

bool HeaderFrom::apply(const RecordView& r) {
  Value& v = r.get(side_);
  const Schema* schema = r.schema(side_);
  Arena& arena = r.arena();
  HeaderList& headers = r.headers();
  if (schema == nullptr) {
    require_map(v, purpose_);
    // Every header reads the original value, so read all before removing any.
    for (size_t i = 0; i < fields_.size(); ++i) {
      const Value* x = v.find(fields_[i]);
      headers.push_back(arena, Header{r.copy(headers_[i]), x ? *x : Value(), nullptr});
    }
    if (move_)
      for (const auto& f : fields_)
        v.erase(f);
    return true;
  }
  require_struct(v, purpose_);
  const Value in = v;
  for (size_t i = 0; i < fields_.size(); ++i) {
    const Field* f = schema->field(fields_[i]);
    if (f == nullptr)
      throw DataError("Cannot invoke \"org.apache.kafka.connect.data.Field.schema()\" because the return value of "
                      "\"org.apache.kafka.connect.data.Schema.field(String)\" is null",
                      "java.lang.NullPointerException");
    // The field's schema belongs to the record's schema, which the batch holds.
    headers.push_back(arena, Header{r.copy(headers_[i]), field_value(in, *f, arena, replace_null_with_default_),
                                    f->schema.get()});
  }
  if (!move_)
    return true;
  const SchemaPtr& out_schema = cache_.get(*schema, [this](const Schema& s) {
    auto b = SchemaBuilder::copy_basics(s, Type::Struct);
    for (const auto& f : s.fields())
      if (!moved(f.name))
        b.field(f.name, f.schema);
    return b.build();
  });
  Value out = Value::structure(arena, *out_schema);
  uint32_t k = 0;
  for (const auto& f : in.schema()->fields())
    if (!moved(f.name))
      out.fields()[k++] = field_value(in, f, arena, replace_null_with_default_);
  r.set(side_, out, out_schema);
  return true;
}

} // namespace weir::transforms
