// Transformation, predicate and converter plugins end to end (issue 25, "What it must
// show" 1, 2 and 5 for these kinds), against the real broker:
//
//  1. weir is installed into a temporary directory, examples/transform-plugin is built
//     out of tree against it with pkg-config only, and the installed weir runs its
//     ConcatFields transformation under its FieldEquals predicate: offline in
//     `weir transform --plugin-path` (schemaless and struct values, a bad record
//     reported by line), and in a FileStreamSink connector over records from Kafka;
//  2. the plugin's classes are listed by `GET /connector-plugins?connectorsOnly=false`
//     with their version and config keys, and `/config/validate` names their bad keys;
//  5. a plugin with a transformation, a predicate, a converter and a header converter
//     built against another SDK version is refused at start, by `weir transform` and by `weir standalone`,
//     with both versions named;
// and a converter plugin (tests/plugins/kv_line_converter.cpp) decodes and encodes
// records in a connector and offline, its bad records reaching the dead-letter topic;
// a header converter plugin named in the worker's config writes a source's headers
// (its decoding and bad headers: runtime/convert/codec.test.cpp).
#include "tests/support/sdk_install.hpp"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace weir::testing;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

namespace {

const char* const schemaless_config = R"(
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
value.converter.schemas.enable=SCHEMAS
errors.tolerance=all
predicates=gold
predicates.gold.type=FieldEquals
predicates.gold.field=tier
predicates.gold.value=gold
transforms=concat
transforms.concat.type=com.example.weir.ConcatFields
transforms.concat.fields=first,last
transforms.concat.target=full
transforms.concat.predicate=gold
)";

std::string config_text(bool schemas) {
  return std::regex_replace(std::string(schemaless_config), std::regex("SCHEMAS"), schemas ? "true" : "false");
}

struct Run {
  ExitStatus status;
  std::string out, err;
};

/// `BIN transform --plugin-path PLUGINS --config CONFIG --input INPUT`, stdout and
/// stderr apart (LD_LIBRARY_PATH removed, as for start_weir).
Run weir_transform(const std::string& bin, const std::string& plugins, const std::string& config,
                   const std::string& input, const TempDir& dir, const std::string& name) {
  auto out = dir / (name + ".out"), err = dir / (name + ".err");
  auto command = "exec /usr/bin/env -u LD_LIBRARY_PATH '" + bin + "' transform --plugin-path '" + plugins
                 + "' --config '" + config + "' --input '" + input + "' >'" + out + "' 2>'" + err + "'";
  ChildProcess child({"/bin/sh", "-c", command}, dir / (name + ".log"));
  auto status = child.wait(60s);
  BOOST_REQUIRE_MESSAGE(status.has_value(), "weir transform did not end within 60 s");
  return {*status, read_file(out), read_file(err)};
}

std::string write_file(const TempDir& dir, const std::string& name, const std::string& text) {
  auto path = dir / name;
  std::ofstream(path) << text;
  return path;
}

std::string user_json(size_t i) {
  return R"({"first":"f)" + std::to_string(i) + R"(","last":"l)" + std::to_string(i) + R"(","tier":")"
         + (i % 2 == 0 ? "gold" : "silver") + R"("})";
}

std::string http(uint16_t port, const std::string& method, const std::string& target, const std::string& body,
                 int* status = nullptr) {
  weir::runtime::rest::test::TestClient client{port};
  auto response = client.request(method, target, body);
  BOOST_TEST_MESSAGE(method << " " << target << " -> " << response.status << " " << response.body);
  if (status)
    *status = response.status;
  return response.body;
}

} // namespace

BOOST_AUTO_TEST_SUITE(sdk_transforms)

BOOST_AUTO_TEST_CASE(the_example_plugin_transforms_offline_and_in_a_connector_and_is_listed) {
  const size_t n = 2000;
  TempDir dir{"weir-itest-sdk-smt"};
  auto log = dir / "commands.log";
  TempDir root{"weir-itest-sdk-smt-install"};
  auto installed = install_weir(root.path(), log);
  auto library = build_example(installed, "transform-plugin", dir / "example-build",
                               "libweir-transform-plugin.so", log);
  auto plugins = dir / "plugins";
  fs::create_directories(plugins + "/transform-plugin");
  fs::copy_file(library, plugins + "/transform-plugin/libweir-transform-plugin.so");

  // Offline, schemaless: the predicate picks gold records; a non-string field is a
  // bad record, reported by line and left out (errors.tolerance=all); a missing
  // field is skipped.
  auto input = write_file(dir, "users.jsonl", R"({"topic":"users","partition":0,"offset":1,"timestamp":1700000000000,"key":"u1","value":{"first":"Ada","last":"Lovelace","tier":"gold"}}
{"topic":"users","partition":0,"offset":2,"timestamp":1700000000000,"key":"u2","value":{"first":"Alan","last":"Turing","tier":"silver"}}
{"topic":"users","partition":0,"offset":3,"timestamp":1700000000000,"key":"u3","value":{"first":"Grace","last":42,"tier":"gold"}}
{"topic":"users","partition":0,"offset":4,"timestamp":1700000000000,"key":"u4","value":{"first":"Edsger","tier":"gold"}}
)");
  auto offline = weir_transform(installed.bin, plugins, write_file(dir, "a.properties", config_text(false)), input,
                                dir, "schemaless");
  BOOST_TEST(offline.status.clean(), offline.status.describe() << ": " << offline.err);
  BOOST_TEST(offline.out == R"({"topic":"users","partition":0,"offset":1,"timestamp":1700000000000,"key":"u1","value":{"first":"Ada","last":"Lovelace","tier":"gold","full":"Ada-Lovelace"},"headers":[]}
{"topic":"users","partition":0,"offset":2,"timestamp":1700000000000,"key":"u2","value":{"first":"Alan","last":"Turing","tier":"silver"},"headers":[]}
{"topic":"users","partition":0,"offset":4,"timestamp":1700000000000,"key":"u4","value":{"first":"Edsger","tier":"gold","full":"Edsger"},"headers":[]}
)");
  BOOST_TEST(offline.err.find("line 3: TRANSFORMATION com.example.weir.ConcatFields: "
                              "org.apache.kafka.connect.errors.DataException: ConcatFields: field last is "
                              "int64, not a string")
               != std::string::npos,
             offline.err);
  BOOST_TEST(offline.err.find("loaded transformation plugin com.example.weir.ConcatFields version 1.0.0")
               != std::string::npos,
             offline.err);

  // Offline, a struct: the derived schema gains an optional string field.
  const std::string schema =
    R"({"type":"struct","name":"User","optional":false,"fields":[{"field":"first","type":"string","optional":false},)"
    R"({"field":"last","type":"string","optional":true},{"field":"tier","type":"string","optional":false}]})";
  auto struct_input = write_file(dir, "structs.jsonl",
    R"({"topic":"users","partition":0,"offset":1,"timestamp":1700000000000,"key":"u1","value":{"schema":)" + schema
    + R"(,"payload":{"first":"Ada","last":null,"tier":"gold"}}})" + "\n");
  auto structs = weir_transform(installed.bin, plugins, write_file(dir, "b.properties", config_text(true)),
                                struct_input, dir, "struct");
  BOOST_TEST(structs.status.clean(), structs.status.describe() << ": " << structs.err);
  BOOST_TEST(structs.out.find(R"({"type":"string","optional":true,"field":"full"}],"optional":false,"name":"User"})")
               != std::string::npos,
             structs.out);
  BOOST_TEST(structs.out.find(R"("payload":{"first":"Ada","last":null,"tier":"gold","full":"Ada"})")
               != std::string::npos,
             structs.out);

  // In a connector, over records from the broker.
  auto topic = unique_name("weir-itest-sdk-smt");
  create_topic(topic, 2);
  produce(topic, n, [&](size_t i) { return OutRecord{static_cast<int32_t>(i % 2), "u" + std::to_string(i), user_json(i)}; });
  auto worker = write_worker(dir, plugins);
  auto out_file = dir / "out.txt";
  auto connector_config = std::map<std::string, std::string>{
    {"connector.class", "FileStreamSink"}, {"tasks.max", "2"}, {"topics", topic}, {"file", out_file},
    {"value.converter", "org.apache.kafka.connect.json.JsonConverter"}, {"value.converter.schemas.enable", "false"},
    {"predicates", "gold"}, {"predicates.gold.type", "com.example.weir.FieldEquals"},
    {"predicates.gold.field", "tier"}, {"predicates.gold.value", "gold"}, {"transforms", "concat"},
    {"transforms.concat.type", "ConcatFields"}, {"transforms.concat.fields", "first,last"},
    {"transforms.concat.target", "full"}, {"transforms.concat.predicate", "gold"}};
  auto connector = write_connector(dir, unique_name("smt"), connector_config);
  auto weir = start_weir(installed.bin, worker, {connector}, dir / "weir.log");
  bool all = wait_until(90s, 200ms, [&] { return fs::exists(out_file) && count_lines(out_file) >= n; });
  BOOST_TEST(all, "the sink wrote " << (fs::exists(out_file) ? count_lines(out_file) : 0) << " of " << n
                                    << " lines:\n" << tail_lines(weir->output()));
  // FileStreamSink prints a map as Java does: {first=f1, last=l1, tier=gold, full=f1-l1}.
  std::regex gold(R"(^\{first=f(\d+), last=l\1, tier=gold, full=f\1-l\1\}$)");
  std::regex silver(R"(^\{first=f(\d+), last=l\1, tier=silver\}$)");
  size_t golds = 0, silvers = 0, other = 0;
  std::istringstream lines(read_file(out_file));
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, gold) && std::stoul(m[1]) % 2 == 0)
      ++golds;
    else if (std::regex_match(line, m, silver) && std::stoul(m[1]) % 2 == 1)
      ++silvers;
    else if (other++ == 0)
      BOOST_TEST_MESSAGE("unexpected line: " << line);
  }
  BOOST_TEST(golds == n / 2);
  BOOST_TEST(silvers == n / 2);
  BOOST_TEST(other == 0u);

  // The REST API lists the plugin's classes with their version and keys, and
  // validation names a bad key of theirs.
  auto port = rest_port(*weir);
  auto list = http_get(port, "/connector-plugins?connectorsOnly=false");
  BOOST_TEST(list.find(R"({"class":"com.example.weir.ConcatFields","type":"transformation","version":"1.0.0"})")
               != std::string::npos,
             list);
  BOOST_TEST(list.find(R"({"class":"com.example.weir.FieldEquals","type":"predicate","version":"1.0.0"})")
               != std::string::npos,
             list);
  auto keys = http_get(port, "/connector-plugins/com.example.weir.ConcatFields/config");
  for (const char* key : {R"("name":"fields")", R"("name":"separator")", R"("name":"target")"})
    BOOST_TEST(keys.find(key) != std::string::npos, keys);
  int status = 0;
  auto validated = http(port, "PUT", "/connector-plugins/FileStreamSink/config/validate",
                        R"({"connector.class":"FileStreamSink","name":"v","topics":"t","transforms":"concat",)"
                        R"("transforms.concat.type":"com.example.weir.ConcatFields","transforms.concat.fields":"first"})",
                        &status);
  BOOST_TEST(status == 200);
  BOOST_TEST(validated.find(R"("error_count":1)") != std::string::npos, validated);
  BOOST_TEST(validated.find(R"("value":{"name":"transforms.concat.target","value":null,"recommended_values":[],)"
                            R"("errors":["Missing required configuration \"transforms.concat.target\" which has no )"
                            R"(default value."])")
               != std::string::npos,
             validated);
  stop_cleanly(*weir);
  if (current_test_failing())
    dir.keep();
}

BOOST_AUTO_TEST_CASE(a_converter_plugin_decodes_and_encodes_and_its_bad_records_reach_the_dlq) {
  const size_t n = 1000;
  auto malformed = [](size_t i) { return i % 100 == 3; }; // 10 records
  TempDir dir{"weir-itest-sdk-converter"};
  auto plugins = dir / "plugins";
  fs::create_directories(plugins);
  fs::copy_file(env_path("WEIR_KV_LINE_CONVERTER"), plugins + "/libkv.so");

  // Offline: decode, an SMT, encode, with the plugin as the value converter.
  auto config = write_file(dir, "kv.properties", R"(
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=KvLine
value.converter.separator=;
transforms=insert
transforms.insert.type=InsertField$Value
transforms.insert.static.field=pipeline
transforms.insert.static.value=weir
)");
  auto input = write_file(dir, "kv.jsonl", R"({"topic":"t","offset":0,"value":"a=1;b=2"})" "\n");
  auto offline = weir_transform(weir_binary(), plugins, config, input, dir, "offline");
  BOOST_TEST(offline.status.clean(), offline.status.describe() << ": " << offline.err);
  BOOST_TEST(offline.out.find(R"("value":"a=1;b=2;pipeline=weir")") != std::string::npos, offline.out);

  // In a connector: FileStreamSink prints the decoded maps; malformed values go to
  // the dead-letter topic, named by the converter's stage and class.
  auto topic = unique_name("weir-itest-sdk-kv");
  auto dlq = unique_name("weir-itest-sdk-kv-dlq");
  create_topic(topic, 2);
  produce(topic, n, [&](size_t i) {
    auto id = std::to_string(i);
    return OutRecord{static_cast<int32_t>(i % 2), "k" + id, malformed(i) ? "garbage " + id : "id=" + id + ";name=n" + id};
  });
  auto name = unique_name("kv");
  auto out_file = dir / "out.txt";
  auto connector = write_connector(dir, name, {{"connector.class", "FileStreamSink"},
                                               {"topics", topic},
                                               {"file", out_file},
                                               {"value.converter", "com.example.weir.KvLineConverter"},
                                               {"errors.tolerance", "all"},
                                               {"errors.deadletterqueue.topic.name", dlq},
                                               {"errors.deadletterqueue.topic.replication.factor", "1"},
                                               {"errors.deadletterqueue.context.headers.enable", "true"}});
  auto weir = start_weir(weir_binary(), write_worker(dir, plugins), {connector}, dir / "weir.log");
  const size_t good = n - n / 100;
  bool written = wait_until(90s, 200ms, [&] { return fs::exists(out_file) && count_lines(out_file) >= good; });
  BOOST_TEST(written, (fs::exists(out_file) ? count_lines(out_file) : 0) << " of " << good << " lines:\n"
                                                                          << tail_lines(weir->output()));
  std::regex line(R"(^\{id=(\d+), name=n\1\}$)");
  size_t matching = 0;
  std::istringstream lines(read_file(out_file));
  for (std::string l; std::getline(lines, l);)
    matching += std::regex_match(l, line) ? 1 : 0;
  BOOST_TEST(matching == good);
  auto dead = read_topic(dlq, n / 100, 60s);
  BOOST_REQUIRE_EQUAL(dead.size(), n / 100);
  for (const auto& r : dead) {
    BOOST_TEST(r.value.value_or("").starts_with("garbage "));
    BOOST_TEST(r.header("__connect.errors.stage") == "VALUE_CONVERTER");
    BOOST_TEST(r.header("__connect.errors.class.name") == "com.example.weir.KvLineConverter");
    BOOST_TEST(r.header("__connect.errors.exception.message").find("is not key=value") != std::string::npos);
  }
  auto list = http_get(rest_port(*weir), "/connector-plugins?connectorsOnly=false");
  BOOST_TEST(list.find(R"({"class":"com.example.weir.KvLineConverter","type":"converter","version":"2.1.0"})")
               != std::string::npos,
             list);
  stop_cleanly(*weir);
  if (current_test_failing())
    dir.keep();
}

BOOST_AUTO_TEST_CASE(a_worker_s_header_converter_plugin_writes_a_source_s_headers) {
  TempDir dir{"weir-itest-sdk-headers"};
  auto plugins = dir / "plugins";
  fs::create_directories(plugins);
  fs::copy_file(env_path("WEIR_KV_LINE_CONVERTER"), plugins + "/libkv.so");
  auto input = write_file(dir, "lines.txt", "one\ntwo\nthree\n");
  auto topic = unique_name("weir-itest-sdk-headers");
  auto connector = write_connector(dir, unique_name("lines"),
                                   {{"connector.class", "FileStreamSource"},
                                    {"file", input},
                                    {"topic", topic},
                                    {"transforms", "greet"},
                                    {"transforms.greet.type", "org.apache.kafka.connect.transforms.InsertHeader"},
                                    {"transforms.greet.header", "greeting"},
                                    {"transforms.greet.value.literal", "hello"}});
  // The worker's header converter (the connector names none): a plugin class in the
  // worker's config is known by the time the worker checks its keys.
  auto worker = worker_config(dir / "state.db");
  worker["plugin.path"] = plugins;
  worker["header.converter"] = "com.example.weir.Base64HeaderConverter";
  write_properties(dir / "worker.properties", worker);
  auto weir = start_weir(weir_binary(), dir / "worker.properties", {connector}, dir / "weir.log");
  auto records = read_topic(topic, 3, 60s);
  BOOST_REQUIRE_MESSAGE(records.size() == 3u, records.size() << " records:\n" << tail_lines(weir->output()));
  for (const auto& r : records)
    BOOST_TEST(r.header("greeting") == "aGVsbG8="); // base64 of "hello"
  auto list = http_get(rest_port(*weir), "/connector-plugins?connectorsOnly=false");
  BOOST_TEST(list.find(R"({"class":"com.example.weir.Base64HeaderConverter","type":"header_converter",)"
                       R"("version":"2.1.0"})")
               != std::string::npos,
             list);
  stop_cleanly(*weir);
  if (current_test_failing())
    dir.keep();
}

BOOST_AUTO_TEST_CASE(a_plugin_of_these_kinds_for_another_sdk_version_is_refused_naming_both) {
  TempDir dir{"weir-itest-sdk-smt-version"};
  auto plugins = dir / "plugins";
  fs::create_directories(plugins);
  auto plugin = plugins + "/libfuture-smt.so";
  fs::copy_file(env_path("WEIR_FUTURE_SDK_TRANSFORM"), plugin);
  auto theirs = "built against weir SDK version " + std::to_string(WEIR_SDK_VERSION + 1);
  auto ours = "this weir provides SDK version " + std::to_string(WEIR_SDK_VERSION);

  auto input = write_file(dir, "in.jsonl", R"({"topic":"t","value":{"a":"b"}})" "\n");
  auto offline = weir_transform(weir_binary(), plugins, write_file(dir, "a.properties", config_text(false)), input,
                                dir, "offline");
  BOOST_TEST(offline.status.exited);
  BOOST_TEST(offline.status.code == 1);
  BOOST_TEST(offline.out.empty(), offline.out);
  for (const auto& part : {plugin, theirs, ours})
    BOOST_TEST(offline.err.find(part) != std::string::npos, offline.err);

  auto worker = write_worker(dir, plugins);
  auto weir = start_weir(weir_binary(), worker, {}, dir / "weir.log");
  auto status = weir->wait(30s);
  BOOST_REQUIRE_MESSAGE(status.has_value(), "weir still runs with a refused plugin:\n" << tail_lines(weir->output()));
  BOOST_TEST(status->code == 1);
  auto output = weir->output();
  for (const auto& part : {plugin, theirs, ours})
    BOOST_TEST(output.find(part) != std::string::npos, output);
  if (current_test_failing())
    dir.keep();
}

BOOST_AUTO_TEST_SUITE_END()
