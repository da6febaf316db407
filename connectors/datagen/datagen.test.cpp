#include "connectors/datagen/datagen.hpp"

#include <boost/test/unit_test.hpp>

#include <set>
#include <thread>

#include "engine/connector_registry.hpp"
#include "runtime/convert/json_converter.hpp"
#include "runtime/convert/json_fast_decode.hpp"
#include "engine/pipeline/source_config.hpp"

using namespace weir;
using namespace weir::connectors;
using namespace weir::engine;
using namespace weir::engine::pipeline;
using namespace weir::runtime::connector_api;

namespace {

std::unique_ptr<SourceTask> task_of(std::map<std::string, std::string> config, int task = 0) {
  config.try_emplace("name", "dg");
  config.try_emplace("connector.class", "DatagenConnector");
  const auto* plugin = find_source("DatagenConnector");
  BOOST_REQUIRE(plugin);
  return plugin->make_task(config, "dg", task);
}

/// Polls until `n` records (or the end), returning their values.
std::vector<std::string> drain(SourceTask& t, size_t n, SourceTask::Status* last = nullptr) {
  std::vector<std::string> values;
  for (int polls = 0; values.size() < n && polls < 10000; ++polls) {
    Batch raw;
    SourceRecords out{raw, 1 << 20, 1000};
    auto s = t.poll(out);
    for (const auto& r : raw.records())
      values.emplace_back(raw.bytes(r.value));
    if (last)
      *last = s;
    if (s == SourceTask::Status::end)
      break;
    if (s == SourceTask::Status::idle)
      std::this_thread::sleep_for(std::chrono::milliseconds{1}); // as the poller waits
  }
  return values;
}

} // namespace

BOOST_AUTO_TEST_SUITE(datagen_source)

BOOST_AUTO_TEST_CASE(every_quickstart_gives_valid_json_of_realistic_size) {
  runtime::data::Arena arena;
  runtime::convert::FastJsonDecoder json;
  for (auto q : {datagen::Quickstart::Users, datagen::Quickstart::Pageviews,
                 datagen::Quickstart::Orders, datagen::Quickstart::UserEvents}) {
    std::string key, value;
    size_t total = 0;
    for (uint64_t n = 0; n < 1000; ++n) {
      datagen::render(q, 42, 0, n, key, value);
      BOOST_TEST(!key.empty());
      auto v = json.decode(value, arena);
      BOOST_TEST((v.kind() == runtime::data::Kind::Map));
      total += value.size();
    }
    auto average = total / 1000;
    BOOST_TEST_MESSAGE("quickstart " << int(q) << ": " << average << " bytes per value");
    BOOST_TEST(average >= 150u);
    BOOST_TEST(average <= 250u);
  }
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
      t->start({});
      BOOST_TEST((t->value_form() == Form::Custom));
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
  SourceTask::Status last{};
  auto first = drain(*a, 1000, &last);
  BOOST_TEST(first.size() == 250u);
  BOOST_TEST((last == SourceTask::Status::end));

  auto b = task_of({{"kafka.topic", "t"}, {"quickstart", "orders"}, {"iterations", "250"},
                    {"max.interval", "0"}, {"random.seed", "7"}});
  b->start({});
  BOOST_TEST(drain(*b, 1000) == first, boost::test_tools::per_element());

  auto c = task_of({{"kafka.topic", "t"}, {"quickstart", "orders"}, {"iterations", "250"},
                    {"max.interval", "0"}, {"random.seed", "8"}});
  c->start({});
  BOOST_TEST(drain(*c, 1000) != first);
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
  auto issues = plugin->validate({{"name", "x"}, {"connector.class", "DatagenConnector"},
                                  {"kafka.topic", "t"}, {"quickstart", "stocks"}});
  BOOST_REQUIRE(issues.size() == 1u);
  BOOST_TEST(issues[0].name == "quickstart");
  issues = plugin->validate({{"name", "x"}, {"kafka.topic", "t"}, {"quickstart", "users"},
                             {"max.intervall", "5"}});
  BOOST_REQUIRE(issues.size() == 1u);
  BOOST_TEST(issues[0].errors[0].find("max.interval") != std::string::npos);
  BOOST_TEST(plugin->task_configs({{"kafka.topic", "t"}}, 3).size() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
