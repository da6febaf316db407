// A port of java.util.Properties.load's two stages: LineReader joins natural lines
// into logical lines (dropping comments and continuations), then each logical line
// is split into key and value and unescaped (loadConvert).
#include "runtime/config/properties.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "weir/config.hpp"

namespace weir::runtime {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }
bool is_eol(char c) { return c == '\n' || c == '\r'; }

// Splits text into logical lines. Like Java: leading blanks of every natural line
// that starts or continues a logical line are dropped; a comment cannot continue;
// an odd number of trailing backslashes escapes the line terminator.
std::vector<std::string> logical_lines(std::string_view text) {
  std::vector<std::string> lines;
  size_t pos = 0, n = text.size();
  auto skip_terminator = [&] {
    if (pos < n && text[pos] == '\r') ++pos;
    if (pos < n && text[pos] == '\n') ++pos;
  };
  while (pos < n) {
    while (pos < n && (is_blank(text[pos]) || is_eol(text[pos]))) ++pos;
    if (pos == n) break;
    if (text[pos] == '#' || text[pos] == '!') {
      while (pos < n && !is_eol(text[pos])) ++pos;
      continue;
    }
    std::string line;
    for (;;) {
      size_t end = pos;
      while (end < n && !is_eol(text[end])) ++end;
      std::string_view segment = text.substr(pos, end - pos);
      size_t backslashes = 0;
      while (backslashes < segment.size() && segment[segment.size() - 1 - backslashes] == '\\')
        ++backslashes;
      bool continued = backslashes % 2 == 1;
      if (continued) segment.remove_suffix(1);
      line.append(segment);
      pos = end;
      skip_terminator();
      if (!continued || pos == n) break;
      while (pos < n && is_blank(text[pos])) ++pos;
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Reads the four hex digits after "\u" at s[i]; returns false if malformed.
bool read_hex4(std::string_view s, size_t i, uint32_t& out) {
  if (i + 4 > s.size()) return false;
  out = 0;
  for (size_t k = i; k < i + 4; ++k) {
    char c = s[k];
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return false;
    out = out * 16 + static_cast<uint32_t>(digit);
  }
  return true;
}

// Java's loadConvert. \u escapes are UTF-16 code units: a surrogate pair becomes
// one code point; a lone surrogate becomes U+FFFD, as it has no UTF-8 form.
std::string unescape(std::string_view s, std::string_view key_for_errors) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (++i == s.size()) break;
    c = s[i];
    switch (c) {
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 'f': out += '\f'; break;
      case 'u': {
        uint32_t unit = 0;
        if (!read_hex4(s, i + 1, unit))
          throw ConfigError(std::string{key_for_errors}, "Malformed \\uxxxx encoding in properties");
        i += 4;
        uint32_t low = 0;
        if (unit >= 0xD800 && unit <= 0xDBFF && i + 2 < s.size() && s[i + 1] == '\\' &&
            s[i + 2] == 'u' && read_hex4(s, i + 3, low) && low >= 0xDC00 && low <= 0xDFFF) {
          append_utf8(out, 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00));
          i += 6;
        } else if (unit >= 0xD800 && unit <= 0xDFFF) {
          append_utf8(out, 0xFFFD);
        } else {
          append_utf8(out, unit);
        }
        break;
      }
      default: out += c; // "\=", "\:", "\ ", "\\", "\#": the character itself
    }
  }
  return out;
}

} // namespace

std::map<std::string, std::string> load_properties(std::string_view text) {
  std::map<std::string, std::string> out;
  for (const std::string& line : logical_lines(text)) {
    size_t key_end = 0, value_start = line.size();
    bool escaped = false, has_separator = false;
    for (; key_end < line.size(); ++key_end) {
      char c = line[key_end];
      if (!escaped && (c == '=' || c == ':')) {
        value_start = key_end + 1;
        has_separator = true;
        break;
      }
      if (!escaped && is_blank(c)) {
        value_start = key_end + 1;
        break;
      }
      escaped = c == '\\' && !escaped;
    }
    // Blanks after the key, then at most one '=' or ':' if none was seen yet.
    for (; value_start < line.size(); ++value_start) {
      char c = line[value_start];
      if (is_blank(c)) continue;
      if (!has_separator && (c == '=' || c == ':')) {
        has_separator = true;
        continue;
      }
      break;
    }
    std::string key = unescape(std::string_view{line}.substr(0, key_end), "");
    std::string value = unescape(std::string_view{line}.substr(value_start), key);
    out.insert_or_assign(std::move(key), std::move(value));
  }
  return out;
}

std::string read_config_file(const std::filesystem::path& path) {
  auto fail = [&](std::string_view why) {
    throw ConfigError("", "Cannot read config file " + path.string() + ": " + std::string{why});
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail("it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(errno ? std::strerror(errno) : "cannot open");
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) fail("read error");
  return text;
}

std::map<std::string, std::string> load_properties_file(const std::filesystem::path& path) {
  std::string text = read_config_file(path);
  try {
    return load_properties(text);
  } catch (const ConfigError& e) {
    throw ConfigError(e.key(), path.string() + ": " + e.what());
  }
}

} // namespace weir::runtime
