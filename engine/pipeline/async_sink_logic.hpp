// An asynchronous sink writer's batches from arrival to ack, as plain C++: the actor
// (actors/async_sink_stage.cpp) turns its calls into messages and credit.
//
// A batch is started at once (up to max_in_flight() are out: the credit the actor
// grants sees to that). Writes complete on the writer's own threads; a completion
// is stored here and the owner is woken (`wake`, any thread) to handle it on its
// own thread with on_completed(). Then the error policy applies as for a blocking
// writer: rejected records are TaskPut errors (errors.tolerance, the DLQ), a failed
// batch is started again after RetryBackoff's wait, within errors.retry.timeout
// counted from its first failure. Batches are acked strictly in arrival order, so a
// partition's offsets are committed only once every earlier batch is written.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/pipeline/error_policy.hpp"
#include "runtime/connector_api/sink_writer.hpp"
#include "runtime/stage_logic.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::pipeline {

class AsyncSinkLogic {
public:
  AsyncSinkLogic(std::unique_ptr<AsyncSinkWriter> writer, std::shared_ptr<ErrorPolicy> policy);
  /// Destroys the writer first (its close() stops writes still out), then the batches.
  ~AsyncSinkLogic();
  AsyncSinkLogic(const AsyncSinkLogic&) = delete;
  AsyncSinkLogic& operator=(const AsyncSinkLogic&) = delete;

  /// Set once, before the first submit(): called from any thread after a completion
  /// was stored.
  void set_wake(std::function<void()> wake);

  uint32_t max_in_flight() const noexcept { return writer_->max_in_flight(); }

  /// A batch arrived (charged `charged` bytes of credit): starts its write.
  void submit(std::shared_ptr<data::DecodedBatch> batch, uint64_t charged);

  /// A batch to start again after `delay` (restart(id) then).
  struct Retry {
    uint64_t id;
    std::chrono::milliseconds delay;
  };
  /// Handles every stored completion; returns the failed batches to retry. Throws
  /// TaskFailure: a batch failed past errors.retry.timeout, a record was rejected
  /// under errors.tolerance=none, or the DLQ could not be written.
  std::vector<Retry> on_completed();
  void restart(uint64_t id);

  /// The oldest batch, once it and every one before it is written: what to ack.
  struct Acked {
    std::vector<kafka::TopicPartitionOffset> offsets;
    uint64_t charged = 0;
    size_t written = 0; ///< its Live records
    size_t errors = 0;  ///< its record errors (tolerated)
  };
  std::optional<Acked> pop_acked();

  /// Batches not acked yet (out, waiting to be retried, or written behind an older one).
  size_t held() const noexcept { return batches_.size(); }
  /// Of them, writes started and not completed.
  size_t writing() const noexcept { return writing_; }
  uint64_t dead_lettered() const noexcept { return policy_->dead_lettered(); }

private:
  struct Inbox;
  struct Entry {
    uint64_t id;
    std::shared_ptr<data::DecodedBatch> batch;
    uint64_t charged;
    size_t errors_seen;
    bool written = false;
    std::optional<RetryBackoff> backoff; // from the first failure on
  };
  Entry* find(uint64_t id);
  void start(Entry& e);

  std::shared_ptr<ErrorPolicy> policy_;
  std::shared_ptr<Inbox> inbox_;
  std::deque<Entry> batches_; // arrival order
  std::unique_ptr<AsyncSinkWriter> writer_; // declared last: destroyed first
  uint64_t next_id_ = 0;
  size_t writing_ = 0;
};

} // namespace weir::engine::pipeline
