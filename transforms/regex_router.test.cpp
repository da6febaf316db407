#include "transforms/regex_router.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

std::string route(const std::string& regex, const std::string& replacement, const std::string& topic,
                  bool schemas = false) {
  Record r{.value = schemas ? envelope(R"({"type":"string","optional":false})", R"("v")") : R"("v")",
           .topic = topic};
  auto o = run_smt("org.apache.kafka.connect.transforms.RegexRouter", {{"regex", regex}, {"replacement", replacement}},
                   r, schemas);
  BOOST_TEST(o.error == "");
  BOOST_TEST(o.value == r.value.value());
  return o.topic;
}

std::string config_error(const std::string& regex, const std::string& replacement) {
  try {
    run_smt("RegexRouter", {{"regex", regex}, {"replacement", replacement}}, Record{.value = "1"}, false);
  } catch (const weir::ConfigError& e) {
    return e.key() + ": " + e.what();
  }
  return "<none>";
}

} // namespace

BOOST_AUTO_TEST_SUITE(regex_router)

BOOST_AUTO_TEST_CASE(table) {
  struct Row {
    const char* name;
    const char* regex;
    const char* replacement;
    const char* topic;
    const char* expected;
  };
  std::vector<Row> rows{
      // Kafka's RegexRouterTest.
      {"static replacement", "foo", "bar", "foo", "bar"},
      {"no match passes unchanged", "foo", "bar", "orig", "orig"},
      {"identity", "(.*)", "$1", "orig", "orig"},
      {"prefix", "(.*)", "prefix-$1", "orig", "prefix-orig"},
      {"suffix", "(.*)", "$1-suffix", "orig", "orig-suffix"},
      {"slice", "(.*)-(\\d\\d\\d\\d\\d\\d\\d\\d)", "$1", "index-20160117", "index"},
      // Full match, not a search.
      {"substring does not count", "foo", "bar", "foobar", "foobar"},
      {"anchors are implicit", "o+", "x", "foo", "foo"},
      // replaceFirst searches again: the first match found wins, the rest is kept.
      {"alternation found short", "a|ab", "X", "ab", "Xb"},
      {"lazy group", "(.*?)", "[$1]", "abc", "[]abc"},
      {"$0 is the whole match", "db\\.(.*)", "$0.copy", "db.users", "db.users.copy"},
      {"groups swap", "(\\w+)\\.(\\w+)", "$2.$1", "db.users", "users.db"},
      {"escaped dollar", "(.*)", "\\$1-$1", "t", "$1-t"},
      {"$12 means $1 then 2 when there is no group 12", "(a)(b)", "$12", "ab", "a2"},
      {"unmatched group is empty", "(a)|(b)", "[$2]", "a", "[]"},
      {"case-insensitive flag", "(?i)ORDERS-(.*)", "o-$1", "orders-eu", "o-eu"},
      {"empty regex matches only the empty topic", "", "x", "t", "t"},
      // Java syntax beyond ECMAScript's, as Java reads it.
      {"named group by name", "(?<db>\\w+)\\.(?<table>\\w+)", "${table}_${db}", "inv.users", "users_inv"},
      {"named group by number", "(?<db>\\w+)\\.(\\w+)", "$2", "inv.users", "users"},
      {"lookbehind", "(.*)(?<=-eu)", "$1-archive", "orders-eu", "orders-eu-archive"},
      {"negative lookbehind misses", "(.*)(?<!-eu)", "x", "orders-eu", "orders-eu"},
      {"possessive", "a++b", "x", "aab", "x"},
      {"possessive gives nothing back", "a*+a", "x", "aaa", "aaa"},
      {"atomic group", "(?>a|ab)c", "x", "abc", "abc"},
      {"quoted", "\\Qa.b\\E(.*)", "q$1", "a.b-c", "q-c"},
      {"quoted dot is literal", "\\Qa.b\\E", "q", "axb", "axb"},
      {"\\A and \\z", "\\Aab\\z", "x", "ab", "x"},
      {"inline flag mid-pattern", "orders-(?i)EU", "x", "orders-eu", "x"},
      {"scoped flag", "(?i:ORDERS)-eu", "x", "orders-eu", "x"},
      {"posix class", "\\p{Alpha}+-(\\p{Digit}+)", "n$1", "abc-42", "n42"},
      {"posix class in a class", "[\\p{Lower}_]+", "x", "a_b", "x"},
      {"negated posix class", "\\P{Digit}+", "x", "abc", "x"},
      {"unicode category", "\\p{L}+", "x", "\xc3\xa9t\xc3\xa9", "x"},
      {"IsLatin script", "\\p{IsLatin}+", "x", "abc", "x"},
      {"unicode escape", "caf\\u00e9", "x", "caf\xc3\xa9", "x"},
      {"\\w is ASCII as in Java", "\\w+", "x", "\xc3\xa9", "\xc3\xa9"},
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.name) {
      BOOST_TEST(route(r.regex, r.replacement, r.topic, false) == r.expected);
      BOOST_TEST(route(r.regex, r.replacement, r.topic, true) == r.expected);
    }
}

BOOST_AUTO_TEST_CASE(many_topics_in_one_batch) {
  std::map<std::string, std::string> cfg{{"transforms", "r"},
                                         {"transforms.r.type", "RegexRouter"},
                                         {"transforms.r.regex", "(a|b)"},
                                         {"transforms.r.replacement", "x-$1"}};
  std::map<std::string, std::string> conv{{"schemas.enable", "false"}};
  weir::runtime::convert::RecordCodec codec(weir::runtime::convert::make_converter("JsonConverter", conv, true),
                                            weir::runtime::convert::make_converter("JsonConverter", conv, false));
  weir::Batch raw;
  for (const char* t : {"a", "a", "c", "b", "a"})
    raw.append(t, 0, 1, 0, std::nullopt, std::string_view("1"));
  auto batch = codec.decode(std::move(raw));
  weir::transforms::Chain::from_config(cfg).apply_all(batch);
  std::vector<std::string> topics;
  for (const auto& rec : batch.records())
    topics.emplace_back(rec.topic);
  BOOST_TEST(topics == (std::vector<std::string>{"x-a", "x-a", "c", "x-b", "x-a"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(config_errors) {
  BOOST_TEST(config_error("(", "x").starts_with("transforms.t.regex: Invalid value ( for configuration "
                                                "transforms.t.regex: Invalid regex:"));
  for (const char* construct : {"[a-z&&[^aeiou]]", "[a-d[m-p]]", "\\p{InGreek}", "\\p{javaLowerCase}", "(?U)a",
                                "(?iu)a", "(?d:a)"})
    BOOST_TEST(config_error(construct, "x").find("is not supported by weir") != std::string::npos, construct);
  BOOST_TEST(config_error("[a-z&&[aeiou]]", "x").find("'&&' (a character class intersection) at index 4") !=
             std::string::npos);
  BOOST_TEST(config_error("(?<=a+)b", "x").find("lookbehind") != std::string::npos, "PCRE2 names the construct");
  BOOST_TEST(config_error("\\u12", "x").find("Illegal Unicode escape sequence") != std::string::npos);
  BOOST_TEST(config_error("(?<n>a)", "${m}").find("No group with name {m}") != std::string::npos);
  BOOST_TEST(config_error("(a)", "$2") == "transforms.t.replacement: Invalid value $2 for configuration "
                                          "transforms.t.replacement: No group 2");
  BOOST_TEST(config_error("(a)", "$x").find("Illegal group reference") != std::string::npos);
  BOOST_TEST(config_error("(a)", "x$").find("group index is missing") != std::string::npos);
  BOOST_TEST(config_error("(a)", "x\\").find("character to be escaped is missing") != std::string::npos);
  BOOST_TEST(config_error("(a)", "${name}").find("No group with name {name}") != std::string::npos);
  BOOST_TEST(config_error("a", "b") == "<none>");
  try {
    run_smt("RegexRouter", {{"regex", "a"}}, Record{.value = "1"}, false);
    BOOST_ERROR("no error for a missing replacement");
  } catch (const weir::ConfigError& e) {
    BOOST_TEST(e.key() == "transforms.t.replacement");
  }
}

BOOST_AUTO_TEST_SUITE_END()
