#include "transforms/field_path.hpp"

#include <boost/test/unit_test.hpp>

using weir::ConfigError;
using weir::transforms::FieldPath;
using weir::transforms::FieldSyntaxVersion;

namespace {

std::vector<std::string> v2(const std::string& path) { return FieldPath::parse_v2(path, "field"); }

std::string v2_error(const std::string& path) {
  try {
    FieldPath::parse_v2(path, "field");
  } catch (const ConfigError& e) {
    BOOST_TEST(e.key() == "field");
    return e.what();
  }
  return "<no error>";
}

} // namespace

BOOST_AUTO_TEST_SUITE(field_path)

// KIP-821's notation, as Kafka's FieldPathNotationTest pins it down.
BOOST_AUTO_TEST_CASE(v2_steps) {
  using S = std::vector<std::string>;
  struct Row {
    const char* path;
    S steps;
  };
  std::vector<Row> rows{
      {"foobarbaz", {"foobarbaz"}},
      {"foo.bar.baz", {"foo", "bar", "baz"}},
      {"..", {"", "", ""}},
      {"foo..", {"foo", "", ""}},
      {".bar.", {"", "bar", ""}},
      {"..baz", {"", "", "baz"}},
      {"", {}},
      {"foo`bar`baz", {"foo`bar`baz"}},
      {"`foo.bar.baz`", {"foo.bar.baz"}},
      {"foo.`bar.baz`", {"foo", "bar.baz"}},
      {"`foo.bar`.baz", {"foo.bar", "baz"}},
      {"foo.`bar`.baz", {"foo", "bar", "baz"}},
      {"foo.``bar.baz`", {"foo", "`bar.baz"}},
      {"foo.`bar.baz``", {"foo", "bar.baz`"}},
      {"foo.`ba`r.baz`", {"foo", "ba`r.baz"}},
      {"foo.ba`r.baz", {"foo", "ba`r", "baz"}},
      {"foo.``bar``.baz", {"foo", "`bar`", "baz"}},
      {"``foo.bar.baz``", {"`foo.bar.baz`"}},
      {"foo.`bar\\`.baz`", {"foo", "bar`.baz"}},
      {"foo.`bar.`baz`", {"foo", "bar.`baz"}},
      {"foo.`bar\\`.`baz`", {"foo", "bar`.`baz"}},
      {"foo.`bar\\\\`.\\`baz`", {"foo", "bar\\`.\\`baz"}},
      {"`a.b`.", {"a.b", ""}},
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.path) { BOOST_TEST(v2(r.path) == r.steps, boost::test_tools::per_element()); }
}

BOOST_AUTO_TEST_CASE(v2_incomplete_backticks) {
  BOOST_TEST(v2_error("`foo.bar.baz").find("Incomplete backtick pair in path: [`foo.bar.baz], consider adding a "
                                           "backslash before backtick at position 0 to escape it")
             != std::string::npos);
  BOOST_TEST(v2_error("foo.`bar.baz").find("at position 4 to escape it") != std::string::npos);
  BOOST_TEST(v2_error("foo.bar.`baz").find("at position 8 to escape it") != std::string::npos);
  BOOST_TEST(v2_error("foo.bar.`baz\\`").find("at position 8 to escape it") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(v1_is_one_step) {
  for (const char* p : {"foo.bar.baz", "foo`bar`", "foo.`bar.baz`", ""}) {
    FieldPath path(p, FieldSyntaxVersion::V1, "field");
    BOOST_TEST(path.steps().size() == 1u);
    BOOST_TEST(path.steps()[0] == p);
  }
  BOOST_CHECK_THROW(FieldPath("", FieldSyntaxVersion::V2, "field"), ConfigError);
}

BOOST_AUTO_TEST_SUITE_END()
