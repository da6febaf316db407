// Record-level errors: what a converter or SMT raises for one bad record, and the
// per-batch list that the error policy (errors.tolerance, dead-letter queue) reads.
//
// A bad record never aborts its batch: the stage catches the exception, appends a
// RecordError naming the record, marks the record Failed, and goes on. A
// RetriableError is not the record's fault (a service it needs is down): it aborts
// the batch, marking nothing, and fails the task, which the automatic restart brings
// back; no record goes to the dead-letter queue for an outage. The names
// mirror Kafka Connect's, because the DLQ context headers
// (`__connect.errors.stage`, `.class.name`, `.exception.class.name`,
// `.exception.message`) carry them verbatim.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "weir/data/error.hpp"

namespace weir::runtime::data {

using weir::data::DataError;
using weir::data::RetriableError;

/// Kafka Connect's error-reporting stages (ErrorContext Stage), as DLQ headers name them.
enum class ErrorStage : uint8_t {
  KeyConverter, ValueConverter, HeaderConverter, Transformation, TaskPut, TaskPoll, KafkaProduce, KafkaConsume
};
/// `KEY_CONVERTER`, `VALUE_CONVERTER`, `TRANSFORMATION`, ...
std::string_view to_string(ErrorStage stage) noexcept;

struct RecordError {
  uint32_t index = 0; ///< the record's index in its batch
  ErrorStage stage = ErrorStage::Transformation;
  std::string class_name;      ///< the executing component's class (converter or SMT)
  std::string exception_class; ///< e.g. org.apache.kafka.connect.errors.DataException
  std::string message;

  friend bool operator==(const RecordError&, const RecordError&) = default;
};

/// The errors of one batch, in the order they happened.
class RecordErrors {
public:
  void add(RecordError e) { errors_.push_back(std::move(e)); }
  void add(uint32_t index, ErrorStage stage, std::string_view class_name, const std::exception& e);
  std::span<const RecordError> all() const noexcept { return errors_; }
  bool empty() const noexcept { return errors_.empty(); }
  size_t size() const noexcept { return errors_.size(); }
  /// The first error of record `index`, or nullptr.
  const RecordError* find(uint32_t index) const noexcept;
  void clear() noexcept { errors_.clear(); }

  template <class Inspector>
  friend auto inspect(Inspector& f, RecordErrors& x) {
    return f(x.errors_);
  }

private:
  std::vector<RecordError> errors_;
};

template <class Inspector>
auto inspect(Inspector& f, RecordError& x) {
  return f(x.index, reinterpret_cast<uint8_t&>(x.stage), x.class_name, x.exception_class, x.message);
}

} // namespace weir::runtime::data
