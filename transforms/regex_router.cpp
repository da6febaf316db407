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
  if (auto why = regex_.compile(pattern); !why.empty())
    config_error("regex", pattern, "Invalid regex: " + why);
  const std::string& replacement = c.get_string("replacement");
  if (auto why = replacement_.parse(replacement, regex_); !why.empty())
    config_error("replacement", replacement, why);
}

bool RegexRouter::apply(const RecordView& r) {
  std::string_view topic = r.topic();
  if (!has_last_ || topic != last_topic_) {
    last_topic_.assign(topic);
    has_last_ = true;
    last_matched_ = regex_.matches(topic);
    // replaceFirst() searches again from the start: the first match it finds may be
    // shorter than the whole topic (e.g. `a|ab` on "ab"), and the rest is kept.
    if (last_matched_ && regex_.find(topic, groups_)) {
      auto [begin, end] = groups_[0];
      last_result_.assign(topic.substr(0, begin));
      replacement_.expand(topic, groups_, last_result_);
      last_result_.append(topic.substr(end));
    }
  }
  if (last_matched_)
    r.set_topic(last_result_);
  return true;
}

} // namespace weir::transforms
