#include <boost/test/unit_test.hpp>

#include "runtime/rest/config_info.hpp"
#include "runtime/rest/connect_json.hpp"

using namespace weir::runtime::rest;
using weir::ConfigDef;
using weir::ConfigType;
using weir::Importance;

namespace {

ConfigDef file_sink_def() {
  ConfigDef def;
  def.define("topics", ConfigType::List, "", Importance::High, "Topics to read.");
  def.group("File");
  def.define("file", ConfigType::String, Importance::High, "Destination filename.");
  def.define("secret", ConfigType::Password, "x", Importance::Low, "A password.");
  return def;
}

std::string json(const ConfigInfos& infos) {
  std::string out;
  append_config_infos(infos, out);
  return out;
}

} // namespace

BOOST_AUTO_TEST_SUITE(config_info)

BOOST_AUTO_TEST_CASE(key_infos_follow_the_declaration) {
  auto keys = config_key_infos(file_sink_def());
  BOOST_REQUIRE(keys.size() == 3u);
  std::string out;
  for (const auto& key : keys) append_config_key_info(key, out);
  BOOST_TEST(out ==
             R"({"name":"topics","type":"LIST","required":false,"default_value":"","importance":"HIGH",)"
             R"("documentation":"Topics to read.","group":null,"width":"NONE","display_name":"topics",)"
             R"("dependents":[],"order":-1})"
             R"({"name":"file","type":"STRING","required":true,"default_value":null,"importance":"HIGH",)"
             R"("documentation":"Destination filename.","group":"File","width":"NONE","display_name":"file",)"
             R"("dependents":[],"order":1})"
             R"({"name":"secret","type":"PASSWORD","required":false,"default_value":"[hidden]",)"
             R"("importance":"LOW","documentation":"A password.","group":"File","width":"NONE",)"
             R"("display_name":"secret","dependents":[],"order":2})");
}

BOOST_AUTO_TEST_CASE(infos_carry_values_errors_and_unknown_keys) {
  ConfigDef def = file_sink_def();
  ConfigMap raw{{"secret", "pw"}, {"fiel", "/tmp/x"}};
  auto infos = config_infos("FileStreamSink", def, raw, def.validate(raw));
  BOOST_TEST(infos.error_count == 2);
  BOOST_TEST(infos.groups == std::vector<std::string>{"File"});
  BOOST_REQUIRE(infos.configs.size() == 4u);
  BOOST_TEST(!infos.configs[0].value.value);
  BOOST_TEST(infos.configs[1].value.errors ==
             std::vector<std::string>{"Missing required configuration \"file\" which has no default value."});
  BOOST_TEST(*infos.configs[2].value.value == "[hidden]");
  BOOST_TEST(infos.configs[3].definition.name == "fiel");
  BOOST_TEST(*infos.configs[3].value.value == "/tmp/x");
  BOOST_TEST(infos.configs[3].value.errors.size() == 1u);
  BOOST_TEST(json(infos).find(R"("name":"FileStreamSink","error_count":2,"groups":["File"],)") == 1u);
}

BOOST_AUTO_TEST_CASE(invalid_configs_are_refused_with_kafka_connects_message) {
  ConfigDef def = file_sink_def();
  ConfigMap valid{{"file", "/tmp/x"}};
  BOOST_CHECK_NO_THROW(throw_if_invalid(config_infos("FileStreamSink", def, valid, def.validate(valid))));
  ConfigMap raw{{"fiel", "/tmp/x"}};
  try {
    throw_if_invalid(config_infos("FileStreamSink", def, raw, def.validate(raw)));
    BOOST_FAIL("no error");
  } catch (const RestError& e) {
    BOOST_TEST(e.status() == 400);
    BOOST_TEST(std::string{e.what()} ==
               "Connector configuration is invalid and contains the following 2 error(s):\n"
               "Missing required configuration \"file\" which has no default value.\n"
               "Unknown configuration \"fiel\"; did you mean \"file\"?\n"
               "You can also find the above list of errors at the endpoint "
               "`/connector-plugins/{connectorType}/config/validate`");
  }
}

BOOST_AUTO_TEST_SUITE_END()
