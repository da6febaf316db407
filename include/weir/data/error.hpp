// The exceptions a component throws for one record: Kafka Connect's DataException and
// RetriableException. What weir does with each is in runtime/data/errors.hpp (a bad
// record goes to the connector's errors.tolerance; a retriable error fails the batch,
// not the record).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace weir::data {

/// Kafka's org.apache.kafka.connect.errors.DataException: bad data in one record.
class DataError : public std::runtime_error {
public:
  static constexpr std::string_view data_exception = "org.apache.kafka.connect.errors.DataException";

  explicit DataError(const std::string& message, std::string exception_class = std::string(data_exception))
      : std::runtime_error(message), exception_class_(std::move(exception_class)) {}
  ~DataError() override; // in libweir_sdk: one type identity for weir and every plugin

  /// The Java exception class Kafka Connect would report.
  const std::string& exception_class() const noexcept { return exception_class_; }

private:
  std::string exception_class_;
};

/// Kafka's RetriableException (a service the record needs cannot be reached, e.g. a
/// Schema Registry answering 5xx): the same record may well succeed later.
class RetriableError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
  ~RetriableError() override;
};

} // namespace weir::data
