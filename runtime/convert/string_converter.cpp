#include "runtime/convert/string_converter.hpp"

#include "runtime/convert/text.hpp"
#include "runtime/convert/json_text.hpp"
#include "runtime/convert/utf8_repair.hpp"

namespace weir::runtime::convert {

using namespace runtime::data;

const ConfigDef& StringConverter::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("converter.encoding", ConfigType::String, "UTF-8", Importance::High,
             "The name of the Java character set to use for encoding strings as byte arrays.",
             validators::one_of({"UTF-8", "UTF8"}, true))
        .define("converter.type", ConfigType::String, "value", Importance::Low,
                "How this converter will be used: key, value or header.",
                validators::one_of({"key", "value", "header"}, true));
    return d;
  }();
  return def;
}

StringConverter::StringConverter(const Config&, bool) : schema_(schemas::optional_string()) {}

void StringConverter::to_connect(const std::optional<std::string_view>& bytes, DecodedBatch& batch,
                                 Value& out, const Schema*& schema) {
  schema = batch.retain(schema_);
  if (!bytes) {
    out = Value();
    return;
  }
  // The raw batch is read-only once decoded, so its bytes can be viewed in place,
  // unless they are not UTF-8: Java's String would hold U+FFFD where they break.
  if (is_utf8(*bytes)) [[likely]] {
    out = Value::string(*bytes);
    return;
  }
  std::string repaired;
  append_utf8_repaired(*bytes, repaired);
  out = Value::string(batch.arena().copy(repaired));
}

bool StringConverter::from_connect(const Value& v, const Schema* schema, std::string& out) {
  if (v.is_null())
    return false;
  append_java_to_string(v, schema, out);
  return true;
}

} // namespace weir::runtime::convert
