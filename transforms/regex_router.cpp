#include "transforms/regex_router.hpp"

#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

const ConfigDef& RegexRouter::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("regex", ConfigType::String, Importance::High, "Regular expression to use for matching.")
        .define("replacement", ConfigType::String, Importance::High, "Replacement string.");
    return d;
  }();
  return def;
}

RegexRouter::RegexRouter(const Config& c, Side) {
  const std::string& pattern = c.get_string("regex");
  if (auto why = compile_java_regex(pattern, regex_); !why.empty())
    config_error("regex", pattern, "Invalid regex: " + why);
  const std::string& replacement = c.get_string("replacement");
  if (auto why = replacement_.parse(replacement, static_cast<unsigned>(regex_.mark_count())); !why.empty())
    config_error("replacement", replacement, why);
}

bool RegexRouter::apply(const RecordView& r) {
  std::string_view topic = r.topic();
  if (!has_last_ || topic != last_topic_) {
    last_topic_.assign(topic);
    has_last_ = true;
    last_matched_ = std::regex_match(topic.begin(), topic.end(), regex_);
    if (last_matched_) {
      // replaceFirst() searches again from the start: the first match it finds may be
      // shorter than the whole topic (e.g. `a|ab` on "ab"), and the rest is kept.
      std::match_results<std::string_view::const_iterator> m;
      std::regex_search(topic.begin(), topic.end(), m, regex_);
      last_result_.assign(topic.begin(), m[0].first);
      replacement_.expand(m, last_result_);
      last_result_.append(m[0].second, topic.end());
    }
  }
  if (last_matched_)
    r.set_topic(last_result_);
  return true;
}

} // namespace weir::transforms
