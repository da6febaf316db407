// java.text.SimpleDateFormat, as TimestampConverter and TimestampRouter use it: a
// pattern in Java's syntax, the UTC time zone, the en_US locale, and Java's hybrid
// Julian/Gregorian calendar (Julian before 1582-10-15), so the text matches what
// Kafka Connect writes and reads.
//
// Pattern letters: G y Y M L w W D d F E u a H k K h m s S z Z X, text in '...' and
// '' for a quote; other ASCII letters are illegal, as in Java. Formatting follows
// Java for every letter. Parsing is lenient like SimpleDateFormat.parse(String):
// leading blanks before a field are skipped, numbers may overflow into the next
// unit (month 13, minute 75), adjacent numeric fields (`yyyyMMdd`) take exactly
// their letter count, a two-digit `yy` year lands within 80 years before and 20
// after now, and text after the last field is ignored. Parsing reads but ignores
// E, u, F, w and W, and reads Y as the calendar year (Java would resolve week
// dates); zone names are limited to UTC/GMT/UT, GMT+hh:mm, +hhmm, and a table of
// common abbreviations (see simple_date_format.cpp).
//
// Threading: a compiled format is immutable; format() and parse() are const and
// allocate nothing except when `out` grows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weir::transforms {

class SimpleDateFormat {
public:
  /// Compiles `pattern`; throws std::invalid_argument with Java's message
  /// (`Illegal pattern character 'b'`, `Unterminated quote`, ...).
  explicit SimpleDateFormat(std::string_view pattern);

  /// The pattern as given (Java's toPattern()).
  const std::string& pattern() const noexcept { return pattern_; }

  /// Appends `millis` (since the epoch, UTC) rendered with the pattern.
  void format(int64_t millis, std::string& out) const;

  /// SimpleDateFormat.parse(String): the instant the text denotes, or std::nullopt
  /// where Java throws ParseException.
  std::optional<int64_t> parse(std::string_view text) const;

  /// Where two-digit years start (Java: now minus 80 years). For tests.
  void set_two_digit_start(int64_t millis);

private:
  struct Item {
    char letter; ///< 0 for literal text
    int count;
    std::string text;
  };
  std::string pattern_;
  std::vector<Item> items_;
  int64_t century_start_millis_ = 0;
  int64_t century_start_year_ = 0;
};

} // namespace weir::transforms
