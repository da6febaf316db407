// TopicNameMatches (predicate): true when the whole topic name matches `pattern`.
//
// Patterns are Java's (transforms/java_regex.hpp) and must match the entire name,
// like Java's Matcher.matches().
#pragma once

#include <string>

#include "transforms/java_regex.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class TopicNameMatches final : public Predicate {
public:
  static constexpr std::string_view name = "TopicNameMatches";
  static const ConfigDef& config_def();

  explicit TopicNameMatches(const Config& config);
  bool test(const RecordView& record) override;

private:
  JavaRegex pattern_;
  // Records of a batch usually share one topic: remember the last answer.
  std::string last_topic_;
  bool last_result_ = false;
  bool has_last_ = false;
};

} // namespace weir::transforms
