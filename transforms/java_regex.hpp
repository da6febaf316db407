// Java regular expressions (java.util.regex) for the transforms' regex keys, run by
// PCRE2 (with its JIT), plus Matcher.replaceFirst's replacement syntax.
//
// PCRE2 reads nearly all of Java's syntax as Java does: lookaround, named groups,
// possessive and atomic forms, \Q..\E, \A \z \Z \G, \h \R \X, inline flags. What
// differs is translated: \uXXXX, Java's POSIX classes (\p{Alpha}, \p{Punct}, ...),
// \p{IsX}. What would silently mean something else in PCRE2 is refused at
// configuration time with a message naming the construct: class unions and
// intersections ([a-z[0-9]], [a-z&&[^aeiou]]), Unicode blocks (\p{InGreek}),
// java.lang.Character classes (\p{javaLowerCase}), the inline flags d, u and U.
// Like Java's default, \d \w \s and \b are ASCII-only.
//
// Threading: a JavaRegex keeps its match buffer, so one instance serves one thread
// (each SMT stage has its own transformation objects).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace weir::transforms {

/// A compiled Java pattern.
class JavaRegex {
public:
  JavaRegex();
  ~JavaRegex();
  JavaRegex(JavaRegex&&) noexcept;
  JavaRegex& operator=(JavaRegex&&) noexcept;

  /// Compiles `pattern`; returns why it is unusable (naming the construct and its
  /// offset), or "" on success.
  std::string compile(std::string_view pattern);

  /// Matcher.matches(): whether the whole of `subject` matches.
  bool matches(std::string_view subject) const;

  /// Matcher.find() from the start: the first match's group spans (offsets into
  /// `subject`; [0] is the whole match, an unset group is {npos, npos}); false when
  /// nothing matches.
  bool find(std::string_view subject, std::vector<std::pair<size_t, size_t>>& groups) const;

  /// The number of capturing groups.
  uint32_t group_count() const noexcept;
  /// The number of the group called `name`, or -1.
  int group_number(std::string_view name) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Java's pattern translated to PCRE2's syntax, or why it cannot be (`error`).
struct TranslatedPattern {
  std::string pcre2;
  std::string error;
};
TranslatedPattern translate_java_regex(std::string_view java);

/// A parsed replacement string (Matcher.appendReplacement's syntax: $n, ${name}, \x).
class JavaReplacement {
public:
  /// Parses `text` against `regex`'s groups; returns why it is unusable, or "" (Java's
  /// messages: "Illegal group reference", "No group 3", "No group with name {x}").
  std::string parse(std::string_view text, const JavaRegex& regex);

  /// Appends the replacement for a match of `subject` with `groups` (from find()).
  void expand(std::string_view subject, const std::vector<std::pair<size_t, size_t>>& groups,
              std::string& out) const;

private:
  struct Part {
    std::string literal;
    int group = -1; ///< >= 0: a group reference
  };
  std::vector<Part> parts_;
};

} // namespace weir::transforms
