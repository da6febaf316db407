#include "engine/pipeline/tap.hpp"

#include "runtime/convert/json_text.hpp"

namespace weir::engine::pipeline {

TapRenderer::TapRenderer()
    : json_(convert::make_converter("org.apache.kafka.connect.json.JsonConverter",
                                    {{"schemas.enable", "false"}}, false)) {}

void TapRenderer::append(const data::Value& v, const data::Schema* schema, std::string& out) {
  try {
    if (!json_->from_connect(v, schema, out))
      out += "null";
  } catch (const std::exception& e) {
    out += "{\"error\":";
    convert::append_json_string(e.what(), out);
    out += '}';
  }
}

std::vector<std::string> TapRenderer::render(const data::DecodedBatch& batch, size_t max) {
  std::vector<std::string> lines;
  for (const auto& r : batch.records()) {
    if (lines.size() >= max)
      break;
    if (!r.live())
      continue;
    std::string line = "{\"topic\":";
    convert::append_json_string(r.topic, line);
    line += ",\"partition\":" + std::to_string(r.partition) + ",\"offset\":" + std::to_string(r.offset)
            + ",\"timestamp\":" + (r.timestamp < 0 ? std::string{"null"} : std::to_string(r.timestamp))
            + ",\"key\":";
    append(r.key, r.key_schema, line);
    line += ",\"value\":";
    append(r.value, r.value_schema, line);
    line += ",\"headers\":[";
    bool first = true;
    for (const auto& h : r.headers) {
      line += first ? "{\"key\":" : ",{\"key\":";
      first = false;
      convert::append_json_string(h.key, line);
      line += ",\"value\":";
      append(h.value, h.schema, line);
      line += '}';
    }
    line += "]}";
    lines.push_back(std::move(line));
  }
  return lines;
}

} // namespace weir::engine::pipeline
