// TopicNameMatches (predicate): true when the whole topic name matches `pattern`.
//
// Patterns are compiled with std::regex (ECMAScript grammar) and must match the
// entire name, like Java's Matcher.matches(). A leading `(?i)` is honoured as
// case-insensitive; other Java-only syntax (lookbehind, possessive quantifiers,
// atomic groups, named groups, \p{...} classes, other inline flags) is rejected
// as an invalid pattern at configuration time.
#pragma once

#include <regex>
#include <string>

#include "transforms/transformation.hpp"

namespace weir::transforms {

class TopicNameMatches final : public Predicate {
public:
  static constexpr std::string_view name = "TopicNameMatches";
  static const ConfigDef& config_def();

  explicit TopicNameMatches(const Config& config);
  bool test(const RecordView& record) override;

private:
  std::regex pattern_;
  // Records of a batch usually share one topic: remember the last answer.
  std::string last_topic_;
  bool last_result_ = false;
  bool has_last_ = false;
};

} // namespace weir::transforms
