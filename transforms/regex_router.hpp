// RegexRouter: renames the topic when the whole topic matches `regex` (Java's
// Matcher.matches()); the new name is Matcher.replaceFirst(`replacement`), with
// $1.. group references and \ escapes. Topics that do not match pass unchanged.
//
// Patterns and replacements follow transforms/java_regex.hpp (Java's syntax, run by PCRE2).
// weir checks the replacement against the pattern's groups at configuration time;
// Kafka fails only when a record's topic matches.
#pragma once

#include <string>

#include "transforms/java_regex.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class RegexRouter final : public Transformation {
public:
  static constexpr std::string_view name = "RegexRouter";
  static constexpr Variants variants = Variants::None;
  static const ConfigDef& config_def();

  RegexRouter(const Config& config, Side side);
  bool apply(const RecordView& record) override;

private:
  JavaRegex regex_;
  JavaReplacement replacement_;
  std::vector<std::pair<size_t, size_t>> groups_;
  // Records of a batch mostly share a topic: remember the last answer.
  std::string last_topic_, last_result_;
  bool has_last_ = false, last_matched_ = false;
};

} // namespace weir::transforms
