#include "transforms/timestamp_converter.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

const std::string type = "org.apache.kafka.connect.transforms.TimestampConverter$Value";
const std::string fmt = "yyyy MM dd HH mm ss SSS z";
// 1970-01-02T00:00:01.234Z, as Kafka's TimestampConverterTest uses it.
const std::string text = R"("1970 01 02 00 00 01 234 UTC")";

std::map<std::string, std::string> to(std::string target, std::map<std::string, std::string> more = {}) {
  more["target.type"] = std::move(target);
  return more;
}

void run_table(const std::vector<Case>& cases, bool schemas) {
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto o = run_smt(type, c.config, Record{.value = c.value}, schemas);
      BOOST_TEST(matches(o.summary(), c.expected), o.summary() << " != " << c.expected);
    }
  }
}

std::string logical(const char* json_type, const char* name, bool optional = false) {
  return std::string(R"({"type":")") + json_type + R"(","optional":)" + (optional ? "true" : "false")
         + R"(,"name":"org.apache.kafka.connect.data.)" + name + R"(","version":1})";
}
const std::string ts_schema = logical("int64", "Timestamp");
const std::string date_schema = logical("int32", "Date");
const std::string time_schema = logical("int32", "Time");
const std::string int64_schema = R"({"type":"int64","optional":false})";
const std::string string_schema = R"({"type":"string","optional":false})";

} // namespace

BOOST_AUTO_TEST_SUITE(timestamp_converter)

BOOST_AUTO_TEST_CASE(schemaless_chain_reads_its_own_output_as_a_date) {
  // Connect holds a schemaless Date/Time/Timestamp result as a java.util.Date, which the
  // next TimestampConverter reads as a Timestamp: unix seconds convert it to seconds.
  std::map<std::string, std::string> config{{"transforms", "d,u"},
                                            {"transforms.d.type", type},
                                            {"transforms.d.target.type", "Date"},
                                            {"transforms.d.field", "ts"},
                                            {"transforms.u.type", type},
                                            {"transforms.u.target.type", "unix"},
                                            {"transforms.u.unix.precision", "seconds"},
                                            {"transforms.u.field", "ts"}};
  auto o = run_chain(config, Record{.value = R"({"ts":86401234})"}, false);
  BOOST_TEST(o.error == "");
  BOOST_TEST(o.value == R"({"ts":86400})");
  config["transforms.d.target.type"] = "Timestamp";
  BOOST_TEST(run_chain(config, Record{.value = R"({"ts":86401234})"}, false).value == R"({"ts":86401})");
  config["transforms.d.target.type"] = "unix"; // a Long stays a Long: read as unix seconds
  BOOST_TEST(run_chain(config, Record{.value = R"({"ts":86401})"}, false).value == R"({"ts":86401})");
}

BOOST_AUTO_TEST_CASE(schemaless) {
  run_table({
                {"unix to Timestamp (identity)", to("Timestamp"), "86401234", "86401234"},
                {"to Date: midnight, as epoch millis", to("Date"), "86401234", "86400000"},
                {"to Time: millis of the day", to("Time"), "86401234", "1234"},
                {"to unix", to("unix"), "86401234", "86401234"},
                {"to string", to("string", {{"format", fmt}}), "86401234", text},
                {"string to Timestamp", to("Timestamp", {{"format", fmt}}), text, "86401234"},
                {"string to unix seconds", to("unix", {{"format", fmt}, {"unix.precision", "seconds"}}), text,
                 "86401"},
                {"string to unix micros loses nothing it had", to("unix", {{"format", fmt}, {"unix.precision",
                                                                                            "microseconds"}}),
                 text, "86401234000"},
                {"string to unix nanos", to("unix", {{"format", fmt}, {"unix.precision", "nanoseconds"}}), text,
                 "86401234000000"},
                {"unix seconds in", to("Timestamp", {{"unix.precision", "seconds"}}), "86401", "86401000"},
                {"unix micros in (truncated)", to("Timestamp", {{"unix.precision", "microseconds"}}), "86401234123",
                 "86401234"},
                {"unix nanos in (truncated)", to("Timestamp", {{"unix.precision", "nanoseconds"}}),
                 "86401234123456", "86401234"},
                {"before the epoch to Date", to("Date"), "-1", "-86400000"},
                {"before the epoch to Time", to("Time"), "-1", "86399999"},
                {"string to string reformats", to("string", {{"format", "yyyy-MM-dd"}}), R"("2024-13-01")",
                 R"("2025-01-01")"},
                {"json null", to("Date"), "null", "null"},
                {"tombstone", to("Date", {{"field", "ts"}}), std::nullopt, "null"},
                {"field", to("Date", {{"field", "ts"}}), R"({"ts":86401234,"other":"x"})",
                 R"({"ts":86400000,"other":"x"})"},
                {"null field stays null", to("Date", {{"field", "ts"}}), R"({"ts":null})", R"({"ts":null})"},
                {"missing field is added as null", to("Date", {{"field", "ts"}}), R"({"other":1})",
                 R"({"other":1,"ts":null})"},
                {"V2 nested field", to("string", {{"field", "a.ts"}, {"field.syntax.version", "V2"}, {"format",
                                                                                                       "yyyy"}}),
                 R"({"a":{"ts":86401234},"b":1})", R"({"a":{"ts":"1970"},"b":1})"},
                {"V1 takes dots literally", to("string", {{"field", "a.ts"}, {"format", "yyyy"}}),
                 R"({"a.ts":0,"a":{"ts":1}})", R"({"a.ts":"1970","a":{"ts":1}})"},
                {"V2 missing parent: unchanged", to("Date", {{"field", "a.ts"}, {"field.syntax.version", "V2"}}),
                 R"({"b":1})", R"({"b":1})"},
                {"a double is not a timestamp", to("Date"), "1.5",
                 "error: TimestampConverter does not support class java.lang.Double objects as timestamps"},
                {"a boolean field is not a timestamp", to("Date", {{"field", "ts"}}), R"({"ts":true})",
                 "error: TimestampConverter does not support class java.lang.Boolean objects as timestamps"},
                {"unparsable string", to("unix", {{"format", "yyyy-MM-dd"}}), R"("15/01/2024")",
                 "error: Could not parse timestamp: value (15/01/2024) does not match pattern (yyyy-MM-dd)"},
                {"string without a format", to("unix"), R"("2024")",
                 "error: TimestampConverter requires format option to be specified when using string timestamps"},
                {"field on a non-map", to("Date", {{"field", "ts"}}), "[1]",
                 "error: Only Map objects supported in absence of schema for [converting timestamp formats], found: "
                 "java.util.ArrayList"},
            },
            false);
}

BOOST_AUTO_TEST_CASE(whole_value_with_schema) {
  const std::string opt_ts = logical("int64", "Timestamp", true);
  run_table({
                {"Timestamp to Timestamp", to("Timestamp"), envelope(ts_schema, "86401234"),
                 envelope(ts_schema, "86401234")},
                {"Timestamp to Date", to("Date"), envelope(ts_schema, "86401234"), envelope(date_schema, "1")},
                {"Timestamp to Time", to("Time"), envelope(ts_schema, "86401234"), envelope(time_schema, "1234")},
                {"Timestamp to unix", to("unix"), envelope(ts_schema, "86401234"), envelope(int64_schema, "86401234")},
                {"Timestamp to string", to("string", {{"format", fmt}}), envelope(ts_schema, "86401234"),
                 envelope(string_schema, text)},
                {"Date to Timestamp", to("Timestamp"), envelope(date_schema, "1"), envelope(ts_schema, "86400000")},
                {"Time to Timestamp", to("Timestamp"), envelope(time_schema, "1234"), envelope(ts_schema, "1234")},
                {"unix to Timestamp", to("Timestamp"), envelope(int64_schema, "86401234"),
                 envelope(ts_schema, "86401234")},
                {"string to Timestamp", to("Timestamp", {{"format", fmt}}), envelope(string_schema, text),
                 envelope(ts_schema, "86401234")},
                {"name and doc are not kept", to("unix"),
                 envelope(R"({"type":"int64","optional":false,"name":"my.Ts","doc":"d"})", "5"),
                 envelope(int64_schema, "5")},
                {"optional null keeps optionality", to("Date"), envelope(opt_ts, "null"),
                 envelope(logical("int32", "Date", true), "null")},
                {"int32 is no timestamp type", to("Date"), envelope(R"({"type":"int32","optional":false})", "5"),
                 "error: Schema Schema{INT32} does not correspond to a known timestamp type format"},
                {"even for a null value", to("Date"), envelope(R"({"type":"int32","optional":true})", "null"),
                 "error: Schema Schema{INT32} does not correspond to a known timestamp type format"},
            },
            true);
}

BOOST_AUTO_TEST_CASE(field_with_schema) {
  auto record_schema = [](const std::string& ts, bool optional = false) {
    return R"({"type":"struct","fields":[{)" + ts.substr(1, ts.size() - 2) + R"(,"field":"ts"},)"
           + R"({"type":"string","optional":false,"field":"other"}],"optional":)" + (optional ? "true" : "false")
           + R"(,"name":"R"})";
  };
  const std::string in = record_schema(int64_schema);
  const std::string out = record_schema(ts_schema);
  const std::string with_default = record_schema(R"({"type":"int64","optional":true,"default":0})");
  const std::string out_optional = record_schema(logical("int64", "Timestamp", true));
  const std::string nested =
      R"({"type":"struct","fields":[{"type":"struct","fields":[{"type":"int64","optional":false,"field":"ts"}],)"
      R"("optional":false,"name":"Inner","field":"a"}],"optional":false})";
  const std::string nested_out = R"({"type":"struct","fields":[{"type":"struct","fields":[{"type":"int32",)"
                                 R"("optional":false,"name":"org.apache.kafka.connect.data.Date","version":1,)"
                                 R"("field":"ts"}],"optional":false,"name":"Inner","field":"a"}],"optional":false})";
  run_table({
                {"field converted, others kept", to("Timestamp", {{"field", "ts"}}),
                 envelope(in, R"({"ts":86401234,"other":"test"})"),
                 envelope(out, R"({"ts":86401234,"other":"test"})")},
                {"unknown field: unchanged", to("Timestamp", {{"field", "nope"}}),
                 envelope(in, R"({"ts":1,"other":"x"})"), envelope(in, R"({"ts":1,"other":"x"})")},
                {"null field with a default takes it", to("Timestamp", {{"field", "ts"}}),
                 envelope(with_default, R"({"ts":null,"other":"x"})"),
                 envelope(out_optional, R"({"ts":0,"other":"x"})")},
                {"null struct keeps the derived schema", to("Timestamp", {{"field", "ts"}}),
                 envelope(record_schema(int64_schema, true), "null"),
                 envelope(record_schema(ts_schema, true), "null")},
                {"field of no timestamp type", to("Timestamp", {{"field", "other"}}),
                 envelope(R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"other"}],)"
                          R"("optional":false})",
                          R"({"other":1})"),
                 "error: Schema Schema{INT32} does not correspond to a known timestamp type format"},
                {"V2 nested field", to("Date", {{"field", "a.ts"}, {"field.syntax.version", "V2"}}),
                 envelope(nested, R"({"a":{"ts":86401234}})"), envelope(nested_out, R"({"a":{"ts":1}})")},
                {"not a struct", to("Date", {{"field", "ts"}}), envelope(int64_schema, "5"),
                 "error: Only Struct objects supported for [converting timestamp formats], found: java.lang.Long"},
            },
            true);
}

BOOST_AUTO_TEST_CASE(replace_null_with_default_off) {
  // The JsonConverter itself puts defaults in for nulls unless its own
  // replace.null.with.default is off (as Kafka's does), so turn both off here.
  const std::string in = R"({"type":"struct","fields":[{"type":"int64","optional":true,"default":0,"field":"ts"}],)"
                         R"("optional":false})";
  for (bool smt_replaces : {true, false}) {
    std::map<std::string, std::string> conv{{"schemas.enable", "true"}, {"replace.null.with.default", "false"}};
    weir::runtime::convert::RecordCodec codec(weir::runtime::convert::make_converter("JsonConverter", conv, true),
                                              weir::runtime::convert::make_converter("JsonConverter", conv, false));
    weir::Batch raw;
    std::string value = envelope(in, R"({"ts":null})");
    raw.append("t", 0, 1, 1, std::nullopt, std::string_view(value));
    auto batch = codec.decode(std::move(raw));
    weir::transforms::Chain::from_config({{"transforms", "c"},
                                          {"transforms.c.type", "TimestampConverter$Value"},
                                          {"transforms.c.field", "ts"},
                                          {"transforms.c.target.type", "string"},
                                          {"transforms.c.format", "yyyy"},
                                          {"transforms.c.replace.null.with.default", smt_replaces ? "true" : "false"}})
        .apply_all(batch);
    BOOST_REQUIRE(batch.errors().empty());
    const auto& ts = batch[0].value.fields()[0];
    if (smt_replaces)
      BOOST_TEST(ts.as_string() == "1970");
    else
      BOOST_TEST(ts.is_null());
  }
}

BOOST_AUTO_TEST_CASE(key_variant) {
  Record r{.value = R"({"v":1})", .key = "86401234"};
  auto o = run_smt("TimestampConverter$Key", to("Date"), r, false);
  BOOST_TEST(o.key == "86400000");
  BOOST_TEST(o.value == R"({"v":1})");
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_key) {
  auto key_of = [](std::map<std::string, std::string> own) -> std::string {
    try {
      run_smt(type, own, Record{.value = "1"}, false);
    } catch (const weir::ConfigError& e) {
      return e.key();
    }
    return "<none>";
  };
  BOOST_TEST(key_of({}) == "transforms.t.target.type");
  BOOST_TEST(key_of(to("invalid")) == "transforms.t.target.type");
  BOOST_TEST(key_of(to("date")) == "transforms.t.target.type"); // case matters, as in Kafka
  BOOST_TEST(key_of(to("unix", {{"unix.precision", "invalid"}})) == "transforms.t.unix.precision");
  BOOST_TEST(key_of(to("unix", {{"unix.precision", "seconds"}})) == "<none>");
  BOOST_TEST(key_of(to("string")) == "transforms.t.format");
  BOOST_TEST(key_of(to("string", {{"format", "  "}})) == "transforms.t.format");
  BOOST_TEST(key_of(to("string", {{"format", "bad-format"}})) == "transforms.t.format");
  BOOST_TEST(key_of(to("Date", {{"format", "yyyy'T"}})) == "transforms.t.format");
  BOOST_TEST(key_of(to("Date", {{"field", "`a"}, {"field.syntax.version", "V2"}})) == "transforms.t.field");
  BOOST_TEST(key_of(to("Date", {{"fromat", "yyyy"}})) == "transforms.t.fromat");
}

BOOST_AUTO_TEST_SUITE_END()
