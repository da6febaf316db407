#include "engine/pipeline/async_sink_logic.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace weir::engine::pipeline {

/// Where completions wait for the owner's thread; shared with the writer's
/// callbacks, which may outlive this logic (they then store into nothing read).
struct AsyncSinkLogic::Inbox {
  std::mutex sync;
  std::vector<std::pair<uint64_t, WriteOutcome>> done;
  std::function<void()> wake;

  void post(uint64_t id, WriteOutcome outcome) {
    std::function<void()> w;
    {
      std::lock_guard lock{sync};
      done.emplace_back(id, std::move(outcome));
      w = wake;
    }
    if (w)
      w();
  }
};

AsyncSinkLogic::AsyncSinkLogic(std::unique_ptr<AsyncSinkWriter> writer, std::shared_ptr<ErrorPolicy> policy)
  : policy_(std::move(policy)), inbox_(std::make_shared<Inbox>()), writer_(std::move(writer)) {}

AsyncSinkLogic::~AsyncSinkLogic() {
  writer_.reset();
  std::lock_guard lock{inbox_->sync};
  inbox_->wake = nullptr; // late completions wake no one
}

void AsyncSinkLogic::set_wake(std::function<void()> wake) {
  std::lock_guard lock{inbox_->sync};
  inbox_->wake = std::move(wake);
}

AsyncSinkLogic::Entry* AsyncSinkLogic::find(uint64_t id) {
  auto it = std::find_if(batches_.begin(), batches_.end(), [&](const Entry& e) { return e.id == id; });
  return it == batches_.end() ? nullptr : &*it;
}

void AsyncSinkLogic::start(Entry& e) {
  ++writing_;
  writer_->start(*e.batch, [inbox = inbox_, id = e.id](WriteOutcome o) { inbox->post(id, std::move(o)); });
}

void AsyncSinkLogic::submit(std::shared_ptr<data::DecodedBatch> batch, uint64_t charged) {
  auto seen = batch->errors().size();
  // A deque keeps the addresses of its elements on push_back and pop_front: the
  // writer may hold on to this batch while others come and go.
  auto& e = batches_.emplace_back(Entry{next_id_++, std::move(batch), charged, seen, false, std::nullopt});
  start(e);
}

std::vector<AsyncSinkLogic::Retry> AsyncSinkLogic::on_completed() {
  std::vector<std::pair<uint64_t, WriteOutcome>> done;
  {
    std::lock_guard lock{inbox_->sync};
    done.swap(inbox_->done);
  }
  std::vector<Retry> retries;
  for (auto& [id, outcome] : done) {
    auto* e = find(id);
    if (!e || e->written)
      continue;
    --writing_;
    if (outcome.error) {
      retries.push_back({id, policy_->next_retry(e->backoff, "Exception in sink writer",
                                                 std::runtime_error(*outcome.error))});
      continue;
    }
    auto& batch = *e->batch;
    for (const auto& f : outcome.failures)
      if (f.index < batch.size() && batch[f.index].live())
        batch.fail(f.index, data::ErrorStage::TaskPut, writer_->class_name(), data::DataError(f.reason));
    policy_->check(batch, e->errors_seen);
    policy_->dead_letter(batch);
    e->written = true;
  }
  return retries;
}

void AsyncSinkLogic::restart(uint64_t id) {
  if (auto* e = find(id); e && !e->written)
    start(*e);
}

std::optional<AsyncSinkLogic::Acked> AsyncSinkLogic::pop_acked() {
  if (batches_.empty() || !batches_.front().written)
    return std::nullopt;
  auto& e = batches_.front();
  Acked a{durable_offsets(*e.batch), e.charged, e.batch->live_count(), e.batch->errors().size()};
  batches_.pop_front();
  return a;
}

} // namespace weir::engine::pipeline
