#include "runtime/convert/header_text.hpp"

#include <chrono>
#include <cstdio>

#include "runtime/convert/json_text.hpp"
#include "runtime/data/base64.hpp"
#include "runtime/data/decimal.hpp"

namespace weir::runtime::convert {

namespace {

using data::Kind;
using data::Logical;

constexpr int64_t ms_per_day = 86'400'000;

/// Values.dateFormatFor: under a day (negative too) a time, a whole day a date, else
/// a timestamp; always UTC.
void append_date(int64_t millis, std::string& out) {
  using namespace std::chrono;
  auto point = sys_time<milliseconds>(milliseconds(millis));
  auto day = floor<days>(point);
  year_month_day ymd(day);
  hh_mm_ss of_day(point - day);
  char buf[48];
  int n = 0;
  if (millis < ms_per_day)
    n = std::snprintf(buf, sizeof buf, "%02d:%02d:%02d.%03dZ", static_cast<int>(of_day.hours().count()),
                      static_cast<int>(of_day.minutes().count()), static_cast<int>(of_day.seconds().count()),
                      static_cast<int>(of_day.subseconds().count()));
  else if (millis % ms_per_day == 0)
    n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                      static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  else
    n = std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", static_cast<int>(ymd.year()),
                      static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                      static_cast<int>(of_day.hours().count()), static_cast<int>(of_day.minutes().count()),
                      static_cast<int>(of_day.seconds().count()), static_cast<int>(of_day.subseconds().count()));
  out.append(buf, static_cast<size_t>(n));
}

/// Values.escape: only backslashes and double quotes.
void append_quoted(std::string_view s, std::string& out) {
  out += '"';
  for (char c : s) {
    if (c == '\\' || c == '"')
      out += '\\';
    out += c;
  }
  out += '"';
}

void append_value(const data::Value& v, const data::Schema* schema, bool embedded, std::string& out) {
  if (schema != nullptr && v.is_integer()) {
    switch (schema->logical()) {
      case Logical::Date: append_date(v.as_int() * ms_per_day, out); return;
      case Logical::Time:
      case Logical::Timestamp: append_date(v.as_int(), out); return;
      default: break;
    }
  }
  if (schema != nullptr && schema->logical() == Logical::Decimal && v.kind() == Kind::Bytes) {
    out += data::decimal_to_string(data::decimal_unscaled(v.as_string()), schema->decimal_scale());
    return;
  }
  switch (v.kind()) {
    case Kind::Null: out += "null"; return;
    case Kind::Boolean: out += v.as_bool() ? "true" : "false"; return;
    case Kind::Int8:
    case Kind::Int16:
    case Kind::Int32:
    case Kind::Int64:
      if (v.is_java_date()) // a schemaless Date/Time/Timestamp from TimestampConverter
        append_date(v.as_int(), out);
      else
        append_int(v.as_int(), out);
      return;
    case Kind::Float32: append_java_float(v.as_float32(), out); return;
    case Kind::Float64: append_java_double(v.as_double(), out); return;
    case Kind::String:
      if (embedded)
        append_quoted(v.as_string(), out);
      else
        out += v.as_string();
      return;
    case Kind::Bytes:
      if (embedded)
        out += '"';
      data::base64_encode(v.as_string(), out);
      if (embedded)
        out += '"';
      return;
    case Kind::Array: {
      const data::Schema* items = schema ? schema->value_schema().get() : nullptr;
      out += '[';
      for (size_t i = 0; i < v.items().size(); ++i) {
        if (i > 0)
          out += ',';
        append_value(v.items()[i], items, true, out);
      }
      out += ']';
      return;
    }
    case Kind::Map: {
      const data::Schema* keys = schema ? schema->key_schema().get() : nullptr;
      const data::Schema* values = schema ? schema->value_schema().get() : nullptr;
      out += '{';
      bool first = true;
      for (const auto& e : v.entries()) {
        if (!first)
          out += ',';
        first = false;
        append_value(e.key, keys, true, out);
        out += ':';
        append_value(e.value, values, true, out);
      }
      out += '}';
      return;
    }
    case Kind::Struct: {
      out += '{';
      bool first = true;
      for (const auto& f : v.schema()->fields()) {
        if (!first)
          out += ',';
        first = false;
        append_quoted(f.name, out);
        out += ':';
        append_value(v.fields()[f.index], f.schema.get(), true, out);
      }
      out += '}';
      return;
    }
  }
}

} // namespace

void append_header_text(const data::Value& v, const data::Schema* schema, std::string& out) {
  append_value(v, schema, false, out);
}

} // namespace weir::runtime::convert
