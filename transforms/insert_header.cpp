#include "transforms/insert_header.hpp"

namespace weir::transforms {

using namespace runtime::data;

const ConfigDef& InsertHeader::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("header", ConfigType::String, Importance::High, "The name of the header.")
        .define("value.literal", ConfigType::String, Importance::High,
                "The literal value that is to be set as the header value on all records.");
    return d;
  }();
  return def;
}

InsertHeader::InsertHeader(const Config& c, Side) : header_(c.get_string("header")) {
  auto parsed = runtime::convert::parse_header_text(c.get_string("value.literal"), arena_);
  value_ = parsed.value;
  schema_ = std::move(parsed.schema);
}

bool InsertHeader::apply(const RecordView& r) {
  // The batch gets its own copy: records outlive neither the SMT's arena nor its schema.
  Value v = value_.deep_copy(r.arena());
  const Schema* schema = schema_ ? r.retain(schema_) : nullptr;
  r.headers().push_back(r.arena(), Header{r.copy(header_), v, schema});
  return true;
}

} // namespace weir::transforms
