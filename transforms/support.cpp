#include "transforms/support.hpp"

#include <algorithm>

#include "runtime/convert/text.hpp"

namespace weir::transforms {

using namespace runtime::data;

std::optional<std::string> optional_string(const Config& config, std::string_view key) {
  const auto& originals = config.originals();
  auto it = originals.find(std::string(key));
  if (it == originals.end())
    return std::nullopt;
  return std::string(runtime::convert::trim(it->second));
}

NameTable::NameTable(std::vector<std::string> names) : names_(std::move(names)), next_(names_.size(), -1) {
  first_.fill(-1);
  // Chains keep the table's order, so find() returns the first of equal names.
  for (size_t i = names_.size(); i-- > 0;) {
    size_t slot = std::min(names_[i].size(), long_slot);
    next_[i] = first_[slot];
    first_[slot] = static_cast<int>(i);
    filter_ |= filter_bit(names_[i]);
  }
}

Value text_value(std::string_view text) {
  for (char c : text)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
      return Value::string(text);
  return Value::plain_string(text);
}

std::vector<std::string> java_split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    parts.emplace_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos)
      break;
    start = pos + 1;
  }
  while (!parts.empty() && parts.back().empty())
    parts.pop_back();
  return parts;
}

void config_error(const std::string& key, std::string_view value, std::string_view reason) {
  throw ConfigError(key, runtime::convert::invalid_value_message(key, value, reason));
}

void throw_require_map(const Value& v, std::string_view purpose) {
  throw DataError("Only Map objects supported in absence of schema for [" + std::string(purpose)
                  + "], found: " + std::string(java_class_name(v.kind())));
}

void throw_require_struct(const Value& v, std::string_view purpose) {
  throw DataError("Only Struct objects supported for [" + std::string(purpose)
                  + "], found: " + std::string(java_class_name(v.kind())));
}

const Schema& require_schema(const Schema* s, std::string_view purpose) {
  if (s == nullptr)
    throw DataError("Schema required for [" + std::string(purpose) + "]");
  return *s;
}

void require_sink_record(const runtime::data::RecordView& r, std::string_view purpose) {
  if (r.offset() < 0)
    throw DataError("Only SinkRecord supported for [" + std::string(purpose)
                    + "], found: org.apache.kafka.connect.source.SourceRecord");
}

} // namespace weir::transforms
