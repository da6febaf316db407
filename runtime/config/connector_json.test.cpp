#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "runtime/config/connector_json.hpp"
#include "weir/config.hpp"

using weir::runtime::parse_connector_json;
using Raw = std::map<std::string, std::string>;

namespace {

struct Failure {
  std::string key;
  std::string message;
};

Failure failure(std::string_view json) {
  try {
    parse_connector_json(json);
  } catch (const weir::ConfigError& e) {
    return {e.key(), e.what()};
  }
  return {"", "(no error)"};
}

} // namespace

BOOST_AUTO_TEST_SUITE(connector_json)

BOOST_AUTO_TEST_CASE(wrapped_form) {
  auto c = parse_connector_json(R"({"name": "local-file-sink",
    "config": {"connector.class": "FileStreamSink", "tasks.max": 2, "topics": "t",
               "errors.log.enable": true, "ratio": 1.50, "file": "caf\u00e9"}})");
  BOOST_TEST(c.name == "local-file-sink");
  BOOST_TEST((c.config == Raw{{"name", "local-file-sink"},
                              {"connector.class", "FileStreamSink"},
                              {"tasks.max", "2"},
                              {"topics", "t"},
                              {"errors.log.enable", "true"},
                              {"ratio", "1.50"},
                              {"file", "caf\xC3\xA9"}}));
  // A matching name inside config is fine.
  BOOST_TEST(parse_connector_json(R"({"name":"a","config":{"name":"a"}})").name == "a");
}

BOOST_AUTO_TEST_CASE(flat_form) {
  auto c = parse_connector_json(R"({"name":"s","connector.class":"X","tasks.max":"1"})");
  BOOST_TEST(c.name == "s");
  BOOST_TEST((c.config == Raw{{"name", "s"}, {"connector.class", "X"}, {"tasks.max", "1"}}));
  // The body of PUT /connectors/{name}/config need not carry a name.
  auto unnamed = parse_connector_json(R"({"connector.class":"X"})");
  BOOST_TEST(unnamed.name == "");
  BOOST_TEST(parse_connector_json("{}").config.empty());
}

BOOST_AUTO_TEST_CASE(errors_name_the_key) {
  struct Case {
    std::string json;
    std::string key;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {R"({"topics": ["a","b"]})", "topics", "\"topics\" is an array"},
      {R"({"transforms": {"a": 1}, "name": "x"})", "transforms", "\"transforms\" is an object"},
      {R"({"topics": null})", "topics", "\"topics\" is null"},
      {R"({"name":"a","config":{"topics":null}})", "topics", "\"topics\" is null"},
      {R"({"name":"a","config":{"x":{}}})", "x", "is an object"},
      {R"({"name":"a","config":{"name":"b"}})", "name", "(b) doesn't match connector name (a)"},
      {R"({"config":{"x":"1"}})", "name", "Connector name must be provided"},
      {R"({"name":"a","config":{},"tasks":[]})", "tasks", "Unexpected field \"tasks\""},
      {R"({"name":"a","config":{},"extra":"1"})", "extra", "Unexpected field \"extra\""},
      {R"(["a"])", "", "must be an object"},
      {R"("text")", "", "must be an object"},
      {R"({"a":"1"} trailing)", "", "Invalid connector JSON: line 1, column 11 (byte 10): unexpected 't' after"},
      {R"({"a":"1",})", "", "Invalid connector JSON: line 1, column 10 (byte 9): expected a member name"},
      {R"({"a":tru})", "", "Invalid connector JSON: line 1, column 6 (byte 5): invalid literal 'tru'"},
      {R"({"a":01})", "", "Invalid connector JSON: line 1, column 7 (byte 6): a number cannot have a leading zero"},
      {R"({"a":"1")", "", "Invalid connector JSON: line 1, column 9 (byte 8): expected ',' or '}'"},
      {"", "", "Invalid connector JSON"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.json) {
      auto f = failure(c.json);
      BOOST_TEST(f.key == c.key);
      BOOST_TEST(f.message.find(c.message_part) != std::string::npos, f.message);
    }
  }
}

BOOST_AUTO_TEST_CASE(connector_files_by_content) {
  auto dir = std::filesystem::temp_directory_path() / ("weir-conn-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  auto json = weir::runtime::load_connector_file(
      write("a.conf", "\n  {\"name\":\"j\",\"config\":{\"topics\":\"t\"}}"));
  BOOST_TEST(json.name == "j");
  BOOST_TEST(json.config.at("topics") == "t");
  auto props = weir::runtime::load_connector_file(write("b.properties", "name=p\ntopics=t\n"));
  BOOST_TEST(props.name == "p");
  BOOST_TEST(props.config.size() == 2u);

  for (const char* text : {"topics=t\n", "{\"topics\":\"t\"}"}) {
    auto path = write("unnamed", text);
    try {
      weir::runtime::load_connector_file(path);
      BOOST_FAIL("expected ConfigError");
    } catch (const weir::ConfigError& e) {
      BOOST_TEST(e.key() == "name");
      BOOST_TEST(std::string{e.what()} ==
                 path.string() + ": Missing required configuration \"name\" which has no default value.");
    }
  }
  auto bad = write("bad.json", "{\"name\": [1]}");
  try {
    weir::runtime::load_connector_file(bad);
    BOOST_FAIL("expected ConfigError");
  } catch (const weir::ConfigError& e) {
    BOOST_TEST(std::string{e.what()}.starts_with(bad.string() + ": "));
  }
  std::filesystem::remove_all(dir);
  BOOST_CHECK_THROW(weir::runtime::load_connector_file(dir / "a.conf"), weir::ConfigError);
}

BOOST_AUTO_TEST_SUITE_END()
