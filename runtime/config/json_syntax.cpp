#include "runtime/config/json_syntax.hpp"

#include <cstdio>

namespace weir::runtime {

namespace {

bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool is_hex(char c) noexcept { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/// The length of the valid UTF-8 sequence at `s` (RFC 3629: no overlong forms,
/// no surrogates, nothing above U+10FFFF), 0 when it is not one.
size_t utf8_length(std::string_view s) noexcept {
  auto byte = [&](size_t i) { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0u; };
  auto cont = [&](size_t i, unsigned lo = 0x80, unsigned hi = 0xBF) { return byte(i) >= lo && byte(i) <= hi; };
  unsigned b = byte(0);
  if (b >= 0xC2 && b <= 0xDF) return cont(1) ? 2 : 0;
  if (b == 0xE0) return cont(1, 0xA0) && cont(2) ? 3 : 0;
  if (b == 0xED) return cont(1, 0x80, 0x9F) && cont(2) ? 3 : 0;
  if (b >= 0xE1 && b <= 0xEF) return cont(1) && cont(2) ? 3 : 0;
  if (b == 0xF0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b >= 0xF1 && b <= 0xF3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b == 0xF4) return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/// A recursive-descent scan that stops at the first error.
class Scanner {
public:
  Scanner(std::string_view text, size_t max_depth) : text_(text), max_depth_(max_depth) {}

  std::optional<JsonSyntaxError> run() {
    skip_space();
    if (!value(0)) return error_;
    skip_space();
    if (pos_ < text_.size()) fail("unexpected " + found() + " after the end of the JSON document");
    return error_;
  }

private:
  bool at_end() const noexcept { return pos_ >= text_.size(); }
  char peek() const noexcept { return at_end() ? '\0' : text_[pos_]; }

  void skip_space() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
  }

  /// What stands at the current position, for "found ...".
  std::string found() const {
    if (at_end()) return "the end of the input";
    auto c = static_cast<unsigned char>(peek());
    if (size_t n = c >= 0x80 ? utf8_length(text_.substr(pos_)) : 0) return "'" + std::string{text_.substr(pos_, n)} + "'";
    char buf[16];
    if (c < 0x20 || c >= 0x7F) std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
    else std::snprintf(buf, sizeof buf, "'%c'", c);
    return buf;
  }

  bool fail(std::string what) { return fail_at(pos_, std::move(what)); }

  bool fail_at(size_t offset, std::string what) {
    if (!error_) {
      JsonSyntaxError e;
      e.offset = offset;
      for (size_t i = 0; i < offset && i < text_.size(); ++i) {
        auto c = static_cast<unsigned char>(text_[i]);
        if (c == '\n') ++e.line, e.column = 1;
        else if ((c & 0xC0) != 0x80) ++e.column; // not a UTF-8 continuation byte
      }
      e.what = std::move(what);
      error_ = std::move(e);
    }
    return false;
  }

  bool expect(std::string_view what) { return fail("expected " + std::string{what} + ", found " + found()); }

  bool value(size_t depth) {
    switch (peek()) {
      case '{': return object(depth + 1);
      case '[': return array(depth + 1);
      case '"': return string();
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default:
        if (peek() == '-' || is_digit(peek())) return number();
        return expect("a JSON value (an object, array, string, number, true, false or null)");
    }
  }

  bool nest(size_t depth) {
    if (depth <= max_depth_) return true;
    return fail("nested deeper than " + std::to_string(max_depth_) + " levels");
  }

  /// An object's members or an array's elements, from the opening bracket to `close`.
  template <class Element>
  bool sequence(size_t depth, char close, std::string_view after_element, Element element) {
    if (!nest(depth)) return false;
    ++pos_; // '{' or '['
    skip_space();
    if (peek() == close) return ++pos_, true;
    for (;;) {
      if (!element()) return false;
      skip_space();
      if (peek() == close) return ++pos_, true;
      if (peek() != ',') return expect(after_element);
      ++pos_;
      skip_space();
    }
  }

  bool object(size_t depth) {
    return sequence(depth, '}', "',' or '}' after an object member", [&] {
      if (peek() != '"') return expect("a member name in double quotes");
      if (!string()) return false;
      skip_space();
      if (peek() != ':') return expect("':' after a member name");
      ++pos_;
      skip_space();
      return value(depth);
    });
  }

  bool array(size_t depth) {
    return sequence(depth, ']', "',' or ']' after an array element", [&] { return value(depth); });
  }

  bool string() {
    size_t open = pos_++;
    while (!at_end()) {
      auto c = static_cast<unsigned char>(peek());
      if (c == '"') return ++pos_, true;
      if (c < 0x20) return fail("control character " + found() + " in a string: escape it (\\n, \\t, \\u00XX)");
      if (c == '\\') {
        ++pos_;
        char e = peek();
        if (e == 'u') {
          for (int i = 1; i <= 4; ++i)
            if (!is_hex(pos_ + i < text_.size() ? text_[pos_ + i] : '\0'))
              return fail_at(pos_ - 1, "invalid escape in a string: \\u takes four hex digits");
          pos_ += 5;
        } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
          ++pos_;
        } else {
          return fail_at(pos_ - 1, "invalid escape in a string: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX");
        }
      } else if (c >= 0x80) {
        size_t n = utf8_length(text_.substr(pos_));
        if (n == 0) return fail("invalid UTF-8 in a string: " + found());
        pos_ += n;
      } else {
        ++pos_;
      }
    }
    return fail_at(open, "unterminated string: no closing '\"' before the end of the input");
  }

  bool digits(std::string_view after) {
    if (!is_digit(peek())) return expect("a digit " + std::string{after});
    while (is_digit(peek())) ++pos_;
    return true;
  }

  bool number() {
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
      if (is_digit(peek())) return fail("a number cannot have a leading zero");
    } else if (!digits("in a number")) {
      return false;
    }
    if (peek() == '.') {
      ++pos_;
      if (!digits("after the decimal point")) return false;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!digits("in the exponent")) return false;
    }
    return true;
  }

  bool literal(std::string_view word) {
    size_t start = pos_;
    size_t end = pos_;
    while (end < text_.size() && ((text_[end] >= 'a' && text_[end] <= 'z') || (text_[end] >= 'A' && text_[end] <= 'Z'))) ++end;
    if (text_.substr(start, end - start) == word) return pos_ = end, true;
    return fail("invalid literal '" + std::string{text_.substr(start, end - start)} + "': expected " + std::string{word}
                + " (strings need double quotes)");
  }

  std::string_view text_;
  size_t max_depth_;
  size_t pos_ = 0;
  std::optional<JsonSyntaxError> error_;
};

} // namespace

std::string JsonSyntaxError::describe() const {
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + " (byte " + std::to_string(offset)
         + "): " + what;
}

std::optional<JsonSyntaxError> find_json_syntax_error(std::string_view text, size_t max_depth) {
  return Scanner{text, max_depth}.run();
}

std::string describe_json_error(std::string_view text, std::string_view parser_reason) {
  if (auto error = find_json_syntax_error(text)) return error->describe();
  return std::string{parser_reason};
}

} // namespace weir::runtime
