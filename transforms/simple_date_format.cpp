#include "transforms/simple_date_format.hpp"

#include <array>
#include <chrono>
#include <stdexcept>

namespace weir::transforms {

namespace {

constexpr int64_t ms_per_day = 86400000;
// 1582-10-15T00:00:00Z, the first Gregorian day of java.util.GregorianCalendar.
constexpr int64_t cutover_millis = -12219292800000;
constexpr int64_t cutover_day = cutover_millis / ms_per_day;
constexpr std::string_view letters = "GyMdkHmsSEDFwWahKzZYuXL";

constexpr std::array<std::string_view, 12> months{"January", "February", "March",     "April",
                                                   "May",     "June",     "July",      "August",
                                                   "September", "October", "November", "December"};
constexpr std::array<std::string_view, 12> short_months{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<std::string_view, 7> weekdays{"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                   "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 7> short_weekdays{"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
constexpr std::array<std::string_view, 2> am_pm{"AM", "PM"};
constexpr std::array<std::string_view, 2> eras{"BC", "AD"};

// Zone names SimpleDateFormat accepts for z/Z, with their offsets in minutes (the
// standard or daylight offset the name denotes, as Java applies it).
struct ZoneName {
  std::string_view name;
  int minutes;
};
constexpr std::array<ZoneName, 26> zone_names{{
    {"Coordinated Universal Time", 0}, {"Greenwich Mean Time", 0}, {"UTC", 0}, {"GMT", 0},
    {"UT", 0}, {"Z", 0}, {"WET", 0}, {"WEST", 60}, {"BST", 60}, {"CET", 60}, {"CEST", 120},
    {"MET", 60}, {"MEST", 120}, {"EET", 120}, {"EEST", 180}, {"MSK", 180}, {"IST", 330},
    {"JST", 540}, {"EST", -300}, {"EDT", -240}, {"CST", -360}, {"CDT", -300}, {"MST", -420},
    {"MDT", -360}, {"PST", -480}, {"PDT", -420},
}};

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }
int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

struct Civil {
  int64_t year; ///< proleptic: 0 is 1 BC
  int month;    ///< 1..12
  int day;
};

// Days since 1970-01-01 (Howard Hinnant's algorithms).
int64_t days_from_gregorian(int64_t y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  int64_t era = floor_div(y, 400);
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

Civil gregorian_from_days(int64_t z) {
  z += 719468;
  int64_t era = floor_div(z, 146097);
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

// The Julian calendar through Julian day numbers (JDN 2440588 is 1970-01-01).
int64_t days_from_julian(int64_t y, int m, int d) {
  int64_t a = (14 - m) / 12;
  int64_t yy = y + 4800 - a;
  int64_t mm = m + 12 * a - 3;
  return d + (153 * mm + 2) / 5 + 365 * yy + floor_div(yy, 4) - 32083 - 2440588;
}

Civil julian_from_days(int64_t days) {
  int64_t c = days + 2440588 + 32082;
  int64_t d = floor_div(4 * c + 3, 1461);
  int64_t e = c - floor_div(1461 * d, 4);
  int64_t m = (5 * e + 2) / 153;
  return {d - 4800 + m / 10, static_cast<int>(m + 3 - 12 * (m / 10)), static_cast<int>(e - (153 * m + 2) / 5 + 1)};
}

// GregorianCalendar's hybrid: Julian before the cutover, Gregorian from it.
int64_t days_from_civil(int64_t y, int m, int d) {
  if (y > 1582)
    return days_from_gregorian(y, m, d);
  if (y < 1582)
    return days_from_julian(y, m, d);
  int64_t g = days_from_gregorian(y, m, d);
  return g >= cutover_day ? g : days_from_julian(y, m, d);
}

Civil civil_from_days(int64_t days) {
  return days >= cutover_day ? gregorian_from_days(days) : julian_from_days(days);
}

int64_t jan1(int64_t year) { return year <= 1582 ? days_from_julian(year, 1, 1) : days_from_gregorian(year, 1, 1); }

int day_of_week(int64_t days) { return static_cast<int>(floor_mod(days + 4, 7)); } // 0 = Sunday

void pad(int64_t v, int min_digits, std::string& out) {
  char buf[24];
  int n = 0;
  bool negative = v < 0;
  uint64_t u = negative ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  do {
    buf[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (negative)
    out += '-';
  for (int i = n; i < min_digits; ++i)
    out += '0';
  while (n > 0)
    out += buf[--n];
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool iequals_at(std::string_view text, size_t pos, std::string_view word) {
  if (text.size() - pos < word.size())
    return false;
  for (size_t i = 0; i < word.size(); ++i) {
    char a = text[pos + i], b = word[i];
    if (a >= 'A' && a <= 'Z')
      a = static_cast<char>(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z')
      b = static_cast<char>(b - 'A' + 'a');
    if (a != b)
      return false;
  }
  return true;
}

// DateFormat's matchString: the longest candidate matching at `pos`, ignoring case.
template <size_t N>
int match(std::string_view text, size_t pos, const std::array<std::string_view, N>& words, size_t& end) {
  int best = -1;
  size_t best_len = 0;
  for (size_t i = 0; i < N; ++i)
    if (words[i].size() > best_len && iequals_at(text, pos, words[i])) {
      best = static_cast<int>(i);
      best_len = words[i].size();
    }
  if (best >= 0)
    end = pos + best_len;
  return best;
}

// Whether Java parses the field as a number with exactly `count` digits when
// another numeric field follows it directly (SimpleDateFormat.shouldObeyCount).
bool numeric_for_abutting(char letter, int count) {
  switch (letter) {
    case 'M':
    case 'L': return count <= 2;
    case 'y':
    case 'd':
    case 'k':
    case 'H':
    case 'm':
    case 's':
    case 'S':
    case 'D':
    case 'F':
    case 'w':
    case 'W':
    case 'h':
    case 'K': return true;
    default: return false;
  }
}

// subParseNumericZone: "hh[[:]mm]" after a sign; returns the end, or 0 on failure.
size_t numeric_zone(std::string_view text, size_t i, int sign, int count, bool colon, int64_t& offset_ms) {
  auto at = [&](size_t k) { return k < text.size() ? text[k] : '\0'; };
  char c = at(i++);
  if (!is_digit(c))
    return 0;
  int hours = c - '0';
  c = at(i++);
  if (is_digit(c)) {
    hours = hours * 10 + (c - '0');
  } else {
    if (count > 0 || !colon)
      return 0;
    --i;
  }
  if (hours > 23)
    return 0;
  int minutes = 0;
  if (count != 1) {
    c = at(i++);
    if (colon) {
      if (c != ':')
        return 0;
      c = at(i++);
    }
    if (!is_digit(c))
      return 0;
    minutes = c - '0';
    c = at(i++);
    if (!is_digit(c))
      return 0;
    minutes = minutes * 10 + (c - '0');
    if (minutes > 59)
      return 0;
  }
  offset_ms = static_cast<int64_t>(sign) * (hours * 60 + minutes) * 60000;
  return i;
}

} // namespace

SimpleDateFormat::SimpleDateFormat(std::string_view p) : pattern_(p) {
  auto literal = [&](std::string_view s) {
    if (!items_.empty() && items_.back().letter == 0)
      items_.back().text += s;
    else
      items_.push_back({0, 0, std::string(s)});
  };
  size_t i = 0;
  while (i < p.size()) {
    char c = p[i];
    if (c == '\'') {
      if (i + 1 < p.size() && p[i + 1] == '\'') {
        literal("'");
        i += 2;
        continue;
      }
      std::string text;
      size_t j = i + 1;
      while (true) {
        if (j >= p.size())
          throw std::invalid_argument("Unterminated quote");
        if (p[j] == '\'') {
          if (j + 1 < p.size() && p[j + 1] == '\'') {
            text += '\'';
            j += 2;
            continue;
          }
          break;
        }
        text += p[j++];
      }
      literal(text);
      i = j + 1;
    } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
      if (letters.find(c) == std::string_view::npos)
        throw std::invalid_argument(std::string("Illegal pattern character '") + c + "'");
      size_t j = i;
      while (j < p.size() && p[j] == c)
        ++j;
      int count = static_cast<int>(j - i);
      if (c == 'X' && count > 3)
        throw std::invalid_argument("invalid ISO 8601 format: length=" + std::to_string(count));
      items_.push_back({c, count, {}});
      i = j;
    } else {
      literal(std::string_view(&p[i], 1));
      ++i;
    }
  }
  using namespace std::chrono;
  int64_t now = duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  Civil c = gregorian_from_days(floor_div(now, ms_per_day));
  int64_t start = (days_from_gregorian(c.year - 80, c.month, c.day)) * ms_per_day + floor_mod(now, ms_per_day);
  set_two_digit_start(start);
}

void SimpleDateFormat::set_two_digit_start(int64_t millis) {
  century_start_millis_ = millis;
  century_start_year_ = civil_from_days(floor_div(millis, ms_per_day)).year;
}

void SimpleDateFormat::format(int64_t millis, std::string& out) const {
  int64_t days = floor_div(millis, ms_per_day);
  int64_t ms_of_day = millis - days * ms_per_day;
  Civil c = civil_from_days(days);
  bool ad = c.year > 0;
  int64_t year_of_era = ad ? c.year : 1 - c.year;
  int dow = day_of_week(days);
  int hour = static_cast<int>(ms_of_day / 3600000);
  // US weeks: Sunday first, week 1 holds January 1st (minimal days 1).
  auto week_info = [&](int64_t& week, int64_t& week_year) {
    int64_t week_start = days - dow;
    int64_t next = jan1(c.year + 1);
    if (next - day_of_week(next) == week_start) {
      week = 1;
      week_year = c.year + 1;
      return;
    }
    int64_t first = jan1(c.year);
    week = (days - (first - day_of_week(first))) / 7 + 1;
    week_year = c.year;
  };
  for (const auto& item : items_) {
    int n = item.count;
    switch (item.letter) {
      case 0: out += item.text; break;
      case 'G': out += ad ? "AD" : "BC"; break;
      case 'y':
        if (n == 2)
          pad(year_of_era % 100, 2, out);
        else
          pad(year_of_era, n, out);
        break;
      case 'Y': {
        int64_t week, week_year;
        week_info(week, week_year);
        int64_t y = week_year > 0 ? week_year : 1 - week_year;
        if (n == 2)
          pad(y % 100, 2, out);
        else
          pad(y, n, out);
        break;
      }
      case 'M':
      case 'L':
        if (n >= 4)
          out += months[c.month - 1];
        else if (n == 3)
          out += short_months[c.month - 1];
        else
          pad(c.month, n, out);
        break;
      case 'w': {
        int64_t week, week_year;
        week_info(week, week_year);
        pad(week, n, out);
        break;
      }
      case 'W': {
        int64_t first = days - (c.day - 1);
        pad((days - (first - day_of_week(first))) / 7 + 1, n, out);
        break;
      }
      case 'D': pad(days - jan1(c.year) + 1, n, out); break;
      case 'd': pad(c.day, n, out); break;
      case 'F': pad((c.day - 1) / 7 + 1, n, out); break;
      case 'E': out += n >= 4 ? weekdays[dow] : short_weekdays[dow]; break;
      case 'u': pad(dow == 0 ? 7 : dow, n, out); break;
      case 'a': out += am_pm[hour < 12 ? 0 : 1]; break;
      case 'H': pad(hour, n, out); break;
      case 'k': pad(hour == 0 ? 24 : hour, n, out); break;
      case 'K': pad(hour % 12, n, out); break;
      case 'h': pad(hour % 12 == 0 ? 12 : hour % 12, n, out); break;
      case 'm': pad(ms_of_day / 60000 % 60, n, out); break;
      case 's': pad(ms_of_day / 1000 % 60, n, out); break;
      case 'S': pad(ms_of_day % 1000, n, out); break;
      case 'z': out += n >= 4 ? "Coordinated Universal Time" : "UTC"; break;
      case 'Z': out += "+0000"; break;
      case 'X': out += 'Z'; break;
      default: break;
    }
  }
}

std::optional<int64_t> SimpleDateFormat::parse(std::string_view text) const {
  // Calendar fields as CalendarBuilder collects them; a stamp orders the sets, so
  // the resolution below can prefer the field set last, as GregorianCalendar does.
  int64_t year = 1970, month = 0, day = 1, day_of_year = 1;
  int64_t hour_of_day = 0, hour = 0, minute = 0, second = 0, millisecond = 0, zone_ms = 0;
  int ampm = 0;
  bool bc = false, ambiguous_year = false;
  int stamp = 0, s_month = 0, s_day = 0, s_doy = 0, s_hod = 0, s_hour = 0, s_ampm = 0;

  size_t pos = 0;
  const size_t n = text.size();
  for (size_t i = 0; i < items_.size(); ++i) {
    const Item& item = items_[i];
    if (item.letter == 0) {
      for (char c : item.text) {
        if (pos >= n || text[pos] != c)
          return std::nullopt;
        ++pos;
      }
      continue;
    }
    bool obey = i + 1 < items_.size() && items_[i + 1].letter != 0
                && numeric_for_abutting(items_[i + 1].letter, items_[i + 1].count);
    const size_t start = pos;
    while (true) { // blanks before a field are skipped; the end of text fails
      if (pos >= n)
        return std::nullopt;
      if (text[pos] != ' ' && text[pos] != '\t')
        break;
      ++pos;
    }
    const size_t actual_start = pos;
    char letter = item.letter;
    int count = item.count;
    bool textual = letter == 'G' || letter == 'E' || letter == 'a' || letter == 'z' || letter == 'Z'
                   || letter == 'X' || ((letter == 'M' || letter == 'L') && count >= 3);
    int64_t value = 0;
    if (!textual) {
      // DecimalFormat, integers only: an optional minus sign, then digits.
      size_t limit = n;
      if (obey) {
        if (start + count > n)
          return std::nullopt;
        limit = start + count;
      }
      size_t p = pos;
      bool negative = p < limit && text[p] == '-';
      if (negative)
        ++p;
      size_t digits_start = p;
      uint64_t v = 0;
      while (p < limit && is_digit(text[p]))
        v = v * 10 + static_cast<uint64_t>(text[p++] - '0');
      if (p == digits_start)
        return std::nullopt;
      // Number.intValue(): Java keeps the low 32 bits.
      value = static_cast<int32_t>(static_cast<uint32_t>(negative ? 0 - v : v));
      pos = p;
    }
    size_t end = 0;
    switch (letter) {
      case 'y':
      case 'Y':
        if (count <= 2 && pos - actual_start == 2 && is_digit(text[actual_start])
            && is_digit(text[actual_start + 1])) {
          int64_t ambiguous = century_start_year_ % 100;
          ambiguous_year = value == ambiguous;
          value += (century_start_year_ / 100) * 100 + (value < ambiguous ? 100 : 0);
        }
        year = value;
        break;
      case 'M':
      case 'L':
        if (count <= 2) {
          month = value - 1;
        } else {
          int m = match(text, start, months, end);
          if (m < 0)
            m = match(text, start, short_months, end);
          if (m < 0)
            return std::nullopt;
          month = m;
          pos = end;
        }
        s_month = ++stamp;
        break;
      case 'd':
        day = value;
        s_day = ++stamp;
        break;
      case 'D':
        day_of_year = value;
        s_doy = ++stamp;
        break;
      case 'H':
        hour_of_day = value;
        s_hod = ++stamp;
        break;
      case 'k':
        hour_of_day = value == 24 ? 0 : value;
        s_hod = ++stamp;
        break;
      case 'K':
        hour = value;
        s_hour = ++stamp;
        break;
      case 'h':
        hour = value == 12 ? 0 : value;
        s_hour = ++stamp;
        break;
      case 'm': minute = value; break;
      case 's': second = value; break;
      case 'S': millisecond = value; break;
      case 'F':
      case 'w':
      case 'W':
      case 'u': break; // read, not used (see the header)
      case 'E':
        if (match(text, start, weekdays, end) < 0 && match(text, start, short_weekdays, end) < 0)
          return std::nullopt;
        pos = end;
        break;
      case 'a': {
        int v = match(text, start, am_pm, end);
        if (v < 0)
          return std::nullopt;
        ampm = v;
        s_ampm = ++stamp;
        pos = end;
        break;
      }
      case 'G': {
        int v = match(text, start, eras, end);
        if (v < 0)
          return std::nullopt;
        bc = v == 0;
        pos = end;
        break;
      }
      case 'X': {
        char c = text[pos];
        if (c == 'Z') {
          zone_ms = 0;
          ++pos;
          break;
        }
        if (c != '+' && c != '-')
          return std::nullopt;
        size_t e = numeric_zone(text, pos + 1, c == '+' ? 1 : -1, count, count == 3, zone_ms);
        if (e == 0)
          return std::nullopt;
        pos = e;
        break;
      }
      case 'z':
      case 'Z': {
        char c = text[pos];
        if (c == '+' || c == '-') {
          size_t e = numeric_zone(text, pos + 1, c == '+' ? 1 : -1, 0, false, zone_ms);
          if (e == 0)
            return std::nullopt;
          pos = e;
        } else if (iequals_at(text, pos, "GMT")) {
          pos += 3;
          if (pos < n && (text[pos] == '+' || text[pos] == '-')) {
            size_t e = numeric_zone(text, pos + 1, text[pos] == '+' ? 1 : -1, 0, true, zone_ms);
            if (e == 0)
              return std::nullopt;
            pos = e;
          } else {
            zone_ms = 0;
          }
        } else {
          size_t best_len = 0;
          for (const auto& z : zone_names)
            if (z.name.size() > best_len && iequals_at(text, pos, z.name)) {
              best_len = z.name.size();
              zone_ms = static_cast<int64_t>(z.minutes) * 60000;
            }
          if (best_len == 0)
            return std::nullopt;
          pos += best_len;
        }
        break;
      }
      default: return std::nullopt;
    }
  }
  if (pos == 0) // Java's parse(String) fails when nothing was consumed
    return std::nullopt;

  auto compute = [&](int64_t y) -> int64_t {
    if (bc)
      y = 1 - y;
    __int128 days;
    if (s_doy > std::max(s_month, s_day)) {
      days = static_cast<__int128>(days_from_civil(y, 1, 1)) + day_of_year - 1;
    } else {
      int64_t yy = y + floor_div(month, 12);
      days = static_cast<__int128>(days_from_civil(yy, static_cast<int>(floor_mod(month, 12)) + 1, 1)) + day - 1;
    }
    int hour_stamp = s_hour != 0 && s_ampm != 0 ? std::max(s_hour, s_ampm) : 0;
    int best = std::max(hour_stamp, s_hod);
    if (best == 0)
      best = std::max(s_hour, s_ampm);
    int64_t time_of_day = 0;
    if (best != 0 && best == s_hod)
      time_of_day = hour_of_day;
    else if (best != 0)
      time_of_day = hour + (s_ampm != 0 ? 12 * ampm : 0);
    __int128 millis = days * ms_per_day + static_cast<__int128>(time_of_day) * 3600000 + minute * 60000
                      + second * 1000 + millisecond - zone_ms;
    return static_cast<int64_t>(millis);
  };
  int64_t result = compute(year);
  if (ambiguous_year && result < century_start_millis_)
    result = compute(year + 100);
  return result;
}

} // namespace weir::transforms
