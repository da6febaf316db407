#include "engine/pipeline/error_policy.hpp"

#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>

#include "runtime/kafka/admin.hpp"
#include "runtime/kafka/producer.hpp"

namespace weir::engine::pipeline {

namespace {

using namespace std::chrono_literals;

constexpr std::string_view header_prefix = "__connect.errors.";

} // namespace

void ErrorPolicy::define(ConfigDef& def) {
  def.define("errors.tolerance", ConfigType::String, "none", Importance::Medium,
             "Behavior for tolerating errors during connector operation: 'none' fails the "
             "task on the first error, 'all' skips problematic records.",
             validators::one_of({"none", "all"}));
  def.define("errors.retry.timeout", ConfigType::Long, "0", Importance::Medium,
             "Maximum duration in milliseconds that a failed operation will be reattempted. "
             "0 means no retries, -1 infinite.",
             validators::range(-1, std::nullopt));
  def.define("errors.retry.delay.max.ms", ConfigType::Long, "60000", Importance::Medium,
             "Maximum duration in milliseconds between consecutive retry attempts.",
             validators::range(1, std::nullopt));
  def.define("errors.log.enable", ConfigType::Boolean, "false", Importance::Medium,
             "If true, write each error and the details of the failed operation to the log.");
  def.define("errors.log.include.messages", ConfigType::Boolean, "false", Importance::Medium,
             "Whether to include in the log the record that caused a failure.");
  def.define("errors.deadletterqueue.topic.name", ConfigType::String, "", Importance::Medium,
             "The name of the topic to be used as the dead letter queue (DLQ) for records "
             "that fail; empty means no DLQ.");
  def.define("errors.deadletterqueue.topic.replication.factor", ConfigType::Int, "3",
             Importance::Low, "Replication factor used to create the dead letter queue topic.",
             validators::range(-1, 32767));
  def.define("errors.deadletterqueue.context.headers.enable", ConfigType::Boolean, "false",
             Importance::Medium,
             "If true, add headers containing error context to the messages written to the DLQ.");
}

ErrorPolicy::ErrorPolicy(const Config& config, std::string connector, int task,
                         std::map<std::string, std::string> producer_props)
  : connector_(std::move(connector)), task_(task),
    tolerate_all_(config.get_string("errors.tolerance") == "all"),
    log_(config.get_bool("errors.log.enable")),
    log_messages_(config.get_bool("errors.log.include.messages")),
    context_headers_(config.get_bool("errors.deadletterqueue.context.headers.enable")),
    dlq_topic_(config.get_string("errors.deadletterqueue.topic.name")),
    retry_timeout_(config.get_long("errors.retry.timeout")),
    retry_delay_max_(config.get_long("errors.retry.delay.max.ms")),
    producer_props_(std::move(producer_props)) {
  if (dlq_topic_.empty())
    return;
  // Kafka Connect creates the DLQ topic when missing; a single-broker cluster cannot
  // honour a replication factor of 3, so the broker default (-1) is used then.
  auto rf = config.get_int("errors.deadletterqueue.topic.replication.factor");
  try {
    kafka::create_topics(producer_props_, {{dlq_topic_, -1, static_cast<int16_t>(rf)}});
  } catch (const std::exception&) {
    kafka::create_topics(producer_props_, {{dlq_topic_, -1, -1}});
  }
  dlq_ = std::make_unique<kafka::Producer>(
    producer_props_, [this](uint64_t, size_t, size_t failed, const std::string& err) {
      dlq_failed_ += failed;
      if (failed && dlq_error_.empty())
        dlq_error_ = err;
    });
}

ErrorPolicy::~ErrorPolicy() = default;

std::string ErrorPolicy::describe(const data::DecodedBatch& batch,
                                  const data::RecordError& e) const {
  const auto& r = batch[e.index];
  std::string s = "Error encountered in task " + connector_ + "-" + std::to_string(task_)
                  + ". Executing stage '" + std::string{data::to_string(e.stage)}
                  + "' with class '" + e.class_name + "', where consumed record is {topic='"
                  + std::string{r.topic} + "', partition=" + std::to_string(r.partition)
                  + ", offset=" + std::to_string(r.offset) + "}: " + e.exception_class + ": "
                  + e.message;
  if (log_messages_) {
    const auto& raw = batch.raw()[r.raw_index];
    s += " (value: " + std::string{batch.raw().bytes(raw.value)} + ")";
  }
  return s;
}

void ErrorPolicy::check(data::DecodedBatch& batch, size_t& seen) {
  auto all = batch.errors().all();
  for (; seen < all.size(); ++seen) {
    ++errors_seen_;
    const auto& e = all[seen];
    if (!tolerate_all_)
      throw TaskFailure("Tolerance exceeded in error handler: " + describe(batch, e));
    if (log_)
      spdlog::error("{}", describe(batch, e));
  }
}

void ErrorPolicy::dead_letter(const data::DecodedBatch& batch) {
  if (!dlq_)
    return;
  Batch out;
  for (const auto& e : batch.errors().all()) {
    const auto& rec = batch[e.index];
    const auto& raw = batch.raw()[rec.raw_index];
    auto opt = [&](Slice s) -> std::optional<std::string_view> {
      return s.is_null() ? std::nullopt : std::optional{batch.raw().bytes(s)};
    };
    out.append(dlq_topic_, -1, -1, raw.timestamp, opt(raw.key), opt(raw.value));
    // The original headers come first, as Kafka Connect copies them.
    for (const auto& h : batch.raw().headers(raw))
      out.add_header(batch.raw().bytes(h.key), opt(h.value));
    if (!context_headers_)
      continue;
    auto header = [&](std::string_view name, std::string value) {
      out.add_header(std::string{header_prefix} + std::string{name}, value);
    };
    header("topic", std::string{batch.raw().topic(raw)});
    header("partition", std::to_string(raw.partition));
    header("offset", std::to_string(raw.offset));
    header("connector.name", connector_);
    header("task.id", std::to_string(task_));
    header("stage", std::string{data::to_string(e.stage)});
    header("class.name", e.class_name);
    header("exception.class.name", e.exception_class);
    header("exception.message", e.message);
    header("exception.stacktrace", e.exception_class + ": " + e.message);
  }
  if (out.empty())
    return;
  dlq_->produce(out, 0);
  if (!dlq_->flush(30s) || dlq_failed_ > 0)
    throw TaskFailure("could not write " + std::to_string(out.size())
                      + " record(s) to the dead letter queue topic '" + dlq_topic_
                      + "': " + (dlq_error_.empty() ? "timed out" : dlq_error_));
  dead_lettered_ += out.size();
}

RetryBackoff::RetryBackoff(const ErrorPolicy& policy)
  : policy_(policy), deadline_(std::chrono::steady_clock::now() + policy.retry_timeout()) {}

std::chrono::milliseconds RetryBackoff::next_or_fail(std::string_view what, const std::exception& e) {
  bool forever = policy_.retry_timeout().count() < 0;
  if (!forever && std::chrono::steady_clock::now() + delay_ > deadline_)
    throw TaskFailure(std::string{what} + ": " + e.what());
  spdlog::warn("{} (retrying in {} ms): {}", what, delay_.count(), e.what());
  return std::exchange(delay_, std::min(delay_ * 2, policy_.retry_delay_max()));
}

std::chrono::milliseconds ErrorPolicy::next_retry(std::optional<RetryBackoff>& backoff,
                                                  std::string_view what, const std::exception& e) const {
  if (!backoff)
    backoff.emplace(*this);
  return backoff->next_or_fail(what, e);
}

} // namespace weir::engine::pipeline
