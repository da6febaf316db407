// Kafka Connect's error handling for a task: `errors.tolerance`, retries, error
// logging and the dead-letter queue (DLQ) with `__connect.errors.*` context headers.
//
// Every stage of a sink pipeline (converter, each SMT, the writer) records per-record
// errors in the DecodedBatch. After each stage the policy looks at the new ones:
// with `errors.tolerance=none` the first one fails the task (TaskFailure), so the
// batch never reaches the sink and nothing past it is committed; with `all` the
// record goes on marked Failed, is logged when asked, and after the sink wrote the
// batch it is sent to the DLQ (synchronously, before the offsets count as durable).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "runtime/data/decoded_batch.hpp"
#include "weir/config.hpp"
#include "engine/runtime_names.hpp"

namespace weir::runtime::kafka {
class Producer;
}

namespace weir::engine::pipeline {

/// A task failure: the message is what the task status shows as its `trace`.
struct TaskFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ErrorPolicy;

/// The waits between the attempts of one operation under errors.retry.timeout:
/// 300 ms, doubling up to errors.retry.delay.max.ms.
class RetryBackoff {
public:
  explicit RetryBackoff(const ErrorPolicy& policy);
  /// The wait before the next attempt, or TaskFailure ("`what`: `e`") when the next
  /// attempt would start past errors.retry.timeout (-1: never). An actor waits with a
  /// delayed message, so it keeps answering meanwhile.
  std::chrono::milliseconds next_or_fail(std::string_view what, const std::exception& e);

private:
  const ErrorPolicy& policy_;
  std::chrono::steady_clock::time_point deadline_;
  std::chrono::milliseconds delay_{300};
};

class ErrorPolicy {
public:
  /// Declares the `errors.*` keys (Kafka Connect's names, defaults and docs).
  static void define(ConfigDef& def);

  /// `producer_props` reach the DLQ producer (bootstrap.servers, overrides).
  ErrorPolicy(const Config& config, std::string connector, int task,
              std::map<std::string, std::string> producer_props);
  ~ErrorPolicy();
  ErrorPolicy(const ErrorPolicy&) = delete;
  ErrorPolicy& operator=(const ErrorPolicy&) = delete;

  bool tolerate_all() const noexcept { return tolerate_all_; }
  std::chrono::milliseconds retry_timeout() const noexcept { return retry_timeout_; }
  std::chrono::milliseconds retry_delay_max() const noexcept { return retry_delay_max_; }

  /// An attempt failed with `e`: the wait before the next one (RetryBackoff's), the
  /// retries' clock starting at the first failure (`backoff` empty: it is started).
  /// The caller resets `backoff` once an attempt succeeds. TaskFailure past
  /// errors.retry.timeout.
  std::chrono::milliseconds next_retry(std::optional<RetryBackoff>& backoff, std::string_view what,
                                       const std::exception& e) const;

  /// Handles the errors recorded since `seen` (an index into batch.errors()), then
  /// advances `seen`. Throws TaskFailure under errors.tolerance=none.
  void check(data::DecodedBatch& batch, size_t& seen);

  /// Sends every Failed record of `batch` to the dead-letter topic, if one is
  /// configured, and waits for the broker to take them. Throws TaskFailure when the
  /// DLQ cannot be written (records must not be lost silently).
  void dead_letter(const data::DecodedBatch& batch);

  uint64_t errors_seen() const noexcept { return errors_seen_; }
  uint64_t dead_lettered() const noexcept { return dead_lettered_; }

private:
  std::string describe(const data::DecodedBatch& batch, const data::RecordError& e) const;

  std::string connector_;
  int task_;
  bool tolerate_all_ = false;
  bool log_ = false;
  bool log_messages_ = false;
  bool context_headers_ = false;
  std::string dlq_topic_;
  std::chrono::milliseconds retry_timeout_{0};
  std::chrono::milliseconds retry_delay_max_{60000};
  std::map<std::string, std::string> producer_props_;
  std::unique_ptr<kafka::Producer> dlq_;
  uint64_t errors_seen_ = 0;
  uint64_t dead_lettered_ = 0;
  size_t dlq_failed_ = 0;
  std::string dlq_error_;
};

} // namespace weir::engine::pipeline
