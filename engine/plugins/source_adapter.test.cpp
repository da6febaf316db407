// The source adapter: a plugin's SourceTask behind the pipeline's SourcePoller, as
// weir runs it. The plugin classes are defined here (the adapter does not care
// whether they came from dlopen): stored offsets reach start() through the
// OffsetReader, records arrive in the decoded batch with their schemas and headers
// and no JSON in between, offsets are stored as canonical JSON, and the plugin hears
// commit_records() and commit() only for what was delivered.
#include "engine/plugins/source_adapter.hpp"

#include <boost/test/unit_test.hpp>

#include "engine/connector_registry.hpp"
#include "engine/pipeline/error_policy.hpp"
#include "engine/pipeline/source_pipeline.hpp"
#include "runtime/data/decoded_batch.hpp"

using namespace weir;
namespace plugins = weir::engine::plugins;
using weir::data::Value;

namespace {

/// What the test's task was told, shared with the test.
struct Heard {
  std::optional<int64_t> resumed_after;
  uint64_t records_committed = 0;
  std::vector<std::vector<SourceOffset>> commits;
  std::vector<std::string> committed_n; ///< "stream=n" per commit
};
Heard heard;

class TestConnector : public SourceConnector {
public:
  static void define(ConfigDef& def) {
    def.define("topic", ConfigType::String, Importance::High, "Where records go.");
  }
  std::vector<TaskConfig> task_configs(const Config&, int) override { return {{}}; }
};

/// Counts n in stream "a": three records a poll, offset {"n": last}.
class TestTask : public weir::SourceTask {
public:
  void start(const Config& config, const SourceContext&, const OffsetReader& offsets) override {
    topic_ = config.get_string("topic");
    schema_ = data::SchemaBuilder::struct_().name("test.N").field("n", data::schemas::int64()).build();
    if (auto stored = offsets.offset({{"stream", Value::string("a")}}))
      for (const auto& [key, value] : *stored)
        if (key == "n") {
          heard.resumed_after = value.as_int();
          next_ = value.as_int() + 1;
        }
  }
  Poll poll(SourceOutput& out) override {
    for (int i = 0; i < 3; ++i) {
      SourceRecord r;
      r.topic = topic_;
      r.key = Value::string(out.copy("a"));
      r.key_schema = data::schemas::string();
      r.value = Value::structure(out.arena(), *schema_);
      r.value.fields()[0] = Value::int64(next_++);
      r.value_schema = schema_;
      r.timestamp = 1700000000000;
      r.headers.push_back({out.copy("origin"), Value::string(out.copy("test")), data::schemas::string()});
      out.add(std::move(r));
    }
    // Given in another key order than stored: the partition is the same.
    out.set_offset({{"stream", Value::string("a")}}, {{"n", Value::int64(next_ - 1)}, {"at", Value::boolean(true)}});
    return Poll::Ready;
  }
  void commit_records(uint64_t count) override { heard.records_committed += count; }
  void commit(std::span<const SourceOffset> committed) override {
    heard.commits.emplace_back(committed.begin(), committed.end());
    for (const auto& o : committed)
      for (const auto& [key, value] : o.offset)
        if (key == "n")
          heard.committed_n.push_back(std::string{o.partition.at(0).second.as_string()} + "="
                                      + std::to_string(value.as_int()));
  }

private:
  std::string topic_;
  data::SchemaPtr schema_;
  int64_t next_ = 1;
};

plugins::LoadedSource test_source() {
  SourceDescriptor d{"test.TestSourceConnector", {}, "0.1", [](ConfigDef& def) { TestConnector::define(def); },
                     [] { return std::unique_ptr<SourceConnector>(new TestConnector()); },
                     [] { return std::unique_ptr<weir::SourceTask>(new TestTask()); }};
  ConfigDef def;
  d.define(def);
  return {std::move(d), std::move(def), "test"};
}

std::shared_ptr<engine::pipeline::ErrorPolicy> no_tolerance() {
  ConfigDef errors;
  engine::pipeline::ErrorPolicy::define(errors);
  return std::make_shared<engine::pipeline::ErrorPolicy>(errors.parse({}), "c", 0,
                                                          std::map<std::string, std::string>{});
}

} // namespace

BOOST_AUTO_TEST_SUITE(source_adapter)

BOOST_AUTO_TEST_CASE(partitions_and_offsets_are_canonical_json) {
  BOOST_TEST(plugins::source_map_json({{"b", Value::int32(2)}, {"a", Value::string("x\"y")}})
             == R"({"a":"x\"y","b":2})");
  BOOST_TEST(plugins::source_map_json({{"ok", Value::boolean(false)}, {"none", Value{}}})
             == R"({"none":null,"ok":false})");
  data::Arena arena;
  try {
    plugins::source_map_json({{"nested", Value::map(arena, 1)}});
    BOOST_FAIL("a map value was accepted");
  } catch (const std::invalid_argument& e) {
    BOOST_TEST(std::string{e.what()}.find("nested") != std::string::npos, e.what());
  }
  // Stored text (e.g. written by Kafka Connect, keys in any order) parses back, and
  // compares equal to the plugin's own map whatever the integer width.
  auto parsed = plugins::parse_source_map(R"({ "n" : 7, "file": "a.log" })", arena);
  BOOST_TEST(plugins::same_source_map(parsed, {{"file", Value::string("a.log")}, {"n", Value::int32(7)}}));
  BOOST_TEST(!plugins::same_source_map(parsed, {{"file", Value::string("a.log")}, {"n", Value::int32(8)}}));
}

BOOST_AUTO_TEST_CASE(a_plugin_task_resumes_polls_values_and_hears_only_delivered_batches) {
  heard = {};
  auto source = test_source();
  auto task = std::make_unique<plugins::SourceAdapter>(source, std::map<std::string, std::string>{{"topic", "t"}},
                                                       "c", 0);
  // Stored by an earlier run (the standalone file or the offsets topic).
  task->start({{R"({"stream":"a"})", R"({"at":true,"n":5})"}});
  BOOST_TEST(heard.resumed_after.value_or(-1) == 5);

  auto offsets = std::make_shared<runtime::connector_api::SourceOffsets>();
  engine::pipeline::SourcePoller poller(std::move(task), offsets, no_tolerance());
  runtime::data::DecodedBatch batch;
  BOOST_REQUIRE(poller.fill(batch, 1 << 20) == engine::pipeline::SourcePoller::Status::ready);
  BOOST_REQUIRE(batch.size() == 3u);
  BOOST_TEST(batch.errors().size() == 0u);
  const auto& r = batch[0];
  BOOST_TEST(r.topic == "t");
  BOOST_TEST(r.timestamp == 1700000000000);
  BOOST_TEST(r.key.as_string() == "a");
  BOOST_REQUIRE(r.value_schema != nullptr);
  BOOST_TEST(r.value_schema->name().value_or("") == "test.N");
  BOOST_TEST(r.value.field("n")->as_int() == 6); // after the stored 5
  BOOST_TEST(batch[2].value.field("n")->as_int() == 8);
  BOOST_REQUIRE(r.headers.size() == 1u);
  BOOST_TEST(r.headers[0].key == "origin");
  BOOST_TEST(r.headers[0].value.as_string() == "test");

  // The batch's offsets, as canonical JSON (keys sorted).
  BOOST_TEST(offsets->through(1).at(R"({"stream":"a"})") == R"({"at":true,"n":8})");

  poller.fill(batch, 1 << 20); // batch 2: n 9..11, which reuses `batch`
  BOOST_TEST(batch[0].value.field("n")->as_int() == 9);
  BOOST_TEST(heard.records_committed == 0u);
  offsets->delivered(2);
  poller.fill(batch, 1 << 20);
  BOOST_TEST(heard.records_committed == 0u); // batch 2 waits for batch 1
  offsets->delivered(1);
  poller.fill(batch, 1 << 20);
  BOOST_TEST(heard.records_committed == 6u);
  BOOST_REQUIRE(heard.committed_n.size() == 1u);
  BOOST_TEST(heard.committed_n[0] == "a=11");
}

BOOST_AUTO_TEST_CASE(a_bad_key_fails_the_task_naming_it) {
  auto source = test_source();
  try {
    plugins::SourceAdapter task(source, {{"topic", "t"}, {"tpoic", "typo"}}, "c", 0);
    BOOST_FAIL("an unknown key was accepted");
  } catch (const ConfigError& e) {
    BOOST_TEST(e.key() == "tpoic", e.what());
  }
}

BOOST_AUTO_TEST_SUITE_END()
