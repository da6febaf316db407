// What include/weir/record.hpp declares out of line (in libweir_sdk).
#include "weir/record.hpp"

namespace weir {

void Record::set(Side s, data::Value v, const data::SchemaPtr& schema) const {
  set(s, v, schema ? batch_->retain(schema) : nullptr);
}

void Record::add_header(std::string_view key, data::Value value, const data::SchemaPtr& schema) const {
  rec_->headers.push_back(*arena_, Header{arena_->copy(key), value, schema ? batch_->retain(schema) : nullptr});
}

} // namespace weir
