#include "transforms/drop_headers.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/support/smt_runner.hpp"

using namespace weir::transforms::testing;

namespace {

// Headers as "k=v|k=v" (Boost.Test cannot print pairs).
[[maybe_unused]] std::string show(const std::vector<std::pair<std::string, std::string>>& headers) {
  std::string s;
  for (const auto& [k, v] : headers)
    s += (s.empty() ? "" : "|") + k + "=" + v;
  return s;
}
} // namespace

BOOST_AUTO_TEST_SUITE(drop_headers)

BOOST_AUTO_TEST_CASE(table) {
  using Headers = std::vector<std::pair<std::string, std::string>>;
  struct Row {
    const char* name;
    const char* headers; ///< the config
    std::vector<std::pair<std::string, std::optional<std::string>>> in;
    Headers out;
  };
  std::vector<Row> rows{
      {"drop one", "to-drop", {{"existing", "v"}, {"to-drop", "v"}}, {{"existing", "v"}}},
      {"every occurrence", "to-drop",
       {{"to-drop", "a"}, {"existing", "v"}, {"to-drop", "b"}}, {{"existing", "v"}}},
      {"absent header", "to-drop", {{"existing", "v"}}, {{"existing", "v"}}},
      {"several names, order kept", "a, c", {{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", std::nullopt}},
       {{"b", "2"}, {"d", "null"}}},
      {"names are case-sensitive", "A", {{"a", "1"}}, {{"a", "1"}}},
      {"no headers at all", "a", {}, {}},
  };
  for (const auto& row : rows)
    for (bool schemas : {false, true})
      BOOST_TEST_CONTEXT(row.name << (schemas ? " (schemas)" : "")) {
        Record r{.value = schemas ? envelope(R"({"type":"int32","optional":false})", "1") : "1", .headers = row.in};
        auto o = run_smt("org.apache.kafka.connect.transforms.DropHeaders", {{"headers", row.headers}}, r, schemas);
        BOOST_TEST(o.error == "");
        BOOST_TEST(show(o.headers) == show(row.out));
        BOOST_TEST(o.value == r.value.value());
      }
}

BOOST_AUTO_TEST_CASE(config_errors_name_the_key) {
  auto key_of = [](std::map<std::string, std::string> own) -> std::string {
    try {
      run_smt("DropHeaders", own, Record{.value = "1"}, false);
    } catch (const weir::ConfigError& e) {
      return e.key();
    }
    return "<none>";
  };
  BOOST_TEST(key_of({}) == "transforms.t.headers");
  BOOST_TEST(key_of({{"headers", ""}}) == "transforms.t.headers");
  BOOST_TEST(key_of({{"headers", "a"}, {"header", "b"}}) == "transforms.t.header");
}

BOOST_AUTO_TEST_SUITE_END()
