#include <boost/test/unit_test.hpp>

#include <sstream>

#include "weir/config.hpp"

using namespace weir;
using Raw = std::map<std::string, std::string>;

namespace {

// The message parse() throws for `raw`, or "" if it succeeds.
std::string parse_error(const ConfigDef& def, const Raw& raw, const ParseOptions& options = {}) {
  try {
    def.parse(raw, options);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

ConfigDef one_key(ConfigType type, Validator validator = {}) {
  ConfigDef def;
  def.define("k", type, Importance::High, "the key", std::move(validator));
  return def;
}

} // namespace

BOOST_AUTO_TEST_SUITE(config_def)

BOOST_AUTO_TEST_CASE(converts_every_type) {
  struct Case {
    ConfigType type;
    std::string raw;
    ConfigValue expected;
  };
  const std::vector<Case> cases = {
      {ConfigType::Boolean, "true", true},
      {ConfigType::Boolean, " FALSE ", false},
      {ConfigType::Boolean, "True", true},
      {ConfigType::Int, "42", int32_t{42}},
      {ConfigType::Int, "+7", int32_t{7}},
      {ConfigType::Int, " -2147483648 ", int32_t{-2147483647 - 1}},
      {ConfigType::Long, "9223372036854775807", int64_t{9223372036854775807}},
      {ConfigType::Long, "-5", int64_t{-5}},
      {ConfigType::Double, "1.5", 1.5},
      {ConfigType::Double, "-2e3", -2000.0},
      {ConfigType::Double, "+0.25", 0.25},
      {ConfigType::String, "  padded  ", std::string{"padded"}},
      {ConfigType::String, "", std::string{}},
      {ConfigType::Class, "org.apache.kafka.connect.json.JsonConverter",
       std::string{"org.apache.kafka.connect.json.JsonConverter"}},
      {ConfigType::List, "a, b ,c", std::vector<std::string>{"a", "b", "c"}},
      {ConfigType::List, "", std::vector<std::string>{}},
      {ConfigType::List, "  ", std::vector<std::string>{}},
      {ConfigType::List, "one", std::vector<std::string>{"one"}},
      {ConfigType::List, "a,,b", std::vector<std::string>{"a", "", "b"}},
      {ConfigType::Password, " s3cret ", Password{"s3cret"}},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("type " << to_string(c.type) << " raw '" << c.raw << "'") {
      auto config = one_key(c.type).parse({{"k", c.raw}});
      BOOST_TEST((config.get("k") == c.expected));
      BOOST_TEST((config.type("k") == c.type));
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_bad_values_with_kafka_messages) {
  struct Case {
    ConfigType type;
    std::string raw;
    std::string message;
  };
  const std::vector<Case> cases = {
      {ConfigType::Boolean, "yes", "Invalid value yes for configuration k: Expected value to be either true or false"},
      {ConfigType::Boolean, "", "Invalid value  for configuration k: Expected value to be either true or false"},
      {ConfigType::Int, "abc", "Invalid value abc for configuration k: Not a number of type INT"},
      {ConfigType::Int, "2147483648", "Invalid value 2147483648 for configuration k: Not a number of type INT"},
      {ConfigType::Int, "1.5", "Invalid value 1.5 for configuration k: Not a number of type INT"},
      {ConfigType::Int, "+-1", "Invalid value +-1 for configuration k: Not a number of type INT"},
      {ConfigType::Int, "", "Invalid value  for configuration k: Not a number of type INT"},
      {ConfigType::Long, "9223372036854775808", "Invalid value 9223372036854775808 for configuration k: Not a number of type LONG"},
      {ConfigType::Long, "12x", "Invalid value 12x for configuration k: Not a number of type LONG"},
      {ConfigType::Double, "one", "Invalid value one for configuration k: Not a number of type DOUBLE"},
      {ConfigType::Double, "1.5.2", "Invalid value 1.5.2 for configuration k: Not a number of type DOUBLE"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("type " << to_string(c.type) << " raw '" << c.raw << "'") {
      BOOST_TEST(parse_error(one_key(c.type), {{"k", c.raw}}) == c.message);
    }
  }
}

BOOST_AUTO_TEST_CASE(error_carries_the_key) {
  try {
    one_key(ConfigType::Int).parse({{"k", "x"}});
    BOOST_FAIL("expected ConfigError");
  } catch (const ConfigError& e) {
    BOOST_TEST(e.key() == "k");
  }
}

BOOST_AUTO_TEST_CASE(required_keys_and_defaults) {
  ConfigDef def;
  def.define("topics", ConfigType::List, Importance::High, "Topics to consume.")
      .define("tasks.max", ConfigType::Int, "1", Importance::High, "Maximum tasks.");
  BOOST_TEST(parse_error(def, {}) ==
             "Missing required configuration \"topics\" which has no default value.");
  auto config = def.parse({{"topics", "a,b"}});
  BOOST_TEST(config.get_int("tasks.max") == 1);
  BOOST_TEST(config.get_list("topics") == (std::vector<std::string>{"a", "b"}));
  BOOST_TEST(def.parse({{"topics", "a"}, {"tasks.max", "8"}}).get_int("tasks.max") == 8);
}

BOOST_AUTO_TEST_CASE(validator_messages) {
  struct Case {
    ConfigType type;
    Validator validator;
    std::string raw;
    std::string reason; // "" = valid
  };
  const std::vector<Case> cases = {
      {ConfigType::Int, validators::range(1, 10), "1", ""},
      {ConfigType::Int, validators::range(1, 10), "10", ""},
      {ConfigType::Int, validators::range(1, 10), "0", "Value must be at least 1"},
      {ConfigType::Int, validators::range(1, 10), "11", "Value must be no more than 10"},
      {ConfigType::Long, validators::range(std::nullopt, 100), "-99999", ""},
      {ConfigType::Double, validators::range(0.5, std::nullopt), "0.25", "Value must be at least 0.5"},
      {ConfigType::Int, validators::non_negative(), "0", ""},
      {ConfigType::Long, validators::non_negative(), "-1", "Value must be at least 0"},
      {ConfigType::String, validators::one_of({"none", "all"}), "all", ""},
      {ConfigType::String, validators::one_of({"none", "all"}), "ALL", "String must be one of: none, all"},
      {ConfigType::String, validators::one_of({"none", "all"}, true), "ALL", ""},
      {ConfigType::List, validators::one_of({"a", "b"}), "a,b", ""},
      {ConfigType::List, validators::one_of({"a", "b"}), "a,c", "List element \"c\" must be one of: a, b"},
      {ConfigType::String, validators::non_empty(), "x", ""},
      {ConfigType::String, validators::non_empty(), "  ", "String must be non-empty"},
      {ConfigType::List, validators::non_empty(), "", "List must be non-empty"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("type " << to_string(c.type) << " raw '" << c.raw << "'") {
      std::string expected =
          c.reason.empty() ? "" : "Invalid value " + c.raw + " for configuration k: " + c.reason;
      BOOST_TEST(parse_error(one_key(c.type, c.validator), {{"k", c.raw}}) == expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(bad_declarations_fail_at_define_time) {
  ConfigDef def;
  def.define("a", ConfigType::Int, "1", Importance::Low, "");
  BOOST_CHECK_THROW(def.define("a", ConfigType::Int, "2", Importance::Low, ""), ConfigError);
  BOOST_CHECK_THROW(def.define("b", ConfigType::Int, "x", Importance::Low, ""), ConfigError);
  BOOST_CHECK_THROW(
      def.define("c", ConfigType::Int, "0", Importance::Low, "", validators::range(1, std::nullopt)),
      ConfigError);
}

BOOST_AUTO_TEST_CASE(unknown_keys_are_rejected_with_a_suggestion) {
  ConfigDef def;
  def.define("tasks.max", ConfigType::Int, "1", Importance::High, "")
      .define("topics", ConfigType::List, "", Importance::High, "");
  BOOST_TEST(parse_error(def, {{"tasks.mxa", "2"}}) ==
             "Unknown configuration \"tasks.mxa\"; did you mean \"tasks.max\"?");
  BOOST_TEST(parse_error(def, {{"completely.else", "2"}}) ==
             "Unknown configuration \"completely.else\"");
}

BOOST_AUTO_TEST_CASE(passthrough_prefixes_and_keys) {
  ConfigDef def;
  def.define("name", ConfigType::String, Importance::High, "");
  ParseOptions options{{"transforms.", "key.converter."}, {"connector.class"}};
  Raw raw{{"name", "n"},
          {"transforms.mask.type", "MaskField"},
          {"key.converter.schemas.enable", "false"},
          {"connector.class", "FileStreamSink"}};
  auto config = def.parse(raw, options);
  BOOST_TEST((config.originals() == raw));
  raw["value.converter.schemas.enable"] = "true";
  BOOST_TEST(parse_error(def, raw, options) ==
             "Unknown configuration \"value.converter.schemas.enable\"");
}

BOOST_AUTO_TEST_CASE(validate_lists_every_issue_at_once) {
  ConfigDef def;
  def.define("name", ConfigType::String, Importance::High, "")
      .define("tasks.max", ConfigType::Int, "1", Importance::High, "", validators::range(1, std::nullopt))
      .define("batch.size", ConfigType::Int, "100", Importance::Low, "")
      .define("connection.password", ConfigType::Password, Importance::High, "");
  auto issues = def.validate({{"tasks.max", "0"},
                              {"batch.size", "big"},
                              {"connection.password", "hunter2"},
                              {"bogus", "x"}});
  BOOST_TEST_REQUIRE(issues.size() == 4u);
  BOOST_TEST(issues[0].name == "name");
  BOOST_TEST(!issues[0].value.has_value());
  BOOST_TEST(issues[1].name == "tasks.max");
  BOOST_TEST(*issues[1].value == "0");
  BOOST_TEST(issues[1].errors.front() == "Invalid value 0 for configuration tasks.max: Value must be at least 1");
  BOOST_TEST(issues[2].name == "batch.size");
  BOOST_TEST(issues[3].name == "bogus");
  BOOST_TEST(issues[3].errors.front() == "Unknown configuration \"bogus\"");
  // parse() reports the first of the same issues.
  BOOST_TEST(parse_error(def, {{"tasks.max", "0"}}) == issues[0].errors.front());
  BOOST_TEST(def.validate({{"name", "n"}, {"connection.password", "p"}}).empty());
}

BOOST_AUTO_TEST_CASE(passwords_are_never_echoed) {
  auto def = one_key(ConfigType::Password, validators::non_empty());
  BOOST_TEST(parse_error(def, {{"k", " "}}) ==
             "Invalid value [hidden] for configuration k: Password must be non-empty");
  auto issues = def.validate({{"k", " "}, {"kk", "hunter2"}});
  BOOST_TEST_REQUIRE(issues.size() == 2u);
  BOOST_TEST(*issues[0].value == "[hidden]");
  // A mistyped password key still holds a password.
  BOOST_TEST(*issues[1].value == "[hidden]");

  auto config = def.parse({{"k", "hunter2"}});
  BOOST_TEST(config.get_password("k").value() == "hunter2");
  std::ostringstream printed;
  printed << config.get_password("k");
  BOOST_TEST(printed.str() == "[hidden]");
  BOOST_TEST(config.describe().find("hunter2") == std::string::npos);
  BOOST_TEST(to_string(config.get("k")) == "[hidden]");
}

BOOST_AUTO_TEST_CASE(getters_check_name_and_type) {
  ConfigDef def;
  def.define("n", ConfigType::Int, "3", Importance::Low, "")
      .define("c", ConfigType::Class, "a.B", Importance::Low, "");
  auto config = def.parse({});
  BOOST_TEST(config.get_string("c") == "a.B");
  BOOST_CHECK_THROW(config.get_string("n"), ConfigError);
  BOOST_CHECK_THROW(config.get_long("n"), ConfigError);
  BOOST_CHECK_THROW(config.get_int("missing"), ConfigError);
  try {
    config.get_bool("n");
    BOOST_FAIL("expected ConfigError");
  } catch (const ConfigError& e) {
    BOOST_TEST(e.key() == "n");
    BOOST_TEST(std::string{e.what()} == "Configuration \"n\" is of type INT, not BOOLEAN");
  }
}

BOOST_AUTO_TEST_CASE(originals_with_prefix_follows_kafka) {
  ConfigDef def;
  auto config = def.parse({{"key.converter", "Json"},
                           {"key.converter.schemas.enable", "false"},
                           {"key.converter.x", "1"},
                           {"value.converter", "Json"}},
                          {{"key.converter", "value.converter"}, {}});
  BOOST_TEST((config.originals_with_prefix("key.converter.") ==
              Raw{{"schemas.enable", "false"}, {"x", "1"}}));
  BOOST_TEST((config.originals_with_prefix("key.converter.", false) ==
              Raw{{"key.converter.schemas.enable", "false"}, {"key.converter.x", "1"}}));
  // The bare prefix itself is not included (Kafka: key longer than the prefix).
  BOOST_TEST(config.originals_with_prefix("key.converter").size() == 2u);
}

BOOST_AUTO_TEST_CASE(groups_apply_to_later_keys) {
  ConfigDef def;
  def.define("a", ConfigType::String, "", Importance::Low, "")
      .group("Error Handling")
      .define("errors.tolerance", ConfigType::String, "none", Importance::Medium, "");
  BOOST_TEST(def.keys()[0].group == "");
  BOOST_TEST(def.keys()[1].group == "Error Handling");
  BOOST_TEST(def.find("errors.tolerance") == &def.keys()[1]);
}

BOOST_AUTO_TEST_SUITE_END()
