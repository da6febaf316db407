#include "cli/offline_transform.hpp"

#include <istream>
#include <optional>
#include <ostream>

#include <simdjson.h>

#include "runtime/config/properties.hpp"
#include "runtime/convert/converter.hpp"
#include "runtime/convert/json_dom_numbers.hpp"
#include "runtime/convert/json_converter.hpp"
#include "runtime/convert/json_text.hpp"
#include "transforms/chain.hpp"

namespace weir::cli {

using namespace runtime::data;
using runtime::convert::RecordCodec;
using transforms::Chain;
using transforms::chain_passthrough;
using transforms::define_chain_keys;
namespace dom = simdjson::dom;

namespace {

constexpr size_t batch_records = 1024;

const ConfigDef& runner_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("key.converter", ConfigType::Class, "org.apache.kafka.connect.json.JsonConverter", Importance::Low,
             "Converter for record keys (default: JsonConverter with schemas.enable=true).",
             runtime::convert::converter_class())
        .define("value.converter", ConfigType::Class, "org.apache.kafka.connect.json.JsonConverter",
                Importance::Low, "Converter for record values (default: JsonConverter with schemas.enable=true).",
                runtime::convert::converter_class())
        .define("errors.tolerance", ConfigType::String, "none", Importance::Medium,
                "none: stop at the first failed record (exit 2); all: report failed records and go on.",
                validators::one_of({"none", "all"}, true));
    define_chain_keys(d);
    return d;
  }();
  return def;
}

// Connector keys that may sit in the same file but mean nothing offline.
ParseOptions runner_options() {
  auto o = chain_passthrough();
  o.passthrough_prefixes.insert(o.passthrough_prefixes.end(), {"key.converter.", "value.converter.", "errors."});
  o.passthrough_keys = {"name", "connector.class", "tasks.max", "topics", "topics.regex", "header.converter"};
  return o;
}

bool is_json(const runtime::convert::Converter& c) {
  return c.class_name() == runtime::convert::JsonConverter::class_name_v;
}

// A key or value of an input line as the converter's bytes: the JSON text itself
// for the JsonConverter (its numbers with their exact digits), a string's content for
// the others.
std::optional<std::string> as_bytes(std::optional<dom::element> e, bool json,
                                    const runtime::convert::DomNumbers& numbers) {
  if (!e || e->is_null())
    return std::nullopt;
  if (!json && e->is_string())
    return std::string(e->get_string().value_unsafe());
  std::string text;
  numbers.write_json(*e, text);
  return text;
}

void append_record_json(const Batch& b, const RecordRef& r, bool key_json, bool value_json, std::string& out) {
  using runtime::convert::append_int;
  using runtime::convert::append_json_string;
  out += "{\"topic\":";
  append_json_string(b.topic(r), out);
  out += ",\"partition\":";
  append_int(r.partition, out);
  out += ",\"offset\":";
  append_int(r.offset, out);
  out += ",\"timestamp\":";
  if (r.timestamp < 0)
    out += "null";
  else
    append_int(r.timestamp, out);
  auto bytes = [&](Slice s, bool json) {
    if (s.is_null())
      out += "null";
    else if (json)
      out += b.bytes(s);
    else
      append_json_string(b.bytes(s), out);
  };
  out += ",\"key\":";
  bytes(r.key, key_json);
  out += ",\"value\":";
  bytes(r.value, value_json);
  out += ",\"headers\":[";
  bool first = true;
  for (const auto& h : b.headers(r)) {
    if (!first)
      out += ',';
    first = false;
    out += "{\"key\":";
    append_json_string(b.bytes(h.key), out);
    out += ",\"value\":";
    bytes(h.value, false);
    out += '}';
  }
  out += "]}\n";
}

struct Runner {
  Runner(RecordCodec c, Chain ch, bool all, std::ostream& o, std::ostream& e)
      : codec(std::move(c)), chain(std::move(ch)), tolerate_all(all), out(o), err(e) {}

  RecordCodec codec;
  Chain chain;
  bool tolerate_all;
  std::ostream& out;
  std::ostream& err;
  dom::parser parser;
  // Each line is parsed with its numbers indexed, so that a key or value reaches the
  // converter with every number's digits (integers beyond 64 bits, leading zeros,
  // long fractions) rather than as simdjson's doubles (json_dom_numbers.hpp).
  runtime::convert::DomNumbers numbers;
  Batch batch;
  std::vector<size_t> lines; ///< input line of each record in `batch`
  DecodedBatch decoded;
  Batch encoded;
  std::string text;
  bool failed = false;

  void report(size_t line, std::string_view what) { err << "line " << line << ": " << what << '\n'; }

  // Parses one input line into `batch`; returns what is wrong with a bad line.
  std::optional<std::string> add_line(size_t line, std::string_view json) {
    std::optional<dom::element> root;
    try {
      root = numbers.parse_indexed(parser, json);
    } catch (const DataError&) {
    }
    if (!root || !root->is_object()) {
      return std::string("invalid input record: expected a JSON object like "
                   "{\"topic\":...,\"partition\":...,\"offset\":...,\"timestamp\":...,\"key\":...,\"value\":...,\"headers\":[...]}");
    }
    dom::object o = root->get_object().value_unsafe();
    auto field = [&](const char* k) -> std::optional<dom::element> {
      auto r = o.at_key(k);
      if (r.error())
        return std::nullopt;
      return r.value_unsafe();
    };
    auto topic = field("topic");
    if (!topic || !topic->is_string()) {
      return std::string("invalid input record: \"topic\" must be a string");
    }
    std::string bad_integer;
    auto integer = [&](const char* k, int64_t fallback) -> int64_t {
      auto e = field(k);
      if (!e || e->is_null())
        return fallback;
      if (!numbers.is_long(*e)) {
        bad_integer = std::string("invalid input record: \"") + k + "\" must be an integer";
        return fallback;
      }
      return numbers.long_value(*e);
    };
    int64_t partition = integer("partition", 0);
    int64_t offset = integer("offset", static_cast<int64_t>(line) - 1);
    int64_t timestamp = integer("timestamp", -1);
    if (!bad_integer.empty())
      return bad_integer;
    auto key = as_bytes(field("key"), is_json(codec.key_converter()), numbers);
    auto value = as_bytes(field("value"), is_json(codec.value_converter()), numbers);
    std::vector<std::pair<std::string, std::optional<std::string>>> headers;
    if (auto hs = field("headers"); hs && !hs->is_null()) {
      if (!hs->is_array()) {
        return std::string("invalid input record: \"headers\" must be an array");
      }
      dom::array arr = hs->get_array().value_unsafe();
      for (auto h : arr) {
        std::optional<dom::element> hk, hv;
        if (h.is_object()) {
          dom::object ho = h.get_object().value_unsafe();
          if (auto r = ho.at_key("key"); !r.error())
            hk = r.value_unsafe();
          if (auto r = ho.at_key("value"); !r.error())
            hv = r.value_unsafe();
        } else if (h.is_array() && h.get_array().value_unsafe().size() == 2) {
          dom::array pair = h.get_array().value_unsafe();
          hk = pair.at(0).value_unsafe();
          hv = pair.at(1).value_unsafe();
        }
        if (!hk || !hk->is_string()) {
          return std::string("invalid input record: a header is {\"key\":\"...\",\"value\":...} or [\"key\", value]");
        }
        headers.emplace_back(std::string(hk->get_string().value_unsafe()), as_bytes(hv, false, numbers));
      }
    }
    batch.append(topic->get_string().value_unsafe(), static_cast<int32_t>(partition), offset, timestamp,
                 key ? std::optional<std::string_view>(*key) : std::nullopt,
                 value ? std::optional<std::string_view>(*value) : std::nullopt);
    for (const auto& [k, v] : headers)
      batch.add_header(k, v ? std::optional<std::string_view>(*v) : std::nullopt);
    lines.push_back(line);
    return std::nullopt;
  }

  // Runs the batch through converters and chain and writes it; false to stop.
  bool flush() {
    if (batch.empty())
      return true;
    codec.decode(std::move(batch), decoded);
    batch = Batch();
    chain.apply_all(decoded);
    encoded.clear();
    codec.encode(decoded, encoded);
    // Errors in record order (a record has at most one: it stops at its first).
    std::vector<const RecordError*> by_record(decoded.size(), nullptr);
    for (const auto& e : decoded.errors().all())
      if (!by_record[e.index])
        by_record[e.index] = &e;
    bool key_json = is_json(codec.key_converter()), value_json = is_json(codec.value_converter());
    size_t next_out = 0;
    bool ok = true;
    for (uint32_t i = 0; i < decoded.size(); ++i) {
      const auto& rec = decoded[i];
      if (by_record[i]) {
        const auto& e = *by_record[i];
        report(lines[i], std::string(to_string(e.stage)) + " " + e.class_name + ": " + e.exception_class + ": "
                             + e.message);
        failed = true;
        if (!tolerate_all) {
          ok = false;
          break;
        }
        continue;
      }
      if (!rec.live())
        continue;
      text.clear();
      append_record_json(encoded, encoded[next_out++], key_json, value_json, text);
      out << text;
    }
    lines.clear();
    return ok;
  }
};

} // namespace

int run_offline_transform(const std::string& config_path, std::istream& in, std::ostream& out, std::ostream& err) {
  std::optional<Runner> runner;
  try {
    auto raw = runtime::load_properties_file(config_path);
    Config config = runner_def().parse(raw, runner_options());
    auto key_options = config.originals_with_prefix("key.converter.");
    auto value_options = config.originals_with_prefix("value.converter.");
    RecordCodec codec(runtime::convert::make_converter(config.get_string("key.converter"), key_options, true,
                                                       "key.converter."),
                      runtime::convert::make_converter(config.get_string("value.converter"), value_options, false,
                                                       "value.converter."));
    bool all_errors = config.get_string("errors.tolerance").starts_with('a')
                      || config.get_string("errors.tolerance").starts_with('A');
    runner.emplace(std::move(codec), Chain::from_config(raw), all_errors, out, err);
  } catch (const ConfigError& e) {
    err << "weir transform: " << config_path << ": " << e.what() << '\n';
    return offline_config_error;
  }

  std::string line_text;
  size_t line = 0;
  bool go_on = true;
  while (go_on && std::getline(in, line_text)) {
    ++line;
    if (line_text.find_first_not_of(" \t\r") == std::string::npos)
      continue; // blank lines separate nothing
    if (auto problem = runner->add_line(line, line_text)) {
      // A bad input line is a record error too; records before it go out first.
      go_on = runner->flush();
      if (!go_on)
        break;
      runner->report(line, *problem);
      runner->failed = true;
      go_on = runner->tolerate_all;
      continue;
    }
    if (runner->lines.size() >= batch_records)
      go_on = runner->flush();
  }
  if (go_on)
    runner->flush();
  else
    runner->lines.clear();
  out.flush();
  return runner->failed && !runner->tolerate_all ? offline_record_error : offline_ok;
}

} // namespace weir::cli
