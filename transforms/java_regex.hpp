// Java regular expressions (java.util.regex) as RegexRouter needs them: a pattern
// compiled to std::regex (ECMAScript), and Matcher.replaceFirst's replacement
// syntax ($n group references, \ escapes).
//
// The two grammars share what topic patterns use (classes, groups, alternation,
// greedy and lazy quantifiers, anchors, \d \w \s). A leading `(?i)` is honoured as
// case-insensitive; Java-only syntax (lookbehind, possessive quantifiers, atomic
// and named groups, inline flags, \p{..}, \Q..\E, class intersections) is rejected
// at configuration time rather than silently meaning something else.
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace weir::transforms {

/// Compiles a Java pattern; returns the reason it is unusable, or "".
std::string compile_java_regex(std::string_view pattern, std::regex& out);

/// A parsed replacement string (Matcher.appendReplacement's syntax).
class JavaReplacement {
public:
  /// Parses `text` for a pattern with `groups` capturing groups; returns the reason
  /// it is unusable, or "" (Java's messages: "Illegal group reference", "No group 3").
  std::string parse(std::string_view text, unsigned groups);

  /// Appends the replacement for match `m` of `subject`.
  void expand(const std::match_results<std::string_view::const_iterator>& m, std::string& out) const;

private:
  struct Part {
    std::string literal;
    int group = -1; ///< >= 0: a group reference
  };
  std::vector<Part> parts_;
};

} // namespace weir::transforms
