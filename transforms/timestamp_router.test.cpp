#include "transforms/timestamp_router.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

BOOST_AUTO_TEST_SUITE(timestamp_router)

BOOST_AUTO_TEST_CASE(table) {
  struct Row {
    const char* name;
    std::map<std::string, std::string> config;
    std::string topic;
    int64_t timestamp;
    std::string expected; ///< the topic, or "error: ..."
  };
  std::vector<Row> rows{
      {"defaults", {}, "test", 1483425001864, "test-20170103"},
      {"custom formats", {{"topic.format", "${timestamp}_${topic}_x"}, {"timestamp.format", "yyyy-MM'W'ww"}},
       "orders", 1483425001864, "2017-01W01_orders_x"},
      {"every placeholder replaced", {{"topic.format", "${topic}${topic}-${timestamp}${timestamp}"}}, "a",
       1483425001864, "aa-2017010320170103"},
      {"no placeholders", {{"topic.format", "fixed"}}, "a", 1483425001864, "fixed"},
      {"a topic holding ${timestamp} is expanded too", {{"topic.format", "${topic}"}}, "t${timestamp}", 0,
       "t19700101"},
      {"hours and zone", {{"timestamp.format", "yyyy-MM-dd_HH_Z"}}, "t", 1483425001864, "t-2017-01-03_06_+0000"},
      {"no timestamp is an error", {}, "t", -1, "error: Timestamp missing on record"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      for (bool schemas : {false, true}) {
        Record rec{.value = schemas ? envelope(R"({"type":"int32","optional":false})", "1") : "1",
                   .topic = r.topic,
                   .timestamp = r.timestamp};
        auto o = run_smt("org.apache.kafka.connect.transforms.TimestampRouter", r.config, rec, schemas);
        std::string got = o.error.empty() ? o.topic : "error: " + o.error;
        BOOST_TEST(matches(got, r.expected), got << " != " << r.expected);
        if (o.error.empty())
          BOOST_TEST(o.value == rec.value.value()); // the value is untouched
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(many_records_many_topics) {
  // The last-answer cache must not leak a topic from one record to the next.
  std::map<std::string, std::string> cfg{{"transforms", "r"}, {"transforms.r.type", "TimestampRouter"}};
  std::map<std::string, std::string> conv{{"schemas.enable", "false"}};
  weir::runtime::convert::RecordCodec codec(weir::runtime::convert::make_converter("JsonConverter", conv, true),
                                            weir::runtime::convert::make_converter("JsonConverter", conv, false));
  weir::Batch raw;
  raw.append("a", 0, 1, 0, std::nullopt, std::string_view("1"));
  raw.append("a", 0, 2, 0, std::nullopt, std::string_view("1"));
  raw.append("b", 0, 3, 0, std::nullopt, std::string_view("1"));
  raw.append("b", 0, 4, 86400000, std::nullopt, std::string_view("1"));
  auto batch = codec.decode(std::move(raw));
  weir::transforms::Chain::from_config(cfg).apply_all(batch);
  BOOST_TEST(batch[0].topic == "a-19700101");
  BOOST_TEST(batch[1].topic == "a-19700101");
  BOOST_TEST(batch[2].topic == "b-19700101");
  BOOST_TEST(batch[3].topic == "b-19700102");
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_key) {
  auto key_of = [](std::map<std::string, std::string> own) -> std::string {
    try {
      run_smt("TimestampRouter", own, Record{.value = "1"}, false);
    } catch (const weir::ConfigError& e) {
      return e.key();
    }
    return "<none>";
  };
  BOOST_TEST(key_of({{"timestamp.format", "bad"}}) == "transforms.t.timestamp.format");
  BOOST_TEST(key_of({{"topic.fromat", "x"}}) == "transforms.t.topic.fromat");
  BOOST_TEST(key_of({}) == "<none>");
  // No $Key / $Value variants.
  BOOST_TEST(key_of({}) == "<none>");
  try {
    run_smt("TimestampRouter$Value", {}, Record{.value = "1"}, false);
    BOOST_ERROR("TimestampRouter$Value resolved");
  } catch (const weir::ConfigError& e) {
    BOOST_TEST(e.key() == "transforms.t.type");
  }
}

BOOST_AUTO_TEST_SUITE_END()
