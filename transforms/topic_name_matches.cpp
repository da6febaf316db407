#include "transforms/topic_name_matches.hpp"

#include "runtime/convert/text.hpp"
#include "transforms/support.hpp"

namespace weir::transforms {

namespace {

// Compiles a Java-style pattern; returns the reason it is not usable, or "".
std::string compile(std::string_view text, std::regex& out) {
  auto flags = std::regex::ECMAScript;
  if (text.starts_with("(?i)")) {
    flags |= std::regex::icase;
    text.remove_prefix(4);
  }
  for (std::string_view java_only : {"(?<=", "(?<!", "(?>", "(?<", "(?i", "(?s", "(?m", "(?x", "(?u", "\\p{",
                                     "\\P{", "*+", "++", "?+", "}+", "\\A", "\\Z", "\\z", "\\G"})
    if (text.find(java_only) != std::string_view::npos)
      return "Java regex syntax '" + std::string(java_only) + "' is not supported by weir";
  try {
    out = std::regex(std::string(text), flags);
  } catch (const std::regex_error& e) {
    return e.what();
  }
  return {};
}

} // namespace

const ConfigDef& TopicNameMatches::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("pattern", ConfigType::String, Importance::Medium,
             "A Java regular expression for matching against the name of a record's topic.",
             validators::non_empty());
    return d;
  }();
  return def;
}

TopicNameMatches::TopicNameMatches(const Config& c) {
  const std::string& text = c.get_string("pattern");
  if (auto why = compile(text, pattern_); !why.empty())
    config_error("pattern", text, "entry must be a Java-compatible regular expression: " + why);
}

bool TopicNameMatches::test(const RecordView& r) {
  std::string_view topic = r.topic();
  if (has_last_ && topic == last_topic_)
    return last_result_;
  last_result_ = std::regex_match(topic.begin(), topic.end(), pattern_);
  last_topic_.assign(topic);
  has_last_ = true;
  return last_result_;
}

} // namespace weir::transforms
