// TimestampRouter: sets the topic to `topic.format` (default `${topic}-${timestamp}`)
// with ${topic} replaced by the topic and ${timestamp} by the record timestamp
// formatted with `timestamp.format` (a java.text.SimpleDateFormat pattern, UTC;
// default `yyyyMMdd`), e.g. orders -> orders-20240115.
//
// Kafka semantics kept: ${topic} is replaced first, then ${timestamp} (in the
// result, so a topic containing "${timestamp}" is expanded too); a record without
// a timestamp is a record error. weir rejects a bad timestamp.format at
// configuration time (Kafka fails on the first record).
#pragma once

#include <string>

#include "transforms/simple_date_format.hpp"
#include "transforms/transformation.hpp"

namespace weir::transforms {

class TimestampRouter final : public Transformation {
public:
  static constexpr std::string_view name = "TimestampRouter";
  static constexpr Variants variants = Variants::None;
  static const ConfigDef& config_def();

  TimestampRouter(const Config& config, Side side);
  bool apply(const RecordView& record) override;

private:
  std::string topic_format_;
  SimpleDateFormat timestamp_format_;
  // Records of a batch mostly share a topic and a day: remember the last answer.
  std::string last_topic_, last_stamp_, last_result_, stamp_, scratch_;
  bool has_last_ = false;
};

} // namespace weir::transforms
