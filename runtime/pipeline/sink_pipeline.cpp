#include "runtime/pipeline/sink_pipeline.hpp"

#include <thread>

#include <spdlog/spdlog.h>

#include "transforms/chain.hpp"

namespace weir::runtime::pipeline {

DecodingSource::DecodingSource(std::shared_ptr<KafkaSource> kafka, convert::RecordCodec codec,
                               std::shared_ptr<ErrorPolicy> policy)
  : kafka_(std::move(kafka)), codec_(std::move(codec)), policy_(std::move(policy)) {}

DecodedSource::Status DecodingSource::fill(data::DecodedBatch& out, uint64_t max_bytes) {
  Batch raw;
  auto status = kafka_->fill(raw, max_bytes);
  if (raw.empty())
    return status == BatchSource::Status::end ? Status::end : Status::idle;
  codec_.decode(std::move(raw), out);
  size_t seen = 0;
  policy_->check(out, seen);
  return status == BatchSource::Status::end ? Status::end : Status::ready;
}

TransformLogic::TransformLogic(std::shared_ptr<transforms::TransformStage> stage,
                               std::shared_ptr<ErrorPolicy> policy)
  : stage_(std::move(stage)), policy_(std::move(policy)) {}

void TransformLogic::process(data::DecodedBatch& batch) {
  size_t seen = batch.errors().size();
  stage_->apply(batch);
  policy_->check(batch, seen);
}

SinkWriterLogic::SinkWriterLogic(std::unique_ptr<SinkWriter> writer,
                                 std::shared_ptr<ErrorPolicy> policy)
  : writer_(std::move(writer)), policy_(std::move(policy)) {}

void SinkWriterLogic::write_with_retries(data::DecodedBatch& batch) {
  using namespace std::chrono;
  auto deadline = steady_clock::now() + policy_->retry_timeout();
  milliseconds delay{300};
  for (;;) {
    try {
      writer_->write(batch);
      return;
    } catch (const std::exception& e) {
      bool forever = policy_->retry_timeout().count() < 0;
      if (!forever && steady_clock::now() + delay > deadline)
        throw TaskFailure(std::string{"Exception in sink writer: "} + e.what());
      spdlog::warn("sink write failed, retrying in {} ms: {}", delay.count(), e.what());
      std::this_thread::sleep_for(delay);
      delay = std::min(delay * 2, policy_->retry_delay_max());
    }
  }
}

void SinkWriterLogic::process(data::DecodedBatch& batch) {
  size_t seen = batch.errors().size();
  write_with_retries(batch);
  policy_->check(batch, seen);
  policy_->dead_letter(batch);
}

} // namespace weir::runtime::pipeline
