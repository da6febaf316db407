#include "runtime/config/convert.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <ostream>
#include <vector>

namespace weir {

std::string_view to_string(ConfigType type) noexcept {
  switch (type) {
    case ConfigType::Boolean: return "BOOLEAN";
    case ConfigType::Int: return "INT";
    case ConfigType::Long: return "LONG";
    case ConfigType::Double: return "DOUBLE";
    case ConfigType::String: return "STRING";
    case ConfigType::List: return "LIST";
    case ConfigType::Password: return "PASSWORD";
    case ConfigType::Class: return "CLASS";
  }
  return "UNKNOWN";
}

std::string_view to_string(Importance importance) noexcept {
  switch (importance) {
    case Importance::High: return "HIGH";
    case Importance::Medium: return "MEDIUM";
    case Importance::Low: return "LOW";
  }
  return "UNKNOWN";
}

std::ostream& operator<<(std::ostream& os, const Password&) { return os << Password::hidden; }

std::string to_string(const ConfigValue& value) {
  struct Render {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(int32_t i) const { return std::to_string(i); }
    std::string operator()(int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return runtime::format_double(d); }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(const Password&) const { return std::string{Password::hidden}; }
    std::string operator()(const std::vector<std::string>& list) const {
      std::string out;
      for (const auto& item : list) {
        if (!out.empty()) out += ',';
        out += item;
      }
      return out;
    }
  };
  return std::visit(Render{}, value);
}

} // namespace weir

namespace weir::runtime {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

// Java's number parsers accept one leading '+', which from_chars does not.
bool strip_plus(std::string_view& s) {
  if (s.empty() || s.front() != '+') return true;
  s.remove_prefix(1);
  return !s.empty() && s.front() != '+' && s.front() != '-';
}

template <class T>
std::optional<T> parse_integer(std::string_view s) {
  if (!strip_plus(s)) return {};
  T out{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc{} || end != s.data() + s.size()) return {};
  return out;
}

std::optional<double> parse_double(std::string_view s) {
  if (!strip_plus(s)) return {};
  double out{};
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc{} || end != s.data() + s.size()) return {};
  return out;
}

std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  if (s.empty()) return out;
  for (;;) {
    auto comma = s.find(',');
    out.emplace_back(trim(s.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

} // namespace

std::string_view trim(std::string_view s) noexcept {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

std::optional<ConfigValue> convert(ConfigType type, std::string_view raw, std::string& reason) {
  auto s = trim(raw);
  switch (type) {
    case ConfigType::Boolean:
      if (iequals(s, "true")) return ConfigValue{true};
      if (iequals(s, "false")) return ConfigValue{false};
      reason = "Expected value to be either true or false";
      return {};
    case ConfigType::Int:
      if (auto v = parse_integer<int32_t>(s)) return ConfigValue{*v};
      reason = "Not a number of type INT";
      return {};
    case ConfigType::Long:
      if (auto v = parse_integer<int64_t>(s)) return ConfigValue{*v};
      reason = "Not a number of type LONG";
      return {};
    case ConfigType::Double:
      if (auto v = parse_double(s)) return ConfigValue{*v};
      reason = "Not a number of type DOUBLE";
      return {};
    case ConfigType::String:
    case ConfigType::Class:
      return ConfigValue{std::string{s}};
    case ConfigType::List:
      return ConfigValue{split_list(s)};
    case ConfigType::Password:
      return ConfigValue{Password{std::string{s}}};
  }
  reason = "Unknown configuration type";
  return {};
}

std::string invalid_value_message(std::string_view key, std::string_view shown,
                                  std::string_view reason) {
  std::string out = "Invalid value ";
  out.append(shown).append(" for configuration ").append(key);
  if (!reason.empty()) out.append(": ").append(reason);
  return out;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string format_double(double value) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc{} ? std::string(buf, end) : std::to_string(value);
}

} // namespace weir::runtime
