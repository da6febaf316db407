// The node-independent form of a DecodedBatch (declared in runtime/data/decoded_batch.hpp):
// every key, value and header as a JsonConverter envelope, lossless for weir's value
// model (schemas kept, decimals base64, nulls kept as nulls).
#include "runtime/convert/json_converter.hpp"

namespace weir::runtime::data {

using convert::JsonConverter;

namespace {

JsonConverter& wire_converter() {
  static thread_local JsonConverter json(JsonConverter::Options{true, false, false, 1000});
  return json;
}

} // namespace

DecodedBatchWire to_wire(DecodedBatch& batch) {
  auto& json = wire_converter();
  DecodedBatchWire w;
  std::string key, value, header;
  w.states.reserve(batch.size());
  w.raw_indexes.reserve(batch.size());
  for (uint32_t i = 0; i < batch.size(); ++i) {
    auto& rec = batch[i];
    bool has_key = false, has_value = false;
    if (rec.live()) {
      try {
        key.clear();
        value.clear();
        has_key = json.from_connect(rec.key, rec.key_schema, key);
        has_value = json.from_connect(rec.value, rec.value_schema, value);
      } catch (const std::exception& e) {
        batch.fail(i, ErrorStage::Transformation, "weir.DecodedBatch", e);
        has_key = has_value = false;
      }
    }
    w.encoded.append(rec.topic, rec.partition, rec.offset, rec.timestamp,
                     has_key ? std::optional<std::string_view>(key) : std::nullopt,
                     has_value ? std::optional<std::string_view>(value) : std::nullopt);
    for (const auto& h : rec.headers) {
      header.clear();
      bool has = json.from_connect(h.value, h.schema, header);
      w.encoded.add_header(h.key, has ? std::optional<std::string_view>(header) : std::nullopt);
    }
    w.states.push_back(static_cast<uint8_t>(rec.state));
    w.raw_indexes.push_back(rec.raw_index);
  }
  w.errors = batch.errors();
  return w;
}

DecodedBatch from_wire(DecodedBatchWire&& w) {
  auto& json = wire_converter();
  if (w.states.size() != w.encoded.size() || w.raw_indexes.size() != w.encoded.size())
    throw DataError("Corrupt DecodedBatch wire form: " + std::to_string(w.encoded.size()) + " records but "
                    + std::to_string(w.states.size()) + " states");
  DecodedBatch b(std::move(w.encoded));
  const Batch& raw = b.raw();
  for (uint32_t i = 0; i < b.size(); ++i) {
    auto& rec = b[i];
    const auto& ref = raw[i];
    auto bytes = [&](Slice s) {
      return s.is_null() ? std::nullopt : std::optional<std::string_view>(raw.bytes(s));
    };
    json.to_connect(bytes(ref.key), b, rec.key, rec.key_schema);
    json.to_connect(bytes(ref.value), b, rec.value, rec.value_schema);
    auto raw_headers = raw.headers(ref);
    for (uint32_t h = 0; h < rec.headers.size(); ++h)
      json.to_connect(bytes(raw_headers[h].value), b, rec.headers[h].value, rec.headers[h].schema);
    if (w.states[i] > static_cast<uint8_t>(RecordState::Failed))
      throw DataError("Corrupt DecodedBatch wire form: bad record state");
    rec.state = static_cast<RecordState>(w.states[i]);
    rec.raw_index = w.raw_indexes[i];
  }
  b.errors() = std::move(w.errors);
  return b;
}

} // namespace weir::runtime::data
