#include "engine/pipeline/sink_pipeline.hpp"

#include <utility>

#include "transforms/chain.hpp"

namespace weir::engine::pipeline {

ConvertingReader::ConvertingReader(std::shared_ptr<BatchFeed> kafka, convert::RecordCodec codec,
                               std::shared_ptr<ErrorPolicy> policy)
  : kafka_(std::move(kafka)), codec_(std::move(codec)), policy_(std::move(policy)) {}

DecodedFeed::Status ConvertingReader::fill(data::DecodedBatch& out, uint64_t max_bytes) {
  Batch raw;
  bool end = held_end_;
  if (held_) {
    raw = std::move(*held_);
    held_.reset();
  } else {
    end = kafka_->fill(raw, max_bytes) == BatchFeed::Status::end;
    if (raw.empty())
      return end ? Status::end : Status::idle;
  }
  try {
    codec_.decode(std::move(raw), out);
  } catch (const data::RetriableError& e) {
    // A service the converters need is down (a schema registry): the same records
    // again after the wait, within errors.retry.timeout, then the task fails. The
    // consumer actor waits with a delayed message and reads nothing new meanwhile.
    retry_after_ = policy_->next_retry(backoff_, "Exception in converter", e);
    held_ = out.take_raw();
    held_end_ = end;
    out.reset(Batch{});
    return Status::again;
  }
  backoff_.reset();
  held_end_ = false;
  size_t seen = 0;
  policy_->check(out, seen);
  return end ? Status::end : Status::ready;
}

TransformLogic::TransformLogic(std::shared_ptr<transforms::TransformStage> stage,
                               std::shared_ptr<ErrorPolicy> policy)
  : stage_(std::move(stage)), policy_(std::move(policy)) {}

RetryAfter TransformLogic::process(data::DecodedBatch& batch) {
  size_t seen = batch.errors().size();
  stage_->apply(batch);
  policy_->check(batch, seen);
  return {};
}

SinkWriterLogic::SinkWriterLogic(std::unique_ptr<SinkWriter> writer,
                                 std::shared_ptr<ErrorPolicy> policy)
  : writer_(std::move(writer)), policy_(std::move(policy)) {}

RetryAfter SinkWriterLogic::process(data::DecodedBatch& batch) {
  if (!backoff_)
    seen_ = batch.errors().size();
  try {
    writer_->write(batch);
  } catch (const std::exception& e) {
    return policy_->next_retry(backoff_, "Exception in sink writer", e);
  }
  backoff_.reset();
  policy_->check(batch, seen_);
  policy_->dead_letter(batch);
  return {};
}

} // namespace weir::engine::pipeline
