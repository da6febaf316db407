#include "transforms/insert_header.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;
using weir::transforms::InsertHeader;
namespace data = weir::runtime::data;

namespace {

// Headers as "k=v|k=v" (Boost.Test cannot print pairs).
[[maybe_unused]] std::string show(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string s;
  for (const auto& [k, v] : headers)
    s += (s.empty() ? "" : "|") + k + "=" + v;
  return s;
}
} // namespace

BOOST_AUTO_TEST_SUITE(insert_header)

BOOST_AUTO_TEST_CASE(appends_a_header_keeping_the_record) {
  using Headers = std::vector<std::pair<std::string, std::string>>;
  for (bool schemas : {false, true}) {
    Record r{.value = schemas ? envelope(R"({"type":"string","optional":false})", R"("value")") : R"("value")",
             .key = schemas ? envelope(R"({"type":"string","optional":false})", R"("key")") : R"("key")",
             .headers = {{"existing", "existing-value"}}};
    struct Row {
      const char* header;
      const char* literal;
      Headers expected;
    };
    std::vector<Row> rows{
        {"inserted", "inserted-value", {{"existing", "existing-value"}, {"inserted", "inserted-value"}}},
        {"existing", "inserted-value", {{"existing", "existing-value"}, {"existing", "inserted-value"}}},
        {"inserted", "1", {{"existing", "existing-value"}, {"inserted", "1"}}},
        {"inserted", "null", {{"existing", "existing-value"}, {"inserted", "null"}}},
        {"", "x", {{"existing", "existing-value"}, {"", "x"}}},
    };
    for (const auto& row : rows) {
      BOOST_TEST_CONTEXT(row.header << "=" << row.literal << (schemas ? " (schemas)" : "")) {
        auto o = run_smt("org.apache.kafka.connect.transforms.InsertHeader",
                         {{"header", row.header}, {"value.literal", row.literal}}, r, schemas);
        BOOST_TEST(o.error == "");
        BOOST_TEST(show(o.headers) == show(row.expected));
        BOOST_TEST(o.value == r.value.value());
        BOOST_TEST(o.key == r.key.value());
        BOOST_TEST(o.topic == "orders");
      }
    }
  }
}

// value.literal is read as Values.parseString reads it, and the header written as
// SimpleHeaderConverter writes it: these are the bytes Kafka Connect produces.
BOOST_AUTO_TEST_CASE(literals_are_written_as_kafka_connect_writes_them) {
  struct Row {
    const char* literal;
    const char* written;
  };
  std::vector<Row> rows{
      {"", ""},
      {"true", "true"},
      {"True", "True"},
      {"-128", "-128"},
      {"3000000000", "3000000000"},
      {"1.0", "1"},
      {"1e3", "1000"},
      {"+5", "5"},
      {"007", "7"},
      {"1.50", "1.5"},
      {"1e39", "1.0E39"},
      {"99999999999999999999", "99999999999999999999"},
      {"12abc", "12abc"},
      {"12:30", "12"}, // only the first token counts
      {"123,456", "123"},
      {"hello world", "hello world"},
      {"a:b", "a:b"},
      {"[1, 2]", "[1,2]"},
      {"[1, 2.5]", "[1.0,2.5]"},
      {"[a, b]", "[a, b]"}, // not an array of values: the text
      {R"({ "a" : [true, null] })", R"({"a":[true,null]})"},
      {"2024-01-15", "2024-01-15"},
      {"2024-1-5xx12", "2024-1-5xx12"},
      {"10:15:30.000Z", "10:15:30.000Z"},
      {"2024-01-15T10:15:30.000Z", "2024-01-15T10:15:30.000Z"},
      {"2024-01-15T00:00:00.000Z", "2024-01-15"}, // a whole day prints as a date
      {"2024-13-01", "2025-01-01"},               // SimpleDateFormat is lenient
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.literal) {
      auto o = run_smt("InsertHeader", {{"header", "h"}, {"value.literal", r.literal}}, Record{.value = "1"}, false);
      BOOST_TEST(o.error == "");
      BOOST_REQUIRE(o.headers.size() == 1u);
      BOOST_TEST(o.headers[0].second == r.written);
    }
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_key) {
  auto key_of = [](std::map<std::string, std::string> own) -> std::string {
    try {
      run_smt("InsertHeader", own, Record{.value = "1"}, false);
    } catch (const weir::ConfigError& e) {
      return e.key();
    }
    return "<none>";
  };
  BOOST_TEST(key_of({{"value.literal", "1"}}) == "transforms.t.header");
  BOOST_TEST(key_of({{"header", "h"}}) == "transforms.t.value.literal");
  BOOST_TEST(key_of({{"header", "h"}, {"value.literal", "1"}, {"value", "2"}}) == "transforms.t.value");
  BOOST_TEST(key_of({{"header", "h"}, {"value.literal", "1"}}) == "<none>");
}

BOOST_AUTO_TEST_SUITE_END()
