// The plain C++ stages of a source task's pipeline:
//
//   SourcePoller (the connector's SourceTask + decoding into Connect values)
//     -> TransformLogic (one per SMT, shared with sinks)
//     -> SourceEncoder (converters, once) -> the Kafka producer
//
// Each runs in its own actor (actors/source_task_actor.cpp). The poller numbers its
// batches (Batch::sequence of the raw batch, which transforms never touch) and
// registers their offsets with SourceOffsets; the producer reports each sequence
// delivered, and only then do the offsets count.
#pragma once

#include <chrono>
#include <memory>
#include <optional>

#include "runtime/convert/converter.hpp"
#include "engine/pipeline/error_policy.hpp"
#include "runtime/connector_api/source_task.hpp"
#include "engine/pipeline/topic_creation.hpp"
#include "engine/runtime_names.hpp"

namespace weir::runtime::convert {
class FastJsonDecoder;
}

namespace weir::engine::pipeline {

class SourcePoller : public DecodedFeed {
public:
  /// `task` must be started already. `max_records` bounds one batch.
  SourcePoller(std::unique_ptr<connector_api::SourceTask> task, std::shared_ptr<SourceOffsets> offsets,
               std::shared_ptr<ErrorPolicy> policy, size_t max_records = 4096);
  ~SourcePoller() override;

  Status fill(data::DecodedBatch& out, uint64_t max_bytes) override;
  std::string_view kind() const noexcept override { return task_->kind(); }
  int64_t source_lag_bytes() const override { return task_->lag_bytes(); }
  std::string idle_reason() const override { return task_->idle_reason(); }

  connector_api::SourceTask& task() noexcept { return *task_; }

private:
  void decode(data::DecodedBatch& out);

  std::unique_ptr<connector_api::SourceTask> task_;
  std::shared_ptr<SourceOffsets> offsets_;
  std::shared_ptr<ErrorPolicy> policy_;
  std::unique_ptr<convert::FastJsonDecoder> json_;
  size_t max_records_;
  uint64_t sequence_ = 0;
  uint64_t committed_seen_ = 0; ///< committed batches last reported to the task
};

/// The converters at the end of a source pipeline: a decoded batch in, the bytes
/// to produce out. A record that fails to serialize is handed to the error policy
/// (errors.tolerance=none fails the task; all skips and logs it), never dropped
/// silently. A converter's retriable failure (a schema registry down) asks for the
/// same batch again after RetryBackoff's wait, within errors.retry.timeout; the
/// caller waits without blocking (the producer actor, with a delayed message).
class SourceEncoder {
public:
  /// `topics` (optional) creates the records' topics first (KIP-158).
  SourceEncoder(convert::RecordCodec codec, std::shared_ptr<ErrorPolicy> policy,
                std::unique_ptr<TopicCreator> topics = nullptr)
    : codec_(std::move(codec)), policy_(std::move(policy)), topics_(std::move(topics)) {}

  /// Serializes `in` into `out` (cleared first, memory reused); out.sequence is
  /// in's. Returns empty when done, else the wait before calling again with the same
  /// batch. Throws TaskFailure under errors.tolerance=none or past the retry timeout,
  /// kafka::KafkaError when a topic cannot be created.
  std::optional<std::chrono::milliseconds> encode(data::DecodedBatch& in, Batch& out);

private:
  convert::RecordCodec codec_;
  std::shared_ptr<ErrorPolicy> policy_;
  std::unique_ptr<TopicCreator> topics_;
  std::optional<RetryBackoff> backoff_; // the batch being retried
};

} // namespace weir::engine::pipeline
