// Where a JSON text goes wrong (issue 19): line, column, byte offset and what was
// expected, for the mistakes people make in REST bodies and connector files.
#include "runtime/config/json_syntax.hpp"

#include <boost/test/unit_test.hpp>

#include <string>

using namespace weir::runtime;

namespace {

std::string error_of(std::string_view text) {
  auto e = find_json_syntax_error(text);
  BOOST_REQUIRE_MESSAGE(e, "no error found in " << text);
  return e->describe();
}

} // namespace

BOOST_AUTO_TEST_SUITE(json_syntax)

BOOST_AUTO_TEST_CASE(valid_json_has_no_error) {
  for (std::string_view ok : {R"({})", R"( {"a": [1, -2.5e+3, 0, true, false, null, "x\"\\\/\b\f\n\r\tA"]} )",
                              R"([])", R"("text")", "1", R"({"é": "日本"})", "[[[]]]\n"})
    BOOST_TEST(!find_json_syntax_error(ok), ok);
}

BOOST_AUTO_TEST_CASE(each_mistake_is_placed_and_explained) {
  // A missing comma between two members, on the second line.
  BOOST_TEST(error_of("{\"name\": \"a\"\n \"config\": {}}")
             == "line 2, column 2 (byte 14): expected ',' or '}' after an object member, found '\"'");
  // A trailing comma.
  BOOST_TEST(error_of(R"({"a": 1,})") == "line 1, column 9 (byte 8): expected a member name in double quotes, found '}'");
  // Single quotes and a bare word.
  BOOST_TEST(error_of(R"({'a': 1})") == "line 1, column 2 (byte 1): expected a member name in double quotes, found '''");
  BOOST_TEST(error_of(R"({"a": abc})")
             == "line 1, column 7 (byte 6): expected a JSON value (an object, array, string, number, true, false or "
                "null), found 'a'");
  BOOST_TEST(error_of(R"({"a": tru})") == "line 1, column 7 (byte 6): invalid literal 'tru': expected true (strings need double quotes)");
  BOOST_TEST(error_of(R"({"a" 1})") == "line 1, column 6 (byte 5): expected ':' after a member name, found '1'");
  BOOST_TEST(error_of("[1 2]") == "line 1, column 4 (byte 3): expected ',' or ']' after an array element, found '2'");
  // Cut short, and an unterminated string (placed where it opens).
  BOOST_TEST(error_of(R"({"a": {"b": 1})") == "line 1, column 15 (byte 14): expected ',' or '}' after an object member, found the end of the input");
  BOOST_TEST(error_of("{\"a\": \"open}") == "line 1, column 7 (byte 6): unterminated string: no closing '\"' before the end of the input");
  BOOST_TEST(error_of("") == "line 1, column 1 (byte 0): expected a JSON value (an object, array, string, number, true, false or null), found the end of the input");
  // Inside strings: a raw newline, a bad escape, invalid UTF-8.
  BOOST_TEST(error_of("{\"a\": \"x\ny\"}") == "line 1, column 9 (byte 8): control character byte 0x0A in a string: escape it (\\n, \\t, \\u00XX)");
  BOOST_TEST(error_of(R"(["\q"])") == "line 1, column 3 (byte 2): invalid escape in a string: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
  BOOST_TEST(error_of(R"(["\u12G4"])") == "line 1, column 3 (byte 2): invalid escape in a string: \\u takes four hex digits");
  BOOST_TEST(error_of("[\"\xC3\x28\"]") == "line 1, column 3 (byte 2): invalid UTF-8 in a string: byte 0xC3");
  // Numbers.
  BOOST_TEST(error_of("[01]") == "line 1, column 3 (byte 2): a number cannot have a leading zero");
  BOOST_TEST(error_of("[1.]") == "line 1, column 4 (byte 3): expected a digit after the decimal point, found ']'");
  BOOST_TEST(error_of("[-]") == "line 1, column 3 (byte 2): expected a digit in a number, found ']'");
  BOOST_TEST(error_of("[1e]") == "line 1, column 4 (byte 3): expected a digit in the exponent, found ']'");
  // Something after the document; columns count characters, not bytes.
  BOOST_TEST(error_of("{} x") == "line 1, column 4 (byte 3): unexpected 'x' after the end of the JSON document");
  BOOST_TEST(error_of("{\"é\": x}") == "line 1, column 7 (byte 7): expected a JSON value (an object, array, string, number, true, false or null), found 'x'");
}

BOOST_AUTO_TEST_CASE(depth_is_limited_and_the_parser_s_reason_is_the_fallback) {
  auto deep = find_json_syntax_error("[[[1]]]", 2);
  BOOST_REQUIRE(deep);
  BOOST_TEST(deep->describe() == "line 1, column 3 (byte 2): nested deeper than 2 levels");
  BOOST_TEST(describe_json_error("[1 2]", "improper structure")
             == "line 1, column 4 (byte 3): expected ',' or ']' after an array element, found '2'");
  // Valid to the scan (a parser's own limit): the parser's reason stands.
  BOOST_TEST(describe_json_error("[1]", "document too large") == "document too large");
}

BOOST_AUTO_TEST_SUITE_END()
