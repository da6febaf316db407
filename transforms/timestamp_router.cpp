#include "transforms/timestamp_router.hpp"

#include <stdexcept>

#include "transforms/support.hpp"

namespace weir::transforms {

using namespace runtime::data;

namespace {

SimpleDateFormat compile(const Config& c) {
  const std::string& pattern = c.get_string("timestamp.format");
  try {
    return SimpleDateFormat(pattern);
  } catch (const std::invalid_argument& e) {
    config_error("timestamp.format", pattern, e.what());
  }
}

// Replaces every occurrence of `what` in `in` by `with`, appending to `out`.
void replace_all(std::string_view in, std::string_view what, std::string_view with, std::string& out) {
  size_t start = 0;
  while (true) {
    size_t pos = in.find(what, start);
    if (pos == std::string_view::npos) {
      out.append(in.substr(start));
      return;
    }
    out.append(in.substr(start, pos - start));
    out.append(with);
    start = pos + what.size();
  }
}

} // namespace

const ConfigDef& TimestampRouter::config_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    d.define("topic.format", ConfigType::String, "${topic}-${timestamp}", Importance::High,
             "Format string which can contain <code>${topic}</code> and <code>${timestamp}</code> as placeholders "
             "for the topic and timestamp, respectively.")
        .define("timestamp.format", ConfigType::String, "yyyyMMdd", Importance::High,
                "Format string for the timestamp that is compatible with <code>java.text.SimpleDateFormat</code>.");
    return d;
  }();
  return def;
}

TimestampRouter::TimestampRouter(const Config& c, Side)
    : topic_format_(c.get_string("topic.format")), timestamp_format_(compile(c)) {}

bool TimestampRouter::apply(const RecordView& r) {
  auto ts = r.timestamp();
  if (!ts)
    throw DataError("Timestamp missing on record: ConnectRecord{topic='" + std::string(r.topic()) + "', kafkaPartition="
                    + (r.partition() ? std::to_string(*r.partition()) : "null") + ", offset="
                    + std::to_string(r.offset()) + ", timestamp=null}");
  stamp_.clear();
  timestamp_format_.format(*ts, stamp_);
  if (!has_last_ || r.topic() != last_topic_ || stamp_ != last_stamp_) {
    scratch_.clear();
    replace_all(topic_format_, "${topic}", r.topic(), scratch_);
    last_result_.clear();
    replace_all(scratch_, "${timestamp}", stamp_, last_result_);
    last_topic_.assign(r.topic());
    last_stamp_.assign(stamp_);
    has_last_ = true;
  }
  r.set_topic(last_result_);
  return true;
}

} // namespace weir::transforms
