// Test support for SMT and predicate tables: run one component, configured like a
// connector would configure it, over one record decoded by the JsonConverter, and
// get back the re-encoded record (or "dropped", or the record error). Tests only.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/convert/converter.hpp"
#include "transforms/chain.hpp"

namespace weir::transforms::testing {

struct Record {
  std::optional<std::string> value{};
  std::optional<std::string> key{};
  std::string topic = "orders";
  int32_t partition = 1;
  int64_t offset = 42;
  int64_t timestamp = 1700000000000;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers{};
};

struct Outcome {
  std::string key;   ///< encoded key ("null" for a Kafka null)
  std::string value; ///< encoded value ("null" for a Kafka null)
  std::string topic;
  std::vector<std::pair<std::string, std::string>> headers;
  bool dropped = false;
  std::string error; ///< the record error's message, empty if none

  /// What the tables compare: the error as "error: ...", "dropped", or the value.
  std::string summary() const {
    if (!error.empty())
      return "error: " + error;
    if (dropped)
      return "dropped";
    return value;
  }
};

/// Runs `config` (a whole connector config with `transforms=...`) over `r`, with
/// JsonConverters for key and value (`schemas` = schemas.enable).
inline Outcome run_chain(const std::map<std::string, std::string>& config, const Record& r, bool schemas) {
  std::map<std::string, std::string> conv{{"schemas.enable", schemas ? "true" : "false"}};
  runtime::convert::RecordCodec codec(runtime::convert::make_converter("JsonConverter", conv, true),
                                      runtime::convert::make_converter("JsonConverter", conv, false));
  Batch raw;
  raw.append(r.topic, r.partition, r.offset, r.timestamp, r.key, r.value);
  for (const auto& [k, v] : r.headers)
    raw.add_header(k, v);
  auto batch = codec.decode(std::move(raw));
  Chain::from_config(config).apply_all(batch);
  Batch out;
  codec.encode(batch, out);
  Outcome o;
  if (!batch.errors().empty()) {
    o.error = batch.errors().all()[0].message;
    return o;
  }
  if (out.empty()) {
    o.dropped = true;
    return o;
  }
  auto text = [&](Slice s) { return s.is_null() ? std::string("null") : std::string(out.bytes(s)); };
  o.key = text(out[0].key);
  o.value = text(out[0].value);
  o.topic = std::string(out.topic(out[0]));
  for (const auto& h : out.headers(out[0]))
    o.headers.emplace_back(std::string(out.bytes(h.key)), text(h.value));
  return o;
}

/// Runs one SMT (`type` plus its own keys) over a record whose value is `value`.
inline Outcome run_smt(const std::string& type, const std::map<std::string, std::string>& own,
                       const Record& r, bool schemas) {
  std::map<std::string, std::string> config{{"transforms", "t"}, {"transforms.t.type", type}};
  for (const auto& [k, v] : own)
    config.emplace("transforms.t." + k, v);
  return run_chain(config, r, schemas);
}

/// One row of an SMT table: a config, an input value and the expected summary().
/// An expected value starting with "error: " matches when the error message
/// contains the rest.
struct Case {
  const char* name;
  std::map<std::string, std::string> config;
  std::optional<std::string> value;
  std::string expected;
};

inline bool matches(const std::string& actual, const std::string& expected) {
  if (expected.starts_with("error: ") && actual.starts_with("error: "))
    return actual.find(expected.substr(7)) != std::string::npos;
  return actual == expected;
}

/// A JsonConverter envelope around `payload`.
inline std::string envelope(const std::string& schema, const std::string& payload) {
  return R"({"schema":)" + schema + R"(,"payload":)" + payload + "}";
}

} // namespace weir::transforms::testing
