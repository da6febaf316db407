// The plain C++ stages of a sink task's pipeline:
//
//   DecodingSource (Kafka consumer + converters)
//     -> TransformLogic (one per SMT)
//     -> SinkWriterLogic (the connector's SinkWriter)
//
// Each runs in its own actor (actors/sink_task_actor.cpp). Records are parsed once, by
// the converters in DecodingSource; every later stage works on the DecodedBatch.
// Every stage hands its new record errors to the task's ErrorPolicy.
#pragma once

#include <memory>
#include <string>

#include "runtime/convert/converter.hpp"
#include "runtime/pipeline/error_policy.hpp"
#include "runtime/pipeline/kafka_source.hpp"
#include "runtime/stage_logic.hpp"

namespace weir::transforms {
class TransformStage;
}

namespace weir::runtime::pipeline {

/// What a sink connector implements: write a batch durably.
class SinkWriter {
public:
  virtual ~SinkWriter() = default;

  /// Writes every Live record of `batch`; returning means they are durable. A record
  /// the destination rejects is marked Failed (batch.fail) and the others are still
  /// written. A replayed record an exactly-once writer skips (its offset is below the
  /// one stored with the data) is marked Dropped, so that "records written" counts only
  /// what this write made durable. Throwing means the whole batch failed (it may be
  /// retried).
  virtual void write(data::DecodedBatch& batch) = 0;

  /// Offsets the destination stored itself (exactly-once sinks), asked once when the
  /// task starts: where the task's consumer starts reading each partition the first
  /// time it is assigned, unless the group committed a later offset. Empty for
  /// at-least-once sinks.
  virtual std::vector<kafka::TopicPartitionOffset> stored_offsets() { return {}; }

  /// Whether the destination stores the consumed offsets with the data and skips
  /// records below them (the JDBC sinks): then a record read twice is written once,
  /// and the task's consumer may read before its group has settled (see JoinGate).
  virtual bool exactly_once() const noexcept { return false; }
};

/// The consumer and the converters: raw records in, decoded batches out.
class DecodingSource : public DecodedSource {
public:
  DecodingSource(std::shared_ptr<KafkaSource> kafka, convert::RecordCodec codec,
                 std::shared_ptr<ErrorPolicy> policy);

  Status fill(data::DecodedBatch& out, uint64_t max_bytes) override;
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
  std::shared_ptr<KafkaSource> kafka_;
  convert::RecordCodec codec_;
  std::shared_ptr<ErrorPolicy> policy_;
};

/// One SMT (with its predicate) as a pipeline stage.
class TransformLogic : public DecodedStageLogic {
public:
  TransformLogic(std::shared_ptr<transforms::TransformStage> stage,
                 std::shared_ptr<ErrorPolicy> policy);
  void process(data::DecodedBatch& batch) override;
  std::string_view kind() const noexcept override { return "transform"; }

private:
  std::shared_ptr<transforms::TransformStage> stage_;
  std::shared_ptr<ErrorPolicy> policy_;
};

/// The connector's writer as the last stage: retries a failing batch within
/// `errors.retry.timeout`, then sends rejected records to the dead-letter queue.
class SinkWriterLogic : public DecodedStageLogic {
public:
  SinkWriterLogic(std::unique_ptr<SinkWriter> writer, std::shared_ptr<ErrorPolicy> policy);
  void process(data::DecodedBatch& batch) override;
  std::string_view kind() const noexcept override { return "sink"; }
  uint64_t dead_lettered() const noexcept override { return policy_->dead_lettered(); }

private:
  void write_with_retries(data::DecodedBatch& batch);

  std::unique_ptr<SinkWriter> writer_;
  std::shared_ptr<ErrorPolicy> policy_;
};

} // namespace weir::runtime::pipeline
