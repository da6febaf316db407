// The last stage of a source pipeline, as plain C++: the converters (SourceEncoder),
// librdkafka's producer, the source offsets and, with exactly-once, the transactions.
// The actor (actors/producer_stage.cpp) turns its calls into messages and credit.
//
// Nothing here waits for delivery: pump() serves the delivery reports that arrived,
// commits a transaction that is due once its batches are delivered, and encodes and
// produces the batches that arrived, in order, unless one is held up (a converter
// retry, a transaction that must commit before the next begins). A batch's credit is released when all
// its records are delivered. Without transactions a delivered batch advances the
// source offsets; with them, only the commit of the transaction that carries it
// does, and the offsets it reaches are written in that transaction.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/pipeline/source_pipeline.hpp"
#include "engine/runtime_names.hpp"
#include "runtime/kafka/client_config.hpp"

namespace weir::runtime::kafka {
class Producer;
}

namespace weir::engine::pipeline {

/// Exactly-once delivery for a source task (KIP-618).
struct ProducerTransactions {
  bool enabled = false;      ///< the producer's props must then carry `transactional.id`
  std::string offsets_topic; ///< where each transaction writes its offsets
  std::string connector;     ///< the offsets' key names it
  /// 0: one transaction per batch (transaction.boundary=poll); else the period.
  std::chrono::milliseconds interval{0};
  std::chrono::milliseconds timeout{60000}; ///< for commit and init
};

class ProducerLogic {
public:
  using Clock = std::chrono::steady_clock;

  /// `encoder` may be null when only raw batches come; `offsets` when no batch is a
  /// source batch (Batch::sequence 0). Throws kafka::KafkaError.
  ProducerLogic(kafka::Properties props, std::shared_ptr<SourceEncoder> encoder,
                std::shared_ptr<SourceOffsets> offsets, ProducerTransactions transactions = {});
  ~ProducerLogic();
  ProducerLogic(const ProducerLogic&) = delete;
  ProducerLogic& operator=(const ProducerLogic&) = delete;

  /// With exactly-once, fences older producers of the transactional id: blocks up to
  /// the transactions' timeout, once, before the first batch. Throws on failure.
  void start();

  /// A batch arrived, charged `charged` bytes of credit: it waits for the next
  /// pump(), behind the batches that arrived before it.
  void submit(std::shared_ptr<data::DecodedBatch> batch, uint64_t charged);
  void submit(Batch batch, uint64_t charged);
  /// No batch will follow: the open transaction is committed once delivered.
  void end_of_input() noexcept { ending_ = true; }

  /// Serves the delivery reports that arrived (without waiting), commits a transaction
  /// that is due and delivered, and encodes and produces the waiting batches in order. Returns the wait before a
  /// converter's retriable failure is tried again (retry() then); meanwhile the
  /// batch and those behind it wait. Throws when records were not delivered, a
  /// transaction did not commit, or a converter failed for good.
  std::optional<std::chrono::milliseconds> pump(Clock::time_point now = Clock::now());
  /// The converter retry is due: the next pump() tries the batch again.
  void retry() noexcept { retrying_ = false; }

  /// The credit of a batch that is done with (all its records delivered), oldest
  /// first; nullopt when none is.
  std::optional<uint64_t> pop_released();

  /// Whether pump() has work when nothing arrives: records out, or a transaction open.
  bool needs_polling() const noexcept;
  /// The end of input came and every batch is delivered and committed.
  bool finished() const noexcept;

  /// Records delivered, and not delivered (each fails the stage).
  uint64_t records_out() const noexcept { return records_out_; }
  uint64_t records_failed() const noexcept { return records_failed_; }
  /// Why the broker cannot be reached, in words; empty when it can.
  std::string waiting() const;
  /// Per record, the time from the poll that read it until its offset counted.
  metrics::LatencyHistogram poll_to_ack() const;

private:
  struct Waiting {
    std::shared_ptr<data::DecodedBatch> decoded; // null: `raw` is the batch
    Batch raw;
    uint64_t charged;
  };
  struct InFlight {
    uint64_t charged;  // credit the upstream was charged
    uint64_t sequence; // the source batch (0: not a source batch)
  };

  void on_delivery(uint64_t token, size_t delivered, size_t failed, const std::string& first_error);
  void produce(const Batch& batch, uint64_t charged, Clock::time_point now);
  bool commit_due(Clock::time_point now) const noexcept;
  void commit_transaction();

  std::shared_ptr<SourceEncoder> encoder_;
  std::shared_ptr<SourceOffsets> offsets_;
  ProducerTransactions txn_;
  std::unique_ptr<kafka::Producer> producer_;
  std::deque<Waiting> waiting_; // arrived, not produced yet
  Batch encoded_;               // reused for every decoded batch
  std::unordered_map<uint64_t, InFlight> in_flight_; // token -> batch
  std::deque<uint64_t> released_;
  uint64_t next_token_ = 0;
  bool retrying_ = false; // the front batch waits for a converter retry
  bool ending_ = false;
  // Exactly-once: the open transaction and the source batches it carries, in order.
  bool in_transaction_ = false;
  std::vector<uint64_t> transaction_batches_;
  Clock::time_point transaction_start_;
  std::string failure_; // records not delivered: the first report's error
  uint64_t records_out_ = 0;
  uint64_t records_failed_ = 0;
};

} // namespace weir::engine::pipeline
