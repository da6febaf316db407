// Kafka's stock validators (ConfigDef.Range, ValidString, NonEmptyString), with its
// messages, so a user sees the same reason weir and Kafka Connect would give.
#include <algorithm>
#include <cctype>

#include "runtime/config/convert.hpp"
#include "weir/config.hpp"

namespace weir::validators {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A bound printed as the user would write it: 1, not 1.000000.
std::string bound(double b) { return runtime::format_double(b); }

// long double holds every int64 exactly on the platforms weir targets, so a Long
// near its limits is not rounded before the comparison.
std::optional<long double> as_number(const ConfigValue& v) {
  if (auto i = std::get_if<int32_t>(&v)) return *i;
  if (auto l = std::get_if<int64_t>(&v)) return *l;
  if (auto d = std::get_if<double>(&v)) return *d;
  return {};
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

} // namespace

Validator range(std::optional<double> min, std::optional<double> max) {
  return [min, max](const ConfigValue& v) -> std::optional<std::string> {
    auto n = as_number(v);
    if (!n) return "Value must be a number";
    if (min && *n < static_cast<long double>(*min)) return "Value must be at least " + bound(*min);
    if (max && *n > static_cast<long double>(*max)) return "Value must be no more than " + bound(*max);
    return std::nullopt;
  };
}

Validator one_of(std::vector<std::string> allowed, bool case_insensitive) {
  return [allowed = std::move(allowed), case_insensitive](const ConfigValue& v)
             -> std::optional<std::string> {
    auto ok = [&](const std::string& s) {
      return std::any_of(allowed.begin(), allowed.end(), [&](const std::string& a) {
        return case_insensitive ? lower(a) == lower(s) : a == s;
      });
    };
    if (auto s = std::get_if<std::string>(&v)) {
      if (ok(*s)) return std::nullopt;
      return "String must be one of: " + join(allowed);
    }
    if (auto list = std::get_if<std::vector<std::string>>(&v)) {
      for (const auto& item : *list)
        if (!ok(item)) return "List element \"" + item + "\" must be one of: " + join(allowed);
      return std::nullopt;
    }
    return "Value must be a string or a list";
  };
}

Validator non_empty() {
  return [](const ConfigValue& v) -> std::optional<std::string> {
    if (auto s = std::get_if<std::string>(&v)) {
      if (s->empty()) return "String must be non-empty";
    } else if (auto list = std::get_if<std::vector<std::string>>(&v)) {
      if (list->empty()) return "List must be non-empty";
    } else if (auto p = std::get_if<Password>(&v)) {
      if (p->value().empty()) return "Password must be non-empty";
    }
    return std::nullopt;
  };
}

Validator non_negative() { return range(0.0, std::nullopt); }

} // namespace weir::validators
