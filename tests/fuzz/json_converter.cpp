// Fuzzing of JsonConverter (runtime/convert/json_converter.hpp), schemaless and with
// the {"schema","payload"} envelope (decimal.format BASE64 and NUMERIC). For every
// input and converter: decoding either throws DataError or gives a value; a value
// encodes again without any exception, and that encoding decodes to an equal value
// and schema (Kafka's Struct/ConnectSchema equality). Any other exception, a failed
// round trip or a sanitizer report is a finding. One exception, as in Kafka: without
// a schema a non-finite double (from 1e400) is written as the string "Infinity"
// (Jackson's WRITE_NAN_AS_STRINGS), which reads back as a string.
//
// Differential, too: the two readers of schemaless JSON, the fast decoder
// (schemas.enable=false) and the envelope reader ({"schema":null,"payload":...}), must
// give equal values for an input the fast decoder accepts. (An input it refuses may
// still make a valid envelope, e.g. `1,"payload":2`, so that direction is not compared.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/convert/json_converter.hpp"
#include "runtime/data/errors.hpp"
#include "tests/fuzz/report.hpp"

using namespace weir::runtime::convert;
using namespace weir::runtime::data;

namespace {

struct Subject {
  const char* name;
  std::unique_ptr<JsonConverter> converter;
};

Subject make(const char* name, bool schemas, bool numeric) {
  JsonConverter::Options o;
  o.schemas_enable = schemas;
  o.decimal_numeric = numeric;
  return {name, std::make_unique<JsonConverter>(o)};
}

[[noreturn]] void fail(const Subject& s, std::string_view what, std::string_view input, std::string_view detail) {
  weir::fuzz::finding(std::string("json_converter (") + s.name + ")", what, input, detail);
}

bool non_finite(const Value& v) {
  switch (v.kind()) {
    case Kind::Float32:
    case Kind::Float64: return !std::isfinite(v.as_double());
    case Kind::Array:
    case Kind::Struct:
      for (const Value& item : v.items())
        if (non_finite(item))
          return true;
      return false;
    case Kind::Map:
      for (const MapEntry& e : v.entries())
        if (non_finite(e.key) || non_finite(e.value))
          return true;
      return false;
    default: return false;
  }
}

std::string show(const Value& v, const Schema* schema) {
  return to_debug_string(v) + (schema != nullptr ? " with " + schema->describe() : std::string(" schemaless"));
}

void round_trip(Subject& s, std::string_view input) {
  DecodedBatch first;
  Value v;
  const Schema* schema = nullptr;
  try {
    s.converter->to_connect(std::optional<std::string_view>(input), first, v, schema);
  } catch (const DataError&) {
    return; // rejected with Kafka's DataException: what bad input must get
  }
  std::string encoded;
  try {
    if (!s.converter->from_connect(v, schema, encoded))
      encoded.clear(); // a Kafka null
  } catch (const DataError& e) {
    // A known limit, not a crash: decimal.format=NUMERIC prints a Decimal through a
    // 128-bit unscaled value, so a wider one (which base64 input can carry) is a
    // record error naming it (bench/results/fuzz.md, finding 7). Anything else is.
    if (std::string_view(e.what()).find("wider than 128 bits") != std::string_view::npos)
      return;
    fail(s, "a decoded value does not encode again", input, std::string(e.what()) + "\n  value: " + show(v, schema));
  } catch (const std::exception& e) {
    fail(s, "a decoded value does not encode again", input, std::string(e.what()) + "\n  value: " + show(v, schema));
  }
  DecodedBatch second;
  Value again;
  const Schema* again_schema = nullptr;
  try {
    std::optional<std::string_view> bytes;
    if (!encoded.empty())
      bytes = encoded;
    s.converter->to_connect(bytes, second, again, again_schema);
  } catch (const std::exception& e) {
    fail(s, "its own encoding does not decode", input, std::string(e.what()) + "\n  encoded: " + encoded);
  }
  bool same_schema = schema == again_schema
                     || (schema != nullptr && again_schema != nullptr && schema->equals(*again_schema));
  if (schema == nullptr && non_finite(v))
    return;
  if (!(v == again) || !same_schema)
    fail(s, "encode then decode changes the value", input,
         "first:  " + show(v, schema) + "\n  second: " + show(again, again_schema) + "\n  encoded: " + encoded);
}

int depth(const Value& v) {
  int deepest = 0;
  if (v.kind() == Kind::Array)
    for (const Value& item : v.items())
      deepest = std::max(deepest, depth(item));
  else if (v.kind() == Kind::Map)
    for (const MapEntry& e : v.entries())
      deepest = std::max(deepest, depth(e.value));
  else
    return 0;
  return deepest + 1;
}

// Schemaless `input` read by the fast decoder and, inside a null-schema envelope, by
// the envelope reader.
void both_readers(Subject& plain, Subject& envelope, std::string_view input) {
  if (input.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return; // blank: null without schemas, not a payload
  DecodedBatch batch;
  Value fast, dom;
  const Schema* schema = nullptr;
  try {
    plain.converter->to_connect(std::optional<std::string_view>(input), batch, fast, schema);
  } catch (const DataError&) {
    return;
  }
  if (depth(fast) >= 1024)
    return; // the envelope is one level more, past simdjson's (and the fast decoder's) limit
  std::string wrapped = R"({"schema":null,"payload":)" + std::string(input) + "}";
  try {
    envelope.converter->to_connect(std::optional<std::string_view>(wrapped), batch, dom, schema);
  } catch (const std::exception& e) {
    fail(envelope, "the envelope reader refuses what the fast decoder reads", input,
         std::string(e.what()) + "\n  fast: " + show(fast, nullptr));
  }
  if (!(fast == dom))
    fail(envelope, "the fast decoder and the envelope reader differ", input,
         "fast:     " + show(fast, nullptr) + "\n  envelope: " + show(dom, nullptr));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Made once: their schema caches then also see inputs one after another, as in a task.
  static Subject subjects[] = {
      make("schemas.enable=false", false, false),
      make("schemas.enable=true", true, false),
      make("schemas.enable=true decimal.format=NUMERIC", true, true),
  };
  std::string_view input(reinterpret_cast<const char*>(data), size);
  for (auto& s : subjects)
    round_trip(s, input);
  both_readers(subjects[0], subjects[1], input);
  return 0;
}
