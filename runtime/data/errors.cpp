#include "runtime/data/errors.hpp"

namespace weir::runtime::data {

std::string_view to_string(ErrorStage stage) noexcept {
  switch (stage) {
    case ErrorStage::KeyConverter: return "KEY_CONVERTER";
    case ErrorStage::ValueConverter: return "VALUE_CONVERTER";
    case ErrorStage::HeaderConverter: return "HEADER_CONVERTER";
    case ErrorStage::Transformation: return "TRANSFORMATION";
    case ErrorStage::TaskPut: return "TASK_PUT";
    case ErrorStage::TaskPoll: return "TASK_POLL";
    case ErrorStage::KafkaProduce: return "KAFKA_PRODUCE";
    case ErrorStage::KafkaConsume: return "KAFKA_CONSUME";
  }
  return "?";
}

void RecordErrors::add(uint32_t index, ErrorStage stage, std::string_view class_name,
                       const std::exception& e) {
  RecordError r;
  r.index = index;
  r.stage = stage;
  r.class_name = class_name;
  if (const auto* de = dynamic_cast<const DataError*>(&e))
    r.exception_class = de->exception_class();
  else
    // Anything else escaping a component is a bug or a resource problem; Kafka would
    // report whatever Java exception it was. Name the closest Java equivalent.
    r.exception_class = "org.apache.kafka.connect.errors.ConnectException";
  r.message = e.what();
  errors_.push_back(std::move(r));
}

const RecordError* RecordErrors::find(uint32_t index) const noexcept {
  for (const auto& e : errors_)
    if (e.index == index)
      return &e;
  return nullptr;
}

} // namespace weir::runtime::data
