#include "transforms/drop_headers.hpp"

#include <algorithm>

namespace weir::transforms {

using namespace runtime::data;

const ConfigDef& DropHeaders::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("headers", ConfigType::List, Importance::High, "The name of the headers to be removed.",
             validators::non_empty());
    return d;
  }();
  return def;
}

DropHeaders::DropHeaders(const Config& c, Side) : headers_(c.get_list("headers")) {}

bool DropHeaders::apply(const RecordView& r) {
  r.headers().erase_if([this](const Header& h) {
    return std::find(headers_.begin(), headers_.end(), h.key) != headers_.end();
  });
  return true;
}

} // namespace weir::transforms
