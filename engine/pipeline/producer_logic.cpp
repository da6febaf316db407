#include "engine/pipeline/producer_logic.hpp"

#include <stdexcept>
#include <utility>

#include "engine/pipeline/source_offsets_topic.hpp"
#include "runtime/kafka/producer.hpp"

namespace weir::engine::pipeline {

namespace {

using namespace std::chrono_literals;

/// Tokens of the offset records a transaction writes: apart from batch tokens.
constexpr uint64_t offsets_token = uint64_t{1} << 63;

} // namespace

ProducerLogic::ProducerLogic(kafka::Properties props, std::shared_ptr<SourceEncoder> encoder,
                             std::shared_ptr<SourceOffsets> offsets, ProducerTransactions transactions)
  : encoder_(std::move(encoder)), offsets_(std::move(offsets)), txn_(std::move(transactions)),
    producer_(std::make_unique<kafka::Producer>(
      props, [this](uint64_t token, size_t ok, size_t failed, const std::string& err) {
        on_delivery(token, ok, failed, err);
      })) {}

ProducerLogic::~ProducerLogic() = default;

void ProducerLogic::start() {
  if (txn_.enabled)
    producer_->init_transactions(txn_.timeout);
}

void ProducerLogic::submit(std::shared_ptr<data::DecodedBatch> batch, uint64_t charged) {
  waiting_.push_back({std::move(batch), Batch{}, charged});
}

void ProducerLogic::submit(Batch batch, uint64_t charged) {
  waiting_.push_back({nullptr, std::move(batch), charged});
}

std::optional<std::chrono::milliseconds> ProducerLogic::pump(Clock::time_point now) {
  producer_->poll(0ms);
  if (!failure_.empty())
    throw std::runtime_error(std::to_string(records_failed_) + " record(s) not delivered: " + failure_);
  if (commit_due(now) && in_flight_.empty())
    commit_transaction();
  // In order, while nothing holds them up: a converter retry, or a transaction that
  // must commit before the next one begins.
  while (!waiting_.empty() && !retrying_ && !commit_due(now)) {
    auto& w = waiting_.front();
    const Batch* out = &w.raw;
    if (w.decoded) {
      if (auto wait = encoder_->encode(*w.decoded, encoded_)) {
        retrying_ = true;
        return wait;
      }
      w.decoded.reset(); // the decoded form is no longer needed: free it before the send
      out = &encoded_;
    }
    produce(*out, w.charged, now);
    waiting_.pop_front();
  }
  return std::nullopt;
}

void ProducerLogic::produce(const Batch& batch, uint64_t charged, Clock::time_point now) {
  auto token = next_token_++;
  in_flight_.emplace(token, InFlight{charged, batch.sequence});
  if (txn_.enabled && !in_transaction_) {
    producer_->begin_transaction();
    in_transaction_ = true;
    transaction_start_ = now;
  }
  if (txn_.enabled && batch.sequence != 0)
    transaction_batches_.push_back(batch.sequence);
  producer_->produce(batch, token);
}

bool ProducerLogic::commit_due(Clock::time_point now) const noexcept {
  if (!in_transaction_)
    return false;
  return ending_ || txn_.interval.count() == 0 || now - transaction_start_ >= txn_.interval;
}

/// Writes the offsets the transaction's batches reach into the offsets topic, then
/// commits: records and offsets become visible together, or neither does. Called
/// once the transaction's batches are delivered, so the commit waits only for the
/// offset records and the broker's answer.
void ProducerLogic::commit_transaction() {
  in_transaction_ = false;
  try {
    if (!transaction_batches_.empty() && offsets_) {
      Batch offsets;
      // Partitioned by key (the Java partitioner), as Kafka Connect writes offsets, so
      // every offset of one source partition stays in order in one topic partition.
      for (const auto& [partition, offset] : offsets_->through(transaction_batches_.back()))
        offsets.append(txn_.offsets_topic, -1, -1, -1, offset_record_key(txn_.connector, partition), offset);
      producer_->produce(offsets, offsets_token | next_token_++);
    }
    producer_->commit_transaction(txn_.timeout);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string{"exactly-once: transaction not committed: "} + e.what());
  }
  if (offsets_)
    for (auto seq : transaction_batches_)
      offsets_->delivered(seq);
  transaction_batches_.clear();
}

void ProducerLogic::on_delivery(uint64_t token, size_t delivered, size_t failed, const std::string& first_error) {
  if (failed > 0) {
    // Never a silent drop: the failure fails the stage (thrown by pump()).
    records_failed_ += failed;
    if (failure_.empty())
      failure_ = first_error;
  }
  if (token & offsets_token)
    return;
  auto it = in_flight_.find(token);
  if (it == in_flight_.end())
    return;
  records_out_ += delivered;
  auto [charged, sequence] = it->second;
  in_flight_.erase(it);
  if (!failure_.empty())
    return; // a failed producer holds what it has: no credit, no offset
  // Without transactions a delivered batch is durable; with them, only its commit is.
  if (sequence != 0 && offsets_ && !txn_.enabled)
    offsets_->delivered(sequence);
  released_.push_back(charged);
}

std::optional<uint64_t> ProducerLogic::pop_released() {
  if (released_.empty())
    return std::nullopt;
  auto charged = released_.front();
  released_.pop_front();
  return charged;
}

bool ProducerLogic::needs_polling() const noexcept {
  return !in_flight_.empty() || in_transaction_;
}

bool ProducerLogic::finished() const noexcept {
  return ending_ && waiting_.empty() && in_flight_.empty() && !in_transaction_;
}

std::string ProducerLogic::waiting() const {
  return producer_->brokers().describe();
}

metrics::LatencyHistogram ProducerLogic::poll_to_ack() const {
  return offsets_ ? offsets_->poll_to_ack() : metrics::LatencyHistogram{};
}

} // namespace weir::engine::pipeline
