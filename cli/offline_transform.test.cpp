#include "cli/offline_transform.hpp"

#include <boost/test/unit_test.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

using weir::cli::run_offline_transform;

namespace {

const std::string dir = std::string(WEIR_EXAMPLES_DIR) + "/transform/";

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct Run {
  int code;
  std::string out, err;
};

Run run(const std::string& config, const std::string& input) {
  std::istringstream in(input);
  std::ostringstream out, err;
  int code = run_offline_transform(config, in, out, err);
  return {code, out.str(), err.str()};
}

// A copy of the example config with some keys changed, in a temporary file.
std::string variant(const std::string& extra_lines, const std::string& name) {
  auto path = std::filesystem::temp_directory_path() / ("weir-offline-" + name + ".properties");
  std::ofstream(path) << slurp(dir + "orders.properties") << "\n" << extra_lines << "\n";
  return path.string();
}

} // namespace

BOOST_AUTO_TEST_SUITE(offline)

BOOST_AUTO_TEST_CASE(example_chain_gives_the_documented_output) {
  auto r = run(dir + "orders.properties", slurp(dir + "orders.jsonl"));
  BOOST_TEST(r.code == 0, r.err);
  BOOST_TEST(r.out == slurp(dir + "orders.expected.jsonl"));
  BOOST_TEST(r.err == slurp(dir + "orders.expected.stderr"));
}

BOOST_AUTO_TEST_CASE(tolerance_none_stops_at_the_first_failed_record) {
  auto r = run(variant("errors.tolerance=none", "none"), slurp(dir + "orders.jsonl"));
  BOOST_TEST(r.code == weir::cli::offline_record_error);
  // Only the first record (line 1) precedes the first failure (line 3); line 2 is dropped.
  auto expected = slurp(dir + "orders.expected.jsonl");
  BOOST_TEST(r.out == expected.substr(0, expected.find('\n') + 1));
  BOOST_TEST(r.err.starts_with("line 3: TRANSFORMATION org.apache.kafka.connect.transforms.MaskField$Value: "),
             r.err);
  BOOST_TEST(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

BOOST_AUTO_TEST_CASE(bad_config_exits_1_naming_the_key) {
  struct Row {
    std::string extra, key;
  };
  for (const auto& row : std::vector<Row>{
           {"transforms.mask.feilds=x", "transforms.mask.feilds"},
           {"transforms.cast.spec=amount:decimal", "transforms.cast.spec"},
           {"value.converter.schemas.enable=maybe", "value.converter.schemas.enable"},
           {"predicates.isTestTopic.pattern=(", "predicates.isTestTopic.pattern"},
           {"errors.tolerance=some", "errors.tolerance"},
           {"transforms.insert.type=InsertField", "transforms.insert.type"},
           {"key.converter=com.example.Nope", "key.converter"},
           {"tasks.mx=1", "tasks.mx"},
       }) {
    BOOST_TEST_CONTEXT(row.extra) {
      auto r = run(variant(row.extra, "bad"), "");
      BOOST_TEST(r.code == weir::cli::offline_config_error);
      BOOST_TEST(r.err.find(row.key) != std::string::npos, r.err);
      BOOST_TEST(r.out.empty());
    }
  }
  auto missing = run(dir + "does-not-exist.properties", "");
  BOOST_TEST(missing.code == weir::cli::offline_config_error);
}

BOOST_AUTO_TEST_CASE(schemas_enabled_by_default) {
  auto path = std::filesystem::temp_directory_path() / "weir-offline-schemas.properties";
  std::ofstream(path) << "transforms=ins\n"
                         "transforms.ins.type=InsertField$Value\n"
                         "transforms.ins.partition.field=p!\n";
  auto r = run(path.string(),
               R"({"topic":"t","partition":3,"offset":1,"key":null,"value":{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"a"}],"optional":false},"payload":{"a":"x"}}})"
               "\n"
               R"({"topic":"t","value":{"a":"plain"}})"
               "\n");
  BOOST_TEST(r.out
             == R"({"topic":"t","partition":3,"offset":1,"timestamp":null,"key":null,"value":{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"a"},{"type":"int32","optional":false,"field":"p"}],"optional":false},"payload":{"a":"x","p":3}},"headers":[]})"
                "\n");
  BOOST_TEST(r.err.find("line 2: VALUE_CONVERTER org.apache.kafka.connect.json.JsonConverter: "
                        "org.apache.kafka.connect.errors.DataException: JsonConverter with schemas.enable requires")
                 != std::string::npos,
             r.err);
  BOOST_TEST(r.code == weir::cli::offline_record_error);
}

// A key or value reaches the JsonConverter with its numbers' exact digits: the line
// is not re-read through doubles, and integers beyond 64 bits or with leading zeros
// are not an invalid line (expected values as in runtime/convert/json_converter.test.cpp).
BOOST_AUTO_TEST_CASE(numbers_reach_the_converter_with_every_digit) {
  auto path = std::filesystem::temp_directory_path() / "weir-offline-numbers.properties";
  std::ofstream(path) << "value.converter.decimal.format=NUMERIC\n"
                         "transforms=\n";
  const std::string decimal =
      R"({"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}})";
  auto r = run(path.string(),
               R"({"topic":"t","value":{"schema":)" + decimal + R"(,"payload":4712347873508446.26}})" "\n"
               R"({"topic":"t","partition":007,"value":{"schema":null,"payload":[123456789012345678901234567890,-0.0]}})" "\n"
               R"({"topic":"t","offset":9223372036854775808,"value":1})" "\n");
  BOOST_TEST(r.out
             == R"({"topic":"t","partition":0,"offset":0,"timestamp":null,"key":null,"value":{"schema":)" + decimal
                    + R"(,"payload":4712347873508446.26},"headers":[]})" "\n"
                    R"({"topic":"t","partition":7,"offset":1,"timestamp":null,"key":null,"value":{"schema":null,"payload":[-4362896299872285998,0.0]},"headers":[]})" "\n");
  BOOST_TEST(r.err.find(R"(line 3: invalid input record: "offset" must be an integer)") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()
