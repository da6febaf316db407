#include "transforms/has_header_key.hpp"

namespace weir::transforms {

const ConfigDef& HasHeaderKey::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("name", ConfigType::String, Importance::Medium, "The header name.", validators::non_empty());
    return d;
  }();
  return def;
}

HasHeaderKey::HasHeaderKey(const Config& c) : header_(c.get_string("name")) {}

bool HasHeaderKey::test(const RecordView& r) {
  for (const auto& h : r.headers())
    if (h.key == header_)
      return true;
  return false;
}

} // namespace weir::transforms
