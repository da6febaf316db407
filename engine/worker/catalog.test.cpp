// The checks a connector config passes before anything of it runs (issue 19):
// a converter class that does not exist is refused at once with Kafka Connect's
// words, naming the key; an unknown key is reported once, with the nearest key of
// the connector's kind or its plugin; a connector file's problems come all at once.
#include "engine/worker/catalog.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "weir/config.hpp"

using namespace weir;
using namespace weir::engine::worker;

namespace {

const StringMap worker{{"exactly.once.source.support", "disabled"},
                       {"offset.storage.topic", "connect-offsets"},
                       {"bootstrap.servers", "127.0.0.1:9"}};

StringMap file_sink(StringMap extra = {}) {
  StringMap config{{"name", "files"}, {"connector.class", "FileStreamSink"}, {"topics", "orders"},
                   {"file", "/tmp/out.txt"}};
  for (auto& [k, v] : extra)
    config[k] = v;
  return config;
}

/// The errors /config/validate gives `key`; what it says of the others too.
std::vector<std::string> errors_of(const runtime::rest::ConfigInfos& infos, const std::string& key) {
  std::vector<std::string> errors;
  for (const auto& c : infos.configs)
    if (c.value.name == key)
      errors.insert(errors.end(), c.value.errors.begin(), c.value.errors.end());
  return errors;
}

std::string plan_error(const StringMap& config, std::string& key) {
  try {
    plan_connector(config.at("name"), config, worker);
  } catch (const ConfigError& e) {
    key = e.key();
    return e.what();
  }
  return {};
}

} // namespace

BOOST_AUTO_TEST_SUITE(worker_catalog)

BOOST_AUTO_TEST_CASE(a_converter_class_that_does_not_exist_is_refused_naming_the_key) {
  const std::string typo = "org.apache.kafka.connect.json.JsonConverterr";
  // Kafka Connect's words for a class it cannot load.
  const std::string expected = "Invalid value " + typo + " for configuration value.converter: Class " + typo
                               + " could not be found.";
  auto config = file_sink({{"value.converter", typo}});
  auto infos = validate_connector(config, worker);
  BOOST_TEST(infos.error_count == 1);
  BOOST_TEST(errors_of(infos, "value.converter") == std::vector<std::string>{expected});
  std::string key;
  BOOST_TEST(plan_error(config, key) == expected);
  BOOST_TEST(key == "value.converter");

  // A source's key.converter alike.
  StringMap source{{"name", "lines"}, {"connector.class", "FileStreamSource"}, {"topic", "lines"},
                   {"file", "/tmp/in.txt"}, {"key.converter", "Strng"}};
  BOOST_TEST(plan_error(source, key)
             == "Invalid value Strng for configuration key.converter: Class Strng could not be found.");
  BOOST_TEST(key == "key.converter");

  // Class names, aliases and empty (the worker's converter) pass.
  for (const std::string ok : {"org.apache.kafka.connect.storage.StringConverter", "StringConverter",
                               "ByteArray", ""}) {
    BOOST_TEST(validate_connector(file_sink({{"value.converter", ok}}), worker).error_count == 0, ok);
    BOOST_TEST(plan_error(file_sink({{"key.converter", ok}}), key).empty(), ok);
  }
}

BOOST_AUTO_TEST_CASE(a_header_converter_weir_lacks_is_refused_naming_the_key) {
  std::string key;
  for (const std::string ok : {"org.apache.kafka.connect.storage.SimpleHeaderConverter", "SimpleHeaderConverter", ""})
    BOOST_TEST(plan_error(file_sink({{"header.converter", ok}}), key).empty(), ok);
  BOOST_TEST(plan_error(file_sink({{"header.converter", "SimpleHeaderConvertr"}}), key) ==
             "Invalid value SimpleHeaderConvertr for configuration header.converter: Class SimpleHeaderConvertr could "
             "not be found.");
  BOOST_TEST(key == "header.converter");
  // A real converter, which Kafka Connect could use for headers, but weir cannot yet.
  auto refused = plan_error(file_sink({{"header.converter", "org.apache.kafka.connect.json.JsonConverter"}}), key);
  BOOST_TEST(refused.find("is not supported as a header converter yet") != std::string::npos, refused);
  BOOST_TEST(key == "header.converter");
}

BOOST_AUTO_TEST_CASE(an_unknown_key_is_reported_once_with_the_nearest_key) {
  auto config = file_sink();
  config.erase("file");
  config["flie"] = "/tmp/out.txt";
  auto infos = validate_connector(config, worker);
  BOOST_TEST(infos.error_count == 1);
  BOOST_TEST(errors_of(infos, "flie")
             == std::vector<std::string>{"Unknown configuration \"flie\"; did you mean \"file\"?"});
  std::string key;
  BOOST_TEST(plan_error(config, key) == "Unknown configuration \"flie\"; did you mean \"file\"?");
  BOOST_TEST(key == "flie");

  // The nearest key may be one every sink has, not the plugin's own.
  config = file_sink({{"tasks.mxa", "2"}});
  infos = validate_connector(config, worker);
  BOOST_TEST(infos.error_count == 1);
  BOOST_TEST(errors_of(infos, "tasks.mxa")
             == std::vector<std::string>{"Unknown configuration \"tasks.mxa\"; did you mean \"tasks.max\"?"});
  BOOST_TEST(plan_error(config, key) == "Unknown configuration \"tasks.mxa\"; did you mean \"tasks.max\"?");
}

BOOST_AUTO_TEST_CASE(connector_problems_lists_every_problem_each_naming_its_key) {
  auto config = file_sink({{"tasks.max", "two"}, {"value.converter", "Jsn"}, {"flie", "x"}});
  auto problems = connector_problems(config, worker);
  BOOST_TEST_MESSAGE(problems.size());
  BOOST_REQUIRE(problems.size() == 3u);
  auto has = [&](const std::string& text) {
    return std::any_of(problems.begin(), problems.end(), [&](const std::string& p) { return p == text; });
  };
  BOOST_TEST(has("Invalid value two for configuration tasks.max: Not a number of type INT"));
  BOOST_TEST(has("Invalid value Jsn for configuration value.converter: Class Jsn could not be found."));
  BOOST_TEST(has("Unknown configuration \"flie\"; did you mean \"file\"?"));

  // No connector of that class: that alone, naming connector.class.
  problems = connector_problems(file_sink({{"connector.class", "FileStreamSinc"}}), worker);
  BOOST_REQUIRE(problems.size() == 1u);
  BOOST_TEST(problems[0].find("connector.class") != std::string::npos, problems[0]);
  BOOST_TEST(connector_problems(file_sink(), worker).empty());
}

BOOST_AUTO_TEST_SUITE_END()
