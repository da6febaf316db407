#include "runtime/config/secrets.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <mutex>

#include "weir/config.hpp"

namespace weir::runtime {

namespace {

std::string lower(std::string_view text) {
  std::string out{text};
  for (auto& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// A parameter name that holds a password (compared in lower case).
bool is_password_param(std::string_view name) {
  return ends_with(name, "password") || name == "pwd" || name == "passwd";
}

bool is_reference_at(std::string_view text, size_t at, size_t& end) {
  if (text.compare(at, 2, "${") != 0) return false;
  auto close = text.find('}', at + 2);
  if (close == std::string_view::npos || text.substr(at, close - at).find(':') == std::string_view::npos)
    return false;
  end = close + 1;
  return true;
}

} // namespace

bool is_secret_name(std::string_view key) {
  auto name = lower(key);
  auto dot = name.rfind('.');
  std::string_view last = dot == std::string::npos ? std::string_view{name} : std::string_view{name}.substr(dot + 1);
  static constexpr std::array whole_suffixes{"sasl.jaas.config", "ssl.keystore.key", "ssl.key.pem"};
  return ends_with(last, "password") || last == "secret" || last == "token" || last == "passwd" ||
         last == "pwd" ||
         std::any_of(whole_suffixes.begin(), whole_suffixes.end(), [&](std::string_view s) {
           return name == s || ends_with(name, "." + std::string{s});
         });
}

bool only_references(std::string_view value) {
  if (value.empty()) return false;
  for (size_t at = 0, end = 0; at < value.size(); at = end)
    if (!is_reference_at(value, at, end)) return false;
  return true;
}

std::string replace_credentials(std::string_view text, std::string_view with) {
  std::string out;
  out.reserve(text.size());
  auto replace = [&](size_t from, size_t to) { // the credential text[from, to)
    auto credential = text.substr(from, to - from);
    out += only_references(credential) || credential.empty() ? credential : with;
  };
  size_t pos = 0;
  while (pos < text.size()) {
    // scheme://user:password@host — the user info ends at the last '@' before the
    // query; a '/' does not end it, since a password may hold one unescaped (a path
    // with an '@' after a port is then hidden too: too much rather than too little).
    if (text.compare(pos, 3, "://") == 0) {
      out.append(text, pos, 3);
      size_t start = pos + 3;
      size_t authority_end = text.find_first_of("?#; \t\n\"'", start);
      if (authority_end == std::string_view::npos) authority_end = text.size();
      auto at = text.substr(start, authority_end - start).rfind('@');
      auto colon = at == std::string_view::npos ? at : text.substr(start, at).find(':');
      if (colon != std::string_view::npos) {
        out.append(text, start, colon + 1);
        replace(start + colon + 1, start + at);
        pos = start + at;
      } else {
        pos = start;
      }
      continue;
    }
    // name=value after a separator (or at the start)
    bool boundary = pos == 0 || std::string_view{"?&; \t\n"}.find(text[pos - 1]) != std::string_view::npos;
    if (boundary) {
      auto eq = text.find('=', pos);
      auto name_end = text.find_first_of("&; \t\n?=", pos);
      if (eq != std::string_view::npos && eq == name_end && is_password_param(lower(text.substr(pos, eq - pos)))) {
        out.append(text, pos, eq + 1 - pos);
        size_t start = eq + 1;
        size_t end;
        if (start < text.size() && text[start] == '\'') { // libpq: 'quoted value'
          end = start + 1;
          while (end < text.size() && text[end] != '\'') end += text[end] == '\\' ? 2 : 1;
          end = std::min(end + 1, text.size());
        } else {
          end = text.find_first_of("&; \t\n", start);
          if (end == std::string_view::npos) end = text.size();
        }
        replace(start, end);
        pos = end;
        continue;
      }
    }
    out += text[pos++];
  }
  return out;
}

std::string redact_credentials(std::string_view text) {
  return replace_credentials(text, Password::hidden);
}

namespace {

void replace_all(std::string& text, std::string_view what, std::string_view with) {
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + with.size()))
    text.replace(at, what.size(), with);
}

} // namespace

std::string hide_values(std::string_view text, std::vector<std::pair<std::string, std::string>> replacements,
                        const std::vector<std::string>& secrets) {
  constexpr size_t shortest_replaced = 4; // shorter would garble any message
  constexpr size_t window = 8;
  std::stable_sort(replacements.begin(), replacements.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  // Values become tokens first, so that the pieces found below are in the text
  // around them only (a reference may share pieces with a value, e.g. a path).
  auto token = [](size_t i) { return "\x01" + std::to_string(i) + "\x02"; };
  std::string out{text};
  for (size_t i = 0; i < replacements.size(); ++i)
    if (replacements[i].first.size() >= shortest_replaced) replace_all(out, replacements[i].first, token(i));
  std::vector<bool> hidden(out.size(), false);
  bool any = false;
  for (const auto& secret : secrets)
    for (size_t i = 0; i + window <= secret.size(); ++i) {
      std::string_view piece = std::string_view{secret}.substr(i, window);
      for (size_t at = out.find(piece); at != std::string::npos; at = out.find(piece, at + 1)) {
        std::fill(hidden.begin() + static_cast<std::ptrdiff_t>(at),
                  hidden.begin() + static_cast<std::ptrdiff_t>(at + window), true);
        any = true;
      }
    }
  if (any) {
    std::string kept;
    for (size_t i = 0; i < out.size(); ++i) {
      if (!hidden[i]) kept += out[i];
      else if (i == 0 || !hidden[i - 1]) kept += Password::hidden;
    }
    out = std::move(kept);
  }
  for (size_t i = 0; i < replacements.size(); ++i)
    if (replacements[i].first.size() >= shortest_replaced) replace_all(out, token(i), replacements[i].second);
  return out;
}

namespace {

struct Remembered {
  std::mutex mutex;
  std::map<std::string, std::string> references; // value -> reference
};

Remembered& remembered() {
  static Remembered r;
  return r;
}

} // namespace

void remember_provided(const std::string& value, const std::string& reference) {
  if (value.size() < 4) return;
  auto& r = remembered();
  std::lock_guard lock{r.mutex};
  r.references.emplace(value, reference);
}

std::string redact_log_line(std::string_view line) {
  std::vector<std::pair<std::string, std::string>> replacements;
  std::vector<std::string> secrets;
  {
    auto& r = remembered();
    std::lock_guard lock{r.mutex};
    if (r.references.empty()) return redact_credentials(line);
    for (const auto& [value, reference] : r.references) {
      replacements.emplace_back(value, reference);
      secrets.push_back(value);
    }
  }
  return redact_credentials(hide_values(line, std::move(replacements), secrets));
}

} // namespace weir::runtime
