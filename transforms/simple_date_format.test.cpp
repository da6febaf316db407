#include "transforms/simple_date_format.hpp"

#include <boost/test/unit_test.hpp>

#include <stdexcept>

using weir::transforms::SimpleDateFormat;

namespace {

std::string fmt(const char* pattern, int64_t millis) {
  std::string out;
  SimpleDateFormat(pattern).format(millis, out);
  return out;
}

std::optional<int64_t> parse(const char* pattern, const char* text) { return SimpleDateFormat(pattern).parse(text); }

std::string compile_error(const char* pattern) {
  try {
    SimpleDateFormat f(pattern);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "<none>";
}

constexpr int64_t nov14 = 1700000000000; // 2023-11-14T22:13:20Z, a Tuesday

} // namespace

BOOST_AUTO_TEST_SUITE(simple_date_format)

// Expected texts are what java.text.SimpleDateFormat (UTC, en_US) prints.
BOOST_AUTO_TEST_CASE(format) {
  struct Row {
    const char* pattern;
    int64_t millis;
    const char* text;
  };
  std::vector<Row> rows{
      {"yyyy MM dd HH mm ss SSS z", 86401234, "1970 01 02 00 00 01 234 UTC"},
      {"yyyyMMdd", 1483425001864, "20170103"},
      {"yyyy-MM-dd'T'HH:mm:ss.SSSXXX", nov14, "2023-11-14T22:13:20.000Z"},
      {"yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", nov14 + 7, "2023-11-14T22:13:20.007Z"},
      {"yy/M/d H:m:s.S", nov14 + 7, "23/11/14 22:13:20.7"},
      {"y yyy yyyyy", nov14, "2023 2023 02023"},
      {"MMM MMMM LLL E EEEE", nov14, "Nov November Nov Tue Tuesday"},
      {"D DDD w W F u", nov14, "318 318 46 3 2 2"},
      {"h hh K k a", nov14, "10 10 10 22 PM"},
      {"h K k a", 1700006400000 - 86400000 + 0, "12 0 24 AM"}, // 2023-11-14T00:00Z
      {"z zzzz Z X XX XXX", nov14, "UTC Coordinated Universal Time +0000 Z Z Z"},
      {"G yyyy", nov14, "AD 2023"},
      {"h 'o''clock' a", nov14, "10 o'clock PM"},
      {"''yyyy''", nov14, "'2023'"},
      {"SSSS", 1234, "0234"},
      {"yyyy-MM-dd HH:mm:ss.SSS", -1, "1969-12-31 23:59:59.999"},
      // US weeks: the week holding January 1st is week 1 of the next week-year.
      {"YYYY-ww W E", 1735430400000, "2025-01 5 Sun"},
      // GregorianCalendar switches to the Julian calendar before 1582-10-15.
      {"yyyy-MM-dd", -12219292800000, "1582-10-15"},
      {"yyyy-MM-dd", -12219292800001, "1582-10-04"},
      {"yyyy-MM-dd G", -62135596800000, "0001-01-03 AD"},
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.pattern << " @ " << r.millis) { BOOST_TEST(fmt(r.pattern, r.millis) == r.text); }
}

BOOST_AUTO_TEST_CASE(parse_is_lenient_like_java) {
  struct Row {
    const char* pattern;
    const char* text;
    std::optional<int64_t> millis;
  };
  std::vector<Row> rows{
      {"yyyy MM dd HH mm ss SSS z", "1970 01 02 00 00 01 234 UTC", 86401234},
      {"yyyyMMdd", "20170103", 1483401600000},
      {"yyyy-MM-dd", "2024-01-15", 1705276800000},
      {"yyyy-MM-dd", "2024-01-15T10:00:00", 1705276800000}, // trailing text ignored
      {"yyyy-MM-dd", " 2024-01-15", 1705276800000},         // blanks before a field skipped
      {"yyyy-MM-dd", "2024-13-01", 1735689600000},          // month 13 rolls over
      {"yyyy-MM-dd", "2024-01-32", 1706745600000},          // so does day 32
      {"yyyy-MM-dd", "2024-1-15", 1705276800000},           // not abutting: any digit count
      {"yyyy-MM-dd", "2024-01", std::nullopt},
      {"yyyy-MM-dd", "2024/01/15", std::nullopt},
      {"yyyy-MM-dd", "", std::nullopt},
      {"yyyy-MM-dd", "x2024-01-15", std::nullopt},
      {"yyyyMMdd", "2024115", 1730764800000}, // abutting fields take their width: 2024-11-5
      {"yyyyMMdd", "202411", std::nullopt},
      {"yyyy-MM-dd HH:mm Z", "2024-01-15 10:00 +0100", 1705309200000},
      {"yyyy-MM-dd HH:mm z", "2024-01-15 10:00 GMT+01:00", 1705309200000},
      {"yyyy-MM-dd HH:mm z", "2024-01-15 10:00 PST", 1705341600000},
      {"yyyy-MM-dd HH:mm z", "2024-01-15 10:00 utc", 1705312800000},
      {"yyyy-MM-dd HH:mm z", "2024-01-15 10:00 Mars", std::nullopt},
      {"yyyy-MM-dd'T'HH:mmXXX", "2024-01-15T10:00+05:30", 1705293000000},
      {"yyyy-MM-dd'T'HH:mmX", "2024-01-15T10:00Z", 1705312800000},
      {"yyyy-MM-dd'T'HH:mmX", "2024-01-15T10:00+01", 1705309200000},
      {"yyyy-MM-dd'T'HH:mmXX", "2024-01-15T10:00+01:00", std::nullopt},
      {"MM/dd/yyyy hh:mm a", "01/15/2024 12:30 AM", 1705278600000},
      {"MM/dd/yyyy hh:mm a", "01/15/2024 12:30 pm", 1705321800000},
      {"MM/dd/yyyy hh:mm", "01/15/2024 12:30", 1705278600000},
      {"dd MMM yyyy", "15 Jan 2024", 1705276800000},
      {"dd MMMM yyyy", "15 january 2024", 1705276800000},
      {"dd MMM yyyy", "15 Janvier 2024", std::nullopt},
      {"EEE, dd MMM yyyy HH:mm:ss z", "Mon, 15 Jan 2024 00:00:00 GMT", 1705276800000},
      {"EEE, dd MMM yyyy", "Fri, 15 Jan 2024", 1705276800000}, // the weekday is read, not used
      {"EEE, dd MMM yyyy", "Fry, 15 Jan 2024", std::nullopt},
      {"yyyy-MM-dd G", "0001-01-03 AD", -62135596800000},
      {"yyyy D", "2024 15", 1705276800000},
      {"SSS", "1234", 1234},
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.pattern << " <- " << r.text) {
      auto got = parse(r.pattern, r.text);
      BOOST_TEST(got.has_value() == r.millis.has_value());
      if (got && r.millis)
        BOOST_TEST(*got == *r.millis);
    }
}

BOOST_AUTO_TEST_CASE(two_digit_years) {
  SimpleDateFormat f("yy-MM-dd");
  f.set_two_digit_start(-631152000000); // 1950-01-01
  BOOST_TEST(*f.parse("24-01-15") == 1705276800000);  // 2024
  BOOST_TEST(*f.parse("51-03-01") == -594518400000);  // 1951
  BOOST_TEST(*f.parse("50-01-01") == -631152000000);  // 1950, not before the start
  SimpleDateFormat g("yyyy-MM-dd");
  BOOST_TEST(*g.parse("24-01-15") == -61408800000000); // yyyy: the year 24 (Julian), literally
}

BOOST_AUTO_TEST_CASE(bad_patterns) {
  BOOST_TEST(compile_error("bad-format") == "Illegal pattern character 'b'");
  BOOST_TEST(compile_error("yyyy'T") == "Unterminated quote");
  BOOST_TEST(compile_error("XXXX") == "invalid ISO 8601 format: length=4");
  BOOST_TEST(compile_error("yyyy-MM-dd'T'HH:mm:ss.SSSZ") == "<none>");
  BOOST_TEST(compile_error("é yyyy") == "<none>"); // non-ASCII is literal text
}

BOOST_AUTO_TEST_SUITE_END()
