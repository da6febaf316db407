// Decoded batches for the JDBC sink writers' tests (SQLite's and PostgreSQL's), built
// as the pipeline builds them: JSON keys and values through the JSON converter.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/convert/converter.hpp"
#include "runtime/data/decoded_batch.hpp"

namespace weir::testing {

/// One consumed record: its position and JSON key and value (nullopt: null).
struct In {
  int64_t offset;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::string topic = "t";
  int32_t partition = 0;
};

/// Decodes records as the pipeline would: JSON keys and values, schemaless unless
/// `value_schemas` / `key_schemas`.
inline runtime::data::DecodedBatch decode(const std::vector<In>& records, bool value_schemas = false,
                                          bool key_schemas = false) {
  runtime::convert::RecordCodec codec(
      runtime::convert::make_converter("JsonConverter", {{"schemas.enable", key_schemas ? "true" : "false"}}, true),
      runtime::convert::make_converter("JsonConverter", {{"schemas.enable", value_schemas ? "true" : "false"}},
                                       false));
  Batch raw;
  for (const auto& r : records) {
    auto view = [](const std::optional<std::string>& s) {
      return s ? std::optional<std::string_view>(*s) : std::nullopt;
    };
    raw.append(r.topic, r.partition, r.offset, 1000, view(r.key), view(r.value));
  }
  return codec.decode(std::move(raw));
}

/// Records with keys {"id":N} and values {"id":N,"name":X}, from offset `first` on.
inline std::vector<In> people(int64_t first, std::vector<std::pair<int, std::string>> rows) {
  std::vector<In> out;
  for (const auto& [id, name] : rows)
    out.push_back({first++, R"({"id":)" + std::to_string(id) + "}",
                   R"({"id":)" + std::to_string(id) + R"(,"name":")" + name + R"("})"});
  return out;
}

/// The error messages of a batch's failed records, in order.
inline std::vector<std::string> messages(const runtime::data::DecodedBatch& b) {
  std::vector<std::string> out;
  for (const auto& e : b.errors().all()) out.push_back(e.message);
  return out;
}

} // namespace weir::testing
