// Fuzzing of JsonConverter (runtime/convert/json_converter.hpp), schemaless and with
// the {"schema","payload"} envelope (decimal.format BASE64 and NUMERIC). For every
// input and converter: decoding either throws DataError or gives a value; a value
// encodes again without any exception, and that encoding decodes to an equal value
// and schema (Kafka's Struct/ConnectSchema equality). Any other exception, a failed
// round trip or a sanitizer report is a finding. One exception, as in Kafka: without
// a schema a non-finite double (from 1e400) is written as the string "Infinity"
// (Jackson's WRITE_NAN_AS_STRINGS), which reads back as a string.
//
// Known and not yet fixed (found by this harness, see bench/results/fuzz.md): a
// Decimal written as a JSON number (decimal.format=NUMERIC) is read back through a
// double, so digits beyond a double's 17 are lost (4712347873508446.26 reads as
// 4712347873508446.00); Kafka reads it as an exact BigDecimal. Until the decoder reads
// the number's text, the NUMERIC round trip of a schema with a Decimal is not compared.
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

bool has_decimal(const Schema* s) {
  if (s == nullptr)
    return false;
  if (s->logical() == Logical::Decimal || has_decimal(s->key_schema().get()) || has_decimal(s->value_schema().get()))
    return true;
  for (const Field& f : s->fields())
    if (has_decimal(f.schema.get()))
      return true;
  return false;
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
  if (s.converter->options().decimal_numeric && has_decimal(schema))
    return; // the known loss of digits above

  if (!(v == again) || !same_schema)
    fail(s, "encode then decode changes the value", input,
         "first:  " + show(v, schema) + "\n  second: " + show(again, again_schema) + "\n  encoded: " + encoded);
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
  return 0;
}
