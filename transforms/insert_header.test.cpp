#include "transforms/insert_header.hpp"

#include <boost/test/unit_test.hpp>

#include "transforms/testing.hpp"

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

// Values.parseString, as InsertHeader reads value.literal.
BOOST_AUTO_TEST_CASE(literals) {
  struct Row {
    const char* literal;
    data::Kind kind;
    std::string debug; ///< to_debug_string of the value
  };
  std::vector<Row> rows{
      {"", data::Kind::String, R"("")"},
      {"null", data::Kind::Null, "null"},
      {"true", data::Kind::Boolean, "true"},
      {"false", data::Kind::Boolean, "false"},
      {"True", data::Kind::String, R"("True")"},
      {"1", data::Kind::Int8, "1"},
      {"-128", data::Kind::Int8, "-128"},
      {"128", data::Kind::Int16, "128"},
      {"40000", data::Kind::Int32, "40000"},
      {"3000000000", data::Kind::Int64, "3000000000"},
      {"1.0", data::Kind::Int8, "1"},
      {"1e3", data::Kind::Int16, "1000"},
      {"+5", data::Kind::Int8, "5"},
      {"1.5", data::Kind::Float32, "1.5"},
      {"1e39", data::Kind::Float64, "1e+39"},
      {"99999999999999999999", data::Kind::String, R"("99999999999999999999")"},
      {"12abc", data::Kind::String, R"("12abc")"},
      {"12:30", data::Kind::Int8, "12"},          // only the first token counts
      {"123,456", data::Kind::Int8, "123"},
      {"hello world", data::Kind::String, R"("hello world")"},
      {"a:b", data::Kind::String, R"("a:b")"},
      {"[1, 2]", data::Kind::String, R"("[1, 2]")"},
      {"{\"a\":1}", data::Kind::String, R"("{"a":1}")"},
      {"2024-01-15", data::Kind::String, R"("2024-01-15")"},
      {"2024-1-5xx12", data::Kind::String, R"("2024-1-5xx12")"},
      {"10:15:30.000Z", data::Kind::String, R"("10:15:30.000Z")"},
      {"2024-01-15T10:15:30.000Z", data::Kind::String, R"("2024-01-15T10:15:30.000Z")"},
      {"2024-01-15T00:00:00.000Z", data::Kind::String, R"("2024-01-15")"}, // written back as a date
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.literal) {
      std::string scratch;
      auto [v, schema] = InsertHeader::parse_literal(r.literal, scratch);
      BOOST_TEST((v.kind() == r.kind));
      BOOST_TEST(data::to_debug_string(v) == r.debug);
      BOOST_TEST((schema == nullptr) == v.is_null());
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
