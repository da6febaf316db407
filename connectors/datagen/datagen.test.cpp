#include "connectors/datagen/datagen.hpp"

#include <boost/test/unit_test.hpp>

#include <thread>

#include "engine/connector_registry.hpp"
#include "engine/plugins/source_adapter.hpp"
#include "runtime/connector_api/source_task.hpp"
#include "runtime/convert/json_converter.hpp"
#include "runtime/data/decoded_batch.hpp"

using namespace weir;
namespace datagen = weir::connectors::datagen;
namespace plugins = weir::engine::plugins;
using engine::find_source;
using runtime::connector_api::Form;
using runtime::connector_api::OffsetMap;
using runtime::connector_api::SourceRecords;
using PipelineTask = runtime::connector_api::SourceTask;

namespace {

/// A task made by name, as a worker makes it: through the registry, that is the
/// plugin loader's adapter around datagen::DatagenTask.
std::unique_ptr<PipelineTask> task_of(std::map<std::string, std::string> config, int task = 0) {
  config.try_emplace("name", "dg");
  config.try_emplace("connector.class", "DatagenConnector");
  const auto* plugin = find_source("DatagenConnector");
  BOOST_REQUIRE(plugin);
  return plugin->make_task(config, "dg", task);
}

/// Polls until `n` records (or the end), returning their values as JSON text.
std::vector<std::string> drain(PipelineTask& t, size_t n, PipelineTask::Status* last = nullptr) {
  runtime::convert::JsonConverter json({false, false, true, 1000});
  std::vector<std::string> values;
  for (int polls = 0; values.size() < n && polls < 10000; ++polls) {
    Batch raw;
    SourceRecords out{raw, 1 << 20, 1000};
    auto s = t.poll(out);
    runtime::data::DecodedBatch batch{std::move(raw)};
    for (uint32_t i = 0; i < batch.size(); ++i) {
      t.decode(batch, i);
      BOOST_REQUIRE(json.from_connect(batch[i].value, batch[i].value_schema, values.emplace_back()));
    }
    if (last)
      *last = s;
    if (s == PipelineTask::Status::end)
      break;
    if (s == PipelineTask::Status::idle)
      std::this_thread::sleep_for(std::chrono::milliseconds{1}); // as the poller waits
  }
  return values;
}

/// What a DatagenTask polls into, without the engine.
class Output final : public SourceOutput {
public:
  data::Arena& arena() noexcept override { return arena_; }
  bool has_room() const noexcept override { return records.size() < 100; }
  void add(SourceRecord record) override { records.push_back(std::move(record)); }
  size_t size() const noexcept override { return records.size(); }
  void set_offset(const SourceMap& partition, const SourceMap& offset) override {
    offsets[plugins::source_map_json(partition)] = plugins::source_map_json(offset);
  }

  std::vector<SourceRecord> records;
  OffsetMap offsets;

private:
  data::Arena arena_;
};

class NoOffsets final : public OffsetReader {
public:
  std::optional<SourceMap> offset(const SourceMap&) const override { return std::nullopt; }
  std::span<const SourceOffset> offsets() const override { return {}; }
};

} // namespace

BOOST_AUTO_TEST_SUITE(datagen_source)

BOOST_AUTO_TEST_CASE(every_quickstart_gives_values_of_realistic_size) {
  runtime::convert::JsonConverter json({false, false, true, 1000});
  data::Arena arena;
  for (auto q : {datagen::Quickstart::Users, datagen::Quickstart::Pageviews,
                 datagen::Quickstart::Orders, datagen::Quickstart::UserEvents}) {
    size_t total = 0;
    std::string text;
    for (uint64_t n = 0; n < 1000; ++n) {
      auto [key, value] = datagen::generate(q, 42, 0, n, arena);
      BOOST_TEST(!key.as_string().empty());
      text.clear(); // from_connect appends
      BOOST_REQUIRE(json.from_connect(value, datagen::value_schema(q).get(), text));
      total += text.size();
    }
    auto average = total / 1000;
    BOOST_TEST_MESSAGE("quickstart " << int(q) << ": " << average << " bytes per value");
    BOOST_TEST(average >= 150u);
    BOOST_TEST(average <= 250u);
  }
}

BOOST_AUTO_TEST_CASE(the_sdk_task_states_its_offset_as_kafka_connect_stores_it) {
  Config config = [] {
    ConfigDef def;
    datagen::DatagenConnector::define(def);
    return def.parse({{"kafka.topic", "t"}, {"quickstart", "users"}, {"iterations", "150"},
                      {"max.interval", "0"}, {"random.seed", "9"}});
  }();
  datagen::DatagenTask t;
  NoOffsets none;
  t.start(config, SourceContext{"dg", 2}, none);
  Output out;
  BOOST_TEST((t.poll(out) == SourceTask::Poll::Ready));
  BOOST_REQUIRE(out.records.size() == 100u);
  BOOST_TEST(out.records[0].topic == "t");
  BOOST_TEST(out.records[0].key_schema == data::schemas::string());
  BOOST_TEST(out.records[0].value_schema == datagen::value_schema(datagen::Quickstart::Users));
  BOOST_TEST(out.offsets == (OffsetMap{{R"({"task.id":2})", R"({"current.iteration":100})"}}));
  Output rest;
  BOOST_TEST((t.poll(rest) == SourceTask::Poll::End));
  BOOST_TEST(rest.records.size() == 50u);
  BOOST_TEST(t.next() == 150u);
}

BOOST_AUTO_TEST_CASE(values_carry_a_connect_schema) {
  // Confluent's datagen gives its values a schema, so JsonConverter with
  // schemas.enable=true writes an envelope that schema'd sinks can use.
  for (const auto& [quickstart, name] : std::vector<std::pair<std::string, std::string>>{
           {"users", "ksql.users"}, {"pageviews", "ksql.pageviews"}, {"orders", "ksql.orders"},
           {"user-events", "weir.user_events"}}) {
    BOOST_TEST_CONTEXT(quickstart) {
      auto t = task_of({{"kafka.topic", "t"}, {"quickstart", quickstart}, {"max.interval", "0"},
                        {"iterations", "5"}, {"random.seed", "3"}});
      BOOST_TEST(t->kind() == "datagen"); // its poller's name in the actor tree
      t->start({});
      Batch raw;
      SourceRecords out{raw, 1 << 20, 1000};
      t->poll(out);
      BOOST_REQUIRE(raw.size() == 5u);
      runtime::data::DecodedBatch batch;
      batch.reset(std::move(raw));
      for (uint32_t i = 0; i < batch.size(); ++i) {
        t->decode(batch, i);
        const auto& rec = batch[i];
        BOOST_REQUIRE(rec.value_schema != nullptr);
        BOOST_TEST(rec.value_schema->name().value_or("") == name);
        BOOST_TEST((rec.value.kind() == runtime::data::Kind::Struct));
        BOOST_REQUIRE(rec.key_schema != nullptr);
        BOOST_TEST((rec.key.kind() == runtime::data::Kind::String));
      }
      runtime::convert::JsonConverter json({true, false, true, 1000});
      std::string text;
      BOOST_REQUIRE(json.from_connect(batch[0].value, batch[0].value_schema, text));
      BOOST_TEST(text.starts_with(R"({"schema":{"type":"struct","fields":[)"), text);
      BOOST_TEST(text.find(R"("name":")" + name + "\"") != std::string::npos, text);
    }
  }
}

BOOST_AUTO_TEST_CASE(iterations_end_the_task_and_the_seed_decides_the_records) {
  auto a = task_of({{"kafka.topic", "t"}, {"quickstart", "orders"}, {"iterations", "250"},
                    {"max.interval", "0"}, {"random.seed", "7"}});
  a->start({});
  PipelineTask::Status last{};
  auto first = drain(*a, 1000, &last);
  BOOST_TEST(first.size() == 250u);
  BOOST_TEST((last == PipelineTask::Status::end));

  auto b = task_of({{"kafka.topic", "t"}, {"quickstart", "orders"}, {"iterations", "250"},
                    {"max.interval", "0"}, {"random.seed", "7"}});
  b->start({});
  BOOST_TEST(drain(*b, 1000) == first, boost::test_tools::per_element());

  auto c = task_of({{"kafka.topic", "t"}, {"quickstart", "orders"}, {"iterations", "250"},
                    {"max.interval", "0"}, {"random.seed", "8"}});
  c->start({});
  BOOST_TEST(drain(*c, 1000) != first);
}

BOOST_AUTO_TEST_CASE(the_sequence_is_the_one_earlier_versions_generated) {
  // Offsets stored before datagen moved to the SDK resume the same sequence.
  data::Arena arena;
  runtime::convert::JsonConverter json({false, false, true, 1000});
  std::string text;
  auto [key, value] = datagen::generate(datagen::Quickstart::Users, 42, 0, 0, arena);
  BOOST_TEST(key.as_string() == "User_531");
  BOOST_REQUIRE(json.from_connect(value, datagen::value_schema(datagen::Quickstart::Users).get(), text));
  BOOST_TEST(text == R"({"registertime":1759114348577,"userid":"User_531","regionid":"Region_2",)"
                     R"("gender":"MALE","name":"Dennis Hopper","email":"Dennis.Hopper531@example.com",)"
                     R"("plan":"pro","interests":["travel","movies"],"contactinfo":{"phone":"+1-555-8829"}})");
}

BOOST_AUTO_TEST_CASE(a_restart_continues_the_same_sequence) {
  std::map<std::string, std::string> config{{"kafka.topic", "t"}, {"quickstart", "users"},
                                            {"iterations", "100"}, {"max.interval", "0"},
                                            {"random.seed", "1"}};
  auto whole = task_of(config);
  whole->start({});
  auto all = drain(*whole, 100);
  auto resumed = task_of(config);
  resumed->start({{R"({"task.id":0})", R"({"current.iteration":60})"}});
  auto rest = drain(*resumed, 100);
  BOOST_REQUIRE(rest.size() == 40u);
  BOOST_TEST(rest.front() == all[60]);
  BOOST_TEST(rest.back() == all[99]);
}

BOOST_AUTO_TEST_CASE(max_interval_paces_the_records) {
  auto t = task_of({{"kafka.topic", "t"}, {"quickstart", "pageviews"}, {"max.interval", "50"},
                    {"random.seed", "3"}});
  t->start({});
  auto start = std::chrono::steady_clock::now();
  auto values = drain(*t, 20);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now()
                                                                  - start).count();
  BOOST_TEST_MESSAGE("20 records with max.interval=50 took " << ms << " ms");
  BOOST_TEST(values.size() == 20u);
  BOOST_TEST(ms >= 100); // 19 pauses of 0..50 ms: about 475 ms expected, never near 0
  BOOST_TEST(ms <= 20 * 50 + 500);
}

BOOST_AUTO_TEST_CASE(bad_config_names_the_key) {
  const auto* plugin = find_source("io.confluent.kafka.connect.datagen.DatagenConnector");
  BOOST_REQUIRE(plugin);
  BOOST_TEST(plugin->exactly_once);
  BOOST_TEST(plugin->version == WEIR_VERSION);
  BOOST_TEST(!plugin->plugin()); // a built-in, registered as a plugin is
  auto issues = plugin->validate({{"name", "x"}, {"connector.class", "DatagenConnector"},
                                  {"kafka.topic", "t"}, {"quickstart", "stocks"}});
  BOOST_REQUIRE(issues.size() == 1u);
  BOOST_TEST(issues[0].name == "quickstart");
  issues = plugin->validate({{"name", "x"}, {"kafka.topic", "t"}, {"quickstart", "users"},
                             {"max.intervall", "5"}});
  BOOST_REQUIRE(issues.size() == 1u);
  BOOST_TEST(issues[0].errors[0].find("max.interval") != std::string::npos);
  BOOST_TEST(plugin->task_configs({{"kafka.topic", "t"}, {"quickstart", "users"}}, 3).size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
