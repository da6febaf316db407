#include "engine/pipeline/sink_pipeline.hpp"

#include <utility>

#include "transforms/chain.hpp"

namespace weir::engine::pipeline {

ConvertingReader::ConvertingReader(std::shared_ptr<TopicReader> kafka, convert::RecordCodec codec,
                               std::shared_ptr<ErrorPolicy> policy)
  : kafka_(std::move(kafka)), codec_(std::move(codec)), policy_(std::move(policy)) {}

DecodedFeed::Status ConvertingReader::fill(data::DecodedBatch& out, uint64_t max_bytes) {
  Batch raw;
  auto status = kafka_->fill(raw, max_bytes);
  if (raw.empty())
    return status == BatchFeed::Status::end ? Status::end : Status::idle;
  // A service the converters need is down (a schema registry): the same records
  // again, within errors.retry.timeout, then the task fails. The wait may sleep:
  // this runs in the task's consumer, a detached actor on a thread of its own, which
  // reads nothing new meanwhile anyway.
  bool again = false; // then `raw` is in `out`
  policy_->with_retries<data::RetriableError>("Exception in converter", [&] {
    codec_.decode(std::exchange(again, true) ? Batch{out.raw()} : std::move(raw), out);
  });
  size_t seen = 0;
  policy_->check(out, seen);
  return status == BatchFeed::Status::end ? Status::end : Status::ready;
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
    if (!backoff_)
      backoff_.emplace(*policy_);
    return backoff_->next_or_fail("Exception in sink writer", e);
  }
  backoff_.reset();
  policy_->check(batch, seen_);
  policy_->dead_letter(batch);
  return {};
}

} // namespace weir::engine::pipeline
