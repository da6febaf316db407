// Fuzzing of SMT and predicate configs (transforms/chain.hpp): the input is a
// connector config, one `key=value` per line (split at the first '='; no escapes, so
// the fuzzer spends its time on the SMTs, not on a file format). Chain::from_config
// either builds a chain or throws weir::ConfigError (or a DataError from a literal it
// reads); any other exception is a finding. A chain that builds then runs over a few
// schemaless and schema'd records, and they are encoded again: bad records must be
// marked Failed, never throw out of apply or encode.
#include <cstdint>
#include <exception>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <typeinfo>

#include "runtime/convert/converter.hpp"
#include "runtime/data/errors.hpp"
#include "tests/fuzz/report.hpp"
#include "transforms/chain.hpp"
#include "weir/config.hpp"

using namespace weir;
using namespace weir::runtime::data;
using weir::runtime::convert::make_converter;
using weir::runtime::convert::RecordCodec;

namespace {

std::map<std::string, std::string> config_of(std::string_view text) {
  std::map<std::string, std::string> config;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text.remove_prefix(eol == std::string_view::npos ? text.size() : eol + 1);
    size_t eq = line.find('=');
    if (eq == std::string_view::npos)
      continue;
    config.insert_or_assign(std::string(line.substr(0, eq)), std::string(line.substr(eq + 1)));
  }
  return config;
}

constexpr std::string_view schemaless[] = {
    R"({"id":42,"name":"ada","amount":12.5,"ts":1700000000000,"day":"2024-03-01","ok":true,)"
    R"("nested":{"x":1,"y":[1,2,3],"z":{"deep":"v"}},"tags":["a","b"],"none":null})",
    R"({"id":"not a number","ts":"2024-03-01T12:30:00Z","nested":"flat"})",
    R"([1,2,3])",
    R"("just a string")",
    R"(17)",
    R"({})",
};

constexpr std::string_view with_schema[] = {
    R"({"schema":{"type":"struct","name":"rec","optional":false,"fields":[)"
    R"({"field":"id","type":"int32","optional":false},)"
    R"({"field":"name","type":"string","optional":true},)"
    R"({"field":"amount","type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},)"
    R"({"field":"ts","type":"int64","optional":true,"name":"org.apache.kafka.connect.data.Timestamp","version":1},)"
    R"({"field":"day","type":"int32","optional":true,"name":"org.apache.kafka.connect.data.Date","version":1},)"
    R"({"field":"nested","type":"struct","optional":true,"fields":[{"field":"x","type":"double","optional":true},)"
    R"({"field":"y","type":"array","items":{"type":"int64","optional":false},"optional":true}]},)"
    R"({"field":"m","type":"map","keys":{"type":"string","optional":false},"values":{"type":"boolean","optional":true},"optional":true}]},)"
    R"("payload":{"id":7,"name":"bo","amount":"BNI=","ts":1700000000000,"day":19783,)"
    R"("nested":{"x":2.5,"y":[4,5]},"m":{"k":true,"n":null}}})",
    R"({"schema":{"type":"struct","name":"rec","optional":true,"fields":[{"field":"id","type":"int32","optional":true}]},"payload":null})",
    R"({"schema":{"type":"string","optional":true},"payload":"2024-03-01"})",
    R"({"schema":{"type":"int64","optional":false},"payload":1700000000000})",
};

// A batch of `values` (keys: a string and a null), with headers, through `codec`.
DecodedBatch batch_of(RecordCodec& codec, std::span<const std::string_view> values, std::string_view key) {
  Batch raw;
  int64_t offset = 0;
  for (std::string_view v : values) {
    raw.append("orders", 0, offset, 1700000000000 + offset, offset % 2 == 0 ? std::optional(key) : std::nullopt, v);
    raw.add_header("h", std::string_view("1.50"));
    raw.add_header("trace", std::nullopt);
    ++offset;
  }
  raw.append("orders", 1, offset, -1, std::nullopt, std::nullopt); // a tombstone
  return codec.decode(std::move(raw));
}

RecordCodec codec(bool schemas) {
  std::map<std::string, std::string> c{{"schemas.enable", schemas ? "true" : "false"}};
  return RecordCodec(make_converter("JsonConverter", c, true), make_converter("JsonConverter", c, false));
}

[[noreturn]] void threw(std::string_view where, const std::exception& e, std::string_view input) {
  weir::fuzz::finding("smt_config", std::string(where) + " threw " + typeid(e).name(), input, e.what());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  transforms::Chain chain;
  try {
    chain = transforms::Chain::from_config(config_of(input));
  } catch (const ConfigError&) {
    return 0;
  } catch (const DataError&) {
    return 0;
  } catch (const std::exception& e) {
    threw("Chain::from_config", e, input);
  }
  try {
    for (bool schemas : {false, true}) {
      RecordCodec c = codec(schemas);
      DecodedBatch batch =
          schemas ? batch_of(c, with_schema, R"({"schema":{"type":"string","optional":false},"payload":"k"})")
                  : batch_of(c, schemaless, R"("k")");
      chain.apply_all(batch);
      Batch out;
      c.encode(batch, out);
    }
  } catch (const std::exception& e) {
    threw("applying the chain", e, input);
  }
  return 0;
}
