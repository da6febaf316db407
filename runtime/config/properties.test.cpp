#include <boost/test/unit_test.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "runtime/config/properties.hpp"
#include "weir/config.hpp"

using weir::runtime::load_properties;
using Raw = std::map<std::string, std::string>;

BOOST_AUTO_TEST_SUITE(properties)

BOOST_AUTO_TEST_CASE(java_properties_semantics) {
  struct Case {
    std::string what;
    std::string text;
    Raw expected;
  };
  const std::vector<Case> cases = {
      {"separators", "a=1\nb:2\nc 3\nd\t4\ne = 5\nf : 6\n", {{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}, {"e", "5"}, {"f", "6"}}},
      {"only the first separator counts", "a==b\nc=d=e\nf = :g\nh :=i", {{"a", "=b"}, {"c", "d=e"}, {"f", ":g"}, {"h", "=i"}}},
      {"leading blanks trimmed, trailing kept", "   key =   value  \n", {{"key", "value  "}}},
      {"comments and blank lines", "# c\n! c\n   # indented\n\n  \na=1\n", {{"a", "1"}}},
      {"comment chars inside a value", "a=x # not a comment", {{"a", "x # not a comment"}}},
      {"empty values", "a=\nb\nc:\nd   \n", {{"a", ""}, {"b", ""}, {"c", ""}, {"d", ""}}},
      {"continuation", "a=one, \\\n     two, \\\n\tthree\nb=2", {{"a", "one, two, three"}, {"b", "2"}}},
      {"continued line is never a comment", "a=x\\\n  # y", {{"a", "x# y"}}},
      {"comments do not continue", "# c \\\na=1", {{"a", "1"}}},
      {"escaped backslash does not continue", "a=x\\\\\nb=2", {{"a", "x\\"}, {"b", "2"}}},
      {"backslash at end of input", "a=x\\", {{"a", "x"}}},
      {"continuation then empty line ends", "a=x\\\n\nb=1", {{"a", "x"}, {"b", "1"}}},
      {"escapes", "a=t\\tn\\nr\\rf\\f\\\\z\\q", {{"a", "t\tn\nr\rf\f\\zq"}}},
      {"escaped separators in keys", "a\\=b\\:c\\ d=v\nx\\ y z", {{"a=b:c d", "v"}, {"x y", "z"}}},
      {"unicode escapes", "a=caf\\u00e9 \\u20AC \\uD83D\\uDE00", {{"a", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"}}},
      {"lone surrogate", "a=\\uD800x", {{"a", "\xEF\xBF\xBDx"}}},
      {"UTF-8 passes through", "k=\xC3\xA9t\xC3\xA9", {{"k", "\xC3\xA9t\xC3\xA9"}}},
      {"CRLF and CR line ends", "a=1\r\nb=2\rc=3\\\r\n  4", {{"a", "1"}, {"b", "2"}, {"c", "34"}}},
      {"later duplicate wins", "a=1\na=2", {{"a", "2"}}},
      {"empty input", "", {}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.what) {
      BOOST_TEST((load_properties(c.text) == c.expected));
    }
  }
}

BOOST_AUTO_TEST_CASE(malformed_unicode_escape) {
  BOOST_CHECK_THROW(load_properties("a=\\u12"), weir::ConfigError);
  BOOST_CHECK_THROW(load_properties("a=\\u12zz"), weir::ConfigError);
}

BOOST_AUTO_TEST_CASE(files) {
  auto path = std::filesystem::temp_directory_path() /
              ("weir-props-" + std::to_string(::getpid()) + ".properties");
  {
    std::ofstream out(path);
    out << "name=local-file-sink\nconnector.class=FileStreamSink\ntopics=connect-test\n";
  }
  auto props = weir::runtime::load_properties_file(path);
  BOOST_TEST(props.size() == 3u);
  BOOST_TEST(props["connector.class"] == "FileStreamSink");
  std::filesystem::remove(path);

  try {
    weir::runtime::load_properties_file(path);
    BOOST_FAIL("expected ConfigError");
  } catch (const weir::ConfigError& e) {
    BOOST_TEST(std::string{e.what()}.find(path.string()) != std::string::npos);
  }
  BOOST_CHECK_THROW(weir::runtime::load_properties_file(path.parent_path()), weir::ConfigError);
}

BOOST_AUTO_TEST_SUITE_END()
