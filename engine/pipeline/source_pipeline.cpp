#include "engine/pipeline/source_pipeline.hpp"

#include "runtime/convert/json_fast_decode.hpp"
#include "runtime/data/errors.hpp"

namespace weir::engine::pipeline {

namespace {

/// Kafka Connect's class name for the stage that turns a task's data into records.
constexpr std::string_view poll_class = "org.apache.kafka.connect.runtime.WorkerSourceTask";

} // namespace

SourcePoller::SourcePoller(std::unique_ptr<connector_api::SourceTask> task, std::shared_ptr<SourceOffsets> offsets,
                           std::shared_ptr<ErrorPolicy> policy, size_t max_records)
  : task_(std::move(task)), offsets_(std::move(offsets)), policy_(std::move(policy)),
    json_(std::make_unique<convert::FastJsonDecoder>()), max_records_(max_records) {}

SourcePoller::~SourcePoller() = default;

DecodedFeed::Status SourcePoller::fill(data::DecodedBatch& out, uint64_t max_bytes) {
  if (auto n = offsets_->committed_batches(); n != committed_seen_) {
    committed_seen_ = n;
    task_->committed_batches(n);
    task_->commit(offsets_->committed());
  }
  Batch raw;
  raw.reserve(std::min<size_t>(max_records_, 1024), std::min<uint64_t>(max_bytes, 1u << 20));
  SourceRecords records{raw, max_bytes, max_records_};
  auto status = task_->poll(records);
  if (raw.empty())
    return status == Status::end ? Status::end : Status::idle;
  raw.sequence = ++sequence_;
  offsets_->emitted(raw.sequence, std::move(records.offsets()), raw.size());
  out.reset(std::move(raw));
  decode(out);
  return status == Status::end ? Status::end : Status::ready;
}

void SourcePoller::decode(data::DecodedBatch& out) {
  const Batch& raw = out.raw();
  const auto key_form = task_->key_form();
  const auto value_form = task_->value_form();
  const data::Schema* string_schema = out.retain(data::schemas::string());
  const data::Schema* optional_string = out.retain(data::schemas::optional_string());
  auto one = [&](Form form, Slice bytes, data::Value& v, const data::Schema*& schema) {
    switch (form) {
      case Form::Null: v = {}; schema = nullptr; return false;
      case Form::String:
        v = data::Value::string(raw.bytes(bytes));
        schema = bytes.is_null() ? optional_string : string_schema;
        return false;
      case Form::Json:
        v = bytes.is_null() ? data::Value{} : json_->decode(raw.bytes(bytes), out.arena());
        schema = nullptr;
        return false;
      case Form::Custom: return true;
    }
    return false;
  };
  for (uint32_t i = 0; i < out.size(); ++i) {
    auto& rec = out[i];
    const auto& ref = raw[rec.raw_index];
    try {
      bool custom = one(key_form, ref.key, rec.key, rec.key_schema);
      custom = one(value_form, ref.value, rec.value, rec.value_schema) || custom;
      if (custom)
        task_->decode(out, i);
    } catch (const std::exception& e) {
      out.fail(i, data::ErrorStage::TaskPoll, poll_class, e);
    }
  }
  size_t seen = 0;
  policy_->check(out, seen);
}

std::optional<std::chrono::milliseconds> SourceEncoder::encode(data::DecodedBatch& in, Batch& out) {
  if (topics_)
    topics_->ensure(in);
  size_t seen = in.errors().size();
  out.clear(); // and its sequence
  out.sequence = in.raw().sequence;
  try {
    codec_.encode(in, out);
  } catch (const data::RetriableError& e) {
    return policy_->next_retry(backoff_, "Exception in converter", e);
  }
  backoff_.reset();
  policy_->check(in, seen);
  return std::nullopt;
}

} // namespace weir::engine::pipeline
