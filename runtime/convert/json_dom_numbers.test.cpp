#include "runtime/convert/json_dom_numbers.hpp"

#include <boost/test/unit_test.hpp>

using namespace weir::runtime::convert;

namespace {

struct Indexed {
  std::string text; ///< the copy, without its padding
  std::vector<std::string_view> tokens;
};

Indexed index(std::string_view json) {
  std::vector<char> out;
  Indexed r;
  index_for_simdjson(json, out, 4, r.tokens);
  r.text.assign(out.data(), out.size() - 4);
  return r;
}

} // namespace

BOOST_AUTO_TEST_SUITE(json_dom_numbers)

BOOST_AUTO_TEST_CASE(numbers_outside_strings_become_ordinals) {
  std::string json = R"({"a":[1,-2.5e3],"b\"1":"x 3 \\","c":7,"d":[1.,-,1e,01]})";
  Indexed r = index(json);
  // Invalid runs stay as they are (simdjson then refuses them); leading zeros are a
  // token (Connect allows them).
  BOOST_TEST(r.text == R"({"a":[0,1],"b\"1":"x 3 \\","c":2,"d":[1.,-,1e,3]})");
  BOOST_REQUIRE(r.tokens.size() == 4u);
  BOOST_TEST(r.tokens[0] == "1");
  BOOST_TEST(r.tokens[1] == "-2.5e3");
  BOOST_TEST(r.tokens[2] == "7");
  BOOST_TEST(r.tokens[3] == "01");
  BOOST_TEST(index("123456789012345678901234567890").text == "0");
  BOOST_TEST(index(R"(["unterminated 1)").text == R"(["unterminated 1)");
}

BOOST_AUTO_TEST_CASE(lone_surrogate_escapes_become_the_replacement_character) {
  BOOST_TEST(index(R"("\udc00")").text == R"("\uFFFD")");
  BOOST_TEST(index(R"("a\ud800b")").text == R"("a\uFFFDb")");
  BOOST_TEST(index(R"(["\ud800\u0041",2])").text == R"(["\uFFFD\u0041",0])");
  BOOST_TEST(index(R"("\ud83d\ude00")").text == R"("\ud83d\ude00")"); // a pair stays
  BOOST_TEST(index(R"("\\udc00")").text == R"("\\udc00")");             // an escaped backslash
}

BOOST_AUTO_TEST_SUITE_END()
