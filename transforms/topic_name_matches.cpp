#include "transforms/topic_name_matches.hpp"

#include "runtime/convert/text.hpp"
#include "transforms/support.hpp"

namespace weir::transforms {

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
  if (auto why = pattern_.compile(text); !why.empty())
    config_error("pattern", text, "entry must be a Java-compatible regular expression: " + why);
}

bool TopicNameMatches::test(const RecordView& r) {
  std::string_view topic = r.topic();
  if (has_last_ && topic == last_topic_)
    return last_result_;
  last_result_ = pattern_.matches(topic);
  last_topic_.assign(topic);
  has_last_ = true;
  return last_result_;
}

} // namespace weir::transforms
