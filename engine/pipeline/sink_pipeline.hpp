// The plain C++ stages of a sink task's pipeline:
//
//   ConvertingReader (Kafka consumer + converters)
//     -> TransformLogic (one per SMT)
//     -> SinkWriterLogic (the connector's SinkWriter)
//
// Each runs in its own actor (actors/sink_task_actor.cpp). Records are parsed once, by
// the converters in ConvertingReader; every later stage works on the DecodedBatch.
// Every stage hands its new record errors to the task's ErrorPolicy.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "runtime/convert/converter.hpp"
#include "engine/pipeline/error_policy.hpp"
#include "engine/pipeline/topic_reader.hpp"
#include "runtime/connector_api/sink_writer.hpp"
#include "runtime/stage_logic.hpp"
#include "engine/runtime_names.hpp"

namespace weir::transforms {
class TransformStage;
}

namespace weir::engine::pipeline {

/// The consumer and the converters: raw records in, decoded batches out. A
/// converter's retriable failure (a schema registry down) answers `again`: the
/// records read are kept and decoded again by the fill() after retry_after(), within
/// errors.retry.timeout (then TaskFailure), and nothing new is read meanwhile.
class ConvertingReader : public DecodedFeed {
public:
  /// `kafka` is the task's TopicReader (any raw feed will do, e.g. in tests).
  ConvertingReader(std::shared_ptr<BatchFeed> kafka, convert::RecordCodec codec,
                 std::shared_ptr<ErrorPolicy> policy);

  Status fill(data::DecodedBatch& out, uint64_t max_bytes) override;
  std::chrono::milliseconds retry_after() const override { return retry_after_; }
  void set_blocked(bool blocked) override { kafka_->set_blocked(blocked); }
  void serve() override { kafka_->serve(); }
  void on_durable(const std::vector<kafka::TopicPartitionOffset>& offsets) override {
    kafka_->on_durable(offsets);
  }
  std::string_view kind() const noexcept override { return "consumer"; }
  int64_t lag() const override { return kafka_->lag(); }
  int32_t assigned_partitions() const override { return kafka_->assigned_partitions(); }
  std::vector<kafka::PartitionLag> partition_lags() const override { return kafka_->partition_lags(); }
  uint64_t wait_ns() const override { return kafka_->wait_ns(); }
  metrics::LatencyHistogram poll_to_ack() const override { return kafka_->poll_to_ack(); }
  std::string idle_reason() const override { return kafka_->idle_reason(); }
  std::string waiting_reason() const override { return kafka_->waiting_reason(); }
  uint64_t commits() const override { return kafka_->commits(); }
  uint64_t commit_ns() const override { return kafka_->commit_ns(); }

private:
  std::shared_ptr<BatchFeed> kafka_;
  convert::RecordCodec codec_;
  std::shared_ptr<ErrorPolicy> policy_;
  // The records waiting to be decoded again, whether the consumer said `end` with
  // them, and the retries' waits so far.
  std::optional<Batch> held_;
  bool held_end_ = false;
  std::optional<RetryBackoff> backoff_;
  std::chrono::milliseconds retry_after_{0};
};

/// One SMT (with its predicate) as a pipeline stage.
class TransformLogic : public DecodedStageLogic {
public:
  TransformLogic(std::shared_ptr<transforms::TransformStage> stage,
                 std::shared_ptr<ErrorPolicy> policy);
  RetryAfter process(data::DecodedBatch& batch) override;
  std::string_view kind() const noexcept override { return "transform"; }

private:
  std::shared_ptr<transforms::TransformStage> stage_;
  std::shared_ptr<ErrorPolicy> policy_;
};

/// The connector's writer as the last stage: a failed write asks for the same batch
/// again after RetryBackoff's wait, within `errors.retry.timeout` (then TaskFailure);
/// a written batch's rejected records go to the dead-letter queue.
class SinkWriterLogic : public DecodedStageLogic {
public:
  SinkWriterLogic(std::unique_ptr<SinkWriter> writer, std::shared_ptr<ErrorPolicy> policy);
  RetryAfter process(data::DecodedBatch& batch) override;
  std::string_view kind() const noexcept override { return "sink"; }
  uint64_t dead_lettered() const noexcept override { return policy_->dead_lettered(); }

private:
  std::unique_ptr<SinkWriter> writer_;
  std::shared_ptr<ErrorPolicy> policy_;
  // The batch being retried: its waits so far, and its errors before the first attempt.
  std::optional<RetryBackoff> backoff_;
  size_t seen_ = 0;
};

} // namespace weir::engine::pipeline
