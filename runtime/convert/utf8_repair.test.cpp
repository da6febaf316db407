#include "runtime/convert/utf8_repair.hpp"

#include <boost/test/unit_test.hpp>

using namespace weir::runtime::convert;

namespace {

std::string repaired(std::string_view bytes) {
  std::string out;
  append_utf8_repaired(bytes, out);
  return out;
}

const std::string r = "\xEF\xBF\xBD"; // U+FFFD

} // namespace

BOOST_AUTO_TEST_SUITE(utf8_repair)

BOOST_AUTO_TEST_CASE(well_formed_text_is_unchanged) {
  for (std::string_view s : {"", "plain", "caf\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xED\x9F\xBF",
                             "\xF4\x8F\xBF\xBF"}) {
    BOOST_TEST(is_utf8(s));
    BOOST_TEST(repaired(s) == s);
  }
}

// The cases of Unicode's Table 3-8 and Java's decoder: one U+FFFD per maximal subpart.
BOOST_AUTO_TEST_CASE(each_maximal_ill_formed_subpart_is_one_replacement) {
  BOOST_TEST(!is_utf8("\xFF"));
  BOOST_TEST(repaired("\xFF\xFE\x80") == r + r + r);       // no lead, no lead, lone continuation
  BOOST_TEST(repaired("a\xC3") == "a" + r);                // truncated at the end
  BOOST_TEST(repaired("\xC3(") == r + "(");                // the breaking byte is read again
  BOOST_TEST(repaired("\xC0\xAF") == r + r);               // overlong lead C0 is never valid
  BOOST_TEST(repaired("\xE0\x80\x80") == r + r + r);       // E0 needs A0..BF second
  BOOST_TEST(repaired("\xED\xA0\x80") == r + r + r);       // a surrogate: ED needs 80..9F
  BOOST_TEST(repaired("\xE1\x80") == r);                   // one subpart of two bytes
  BOOST_TEST(repaired("\xE1\x80" "A") == r + "A");
  BOOST_TEST(repaired("\xF0\x9F\x98") == r);               // three of four bytes
  BOOST_TEST(repaired("\xF4\x90\x80\x80") == r + r + r + r); // beyond U+10FFFF
  BOOST_TEST(repaired("\xF5\x80") == r + r);
  BOOST_TEST(repaired("x\xE2\x82\xACy\xE2\x82") == "x\xE2\x82\xACy" + r);
}

BOOST_AUTO_TEST_SUITE_END()
