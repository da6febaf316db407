#include "runtime/convert/json_text.hpp"

#include <boost/test/unit_test.hpp>
#include <cmath>

using namespace weir::runtime::convert;

BOOST_AUTO_TEST_SUITE(json_text)

BOOST_AUTO_TEST_CASE(java_double_formatting) {
  struct Row {
    double d;
    const char* expected;
  };
  for (auto r : {Row{1.0, "1.0"}, Row{0.1, "0.1"}, Row{-2.5, "-2.5"}, Row{100.0, "100.0"},
                 Row{1e7, "1.0E7"}, Row{1.5e10, "1.5E10"}, Row{1e-3, "0.001"}, Row{1e-4, "1.0E-4"},
                 Row{123456.789, "123456.789"}, Row{0.0, "0.0"}, Row{-0.0, "-0.0"},
                 Row{9999999.0, "9999999.0"}, Row{1.2345e-5, "1.2345E-5"}}) {
    std::string out;
    append_java_double(r.d, out);
    BOOST_TEST(out == r.expected);
  }
  std::string f;
  append_java_float(1.1f, f);
  BOOST_TEST(f == "1.1");
  std::string nan;
  append_json_double(std::nan(""), nan);
  BOOST_TEST(nan == "\"NaN\"");
}

BOOST_AUTO_TEST_CASE(string_escaping_like_jackson) {
  std::string out;
  append_json_string("a\"b\\c\n\x01/é", out);
  BOOST_TEST(out == "\"a\\\"b\\\\c\\n\\u0001/é\"");
}

BOOST_AUTO_TEST_SUITE_END()
