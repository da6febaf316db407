#include "engine/pipeline/topic_reader.hpp"

#include <algorithm>

#include <spdlog/spdlog.h>

namespace weir::engine::pipeline {

namespace {

// Java's max.poll.records (records per poll, and so per put() in Kafka Connect) is the
// batch size here; librdkafka has no such property.
constexpr size_t max_unacked = 4096;

TopicReader::Options take_max_poll_records(TopicReader::Options options) {
  auto it = options.consumer.find("max.poll.records");
  if (it == options.consumer.end())
    return options;
  options.max_records = kafka::positive_integer(it->first, it->second);
  options.consumer.erase(it);
  return options;
}

} // namespace

TopicReader::TopicReader(Options options, kafka::RebalanceListener listener)
  : options_(take_max_poll_records(std::move(options))), listener_(std::move(listener)),
    consumer_(options_.consumer, [this](const kafka::RebalanceEvent& e) { on_rebalance(e); }) {
  consumer_.start_at(options_.start_offsets);
  if (!options_.join_gate) {
    consumer_.subscribe(options_.topics);
    subscribed_ = true;
    return;
  }
  gate_member_ = options_.join_gate->enroll();
  if (options_.read_before_settled)
    return;
  // Paused from the start: partitions assigned while the group settles are paused too.
  reading_gated_ = true;
  consumer_.pause();
}

void TopicReader::on_rebalance(const kafka::RebalanceEvent& event) {
  auto revoked = [&](const kafka::TopicPartitionOffset& o) {
    return std::any_of(event.revoked.begin(), event.revoked.end(),
                       [&](const auto& tp) { return kafka::same_partition(tp, o); });
  };
  std::vector<kafka::TopicPartitionOffset> leaving;
  for (const auto& o : last_durable_)
    if (revoked(o))
      leaving.push_back(o);
  std::erase_if(last_durable_, revoked);
  // Lost partitions already belong to someone else: a commit would be fenced.
  if (!leaving.empty() && !event.lost) {
    try {
      consumer_.commit(leaving, false);
    } catch (const std::exception& e) {
      // The new owner re-reads from the previous commit: duplicates, never a loss.
      spdlog::debug("commit on revocation failed: {}", e.what());
    }
  }
  if (options_.join_gate) {
    // The listener hears of revocations before they leave the assignment.
    auto held = consumer_.assignment().size() - event.revoked.size();
    options_.join_gate->assigned(gate_member_, static_cast<int32_t>(held));
  }
  if (listener_)
    listener_(event);
}

BatchFeed::Status TopicReader::fill(Batch& out, uint64_t max_bytes) {
  if (!subscribed_) {
    auto& gate = *options_.join_gate;
    if (!gate_asked_) {
      gate_asked_ = true;
      first_through_gate_ = gate.take_first();
    }
    if (!first_through_gate_ && !gate.wait_to_join(options_.poll_timeout))
      return Status::idle; // waited as long as an empty poll
    consumer_.subscribe(options_.topics);
    subscribed_ = true;
  }
  if (reading_gated_) {
    if (!options_.join_gate->may_read()) {
      consumer_.poll(out, options_.max_records, max_bytes, options_.poll_timeout); // paused: serves rebalances
      return Status::idle;
    }
    reading_gated_ = false;
    consumer_.resume();
  }
  // Room for a batch like the last one, so that the arena is allocated once instead
  // of growing (and being copied) a dozen times per batch.
  if (out.empty())
    out.reserve(last_records_, std::min<uint64_t>(last_bytes_, max_bytes));
  commit_due();
  auto n = consumer_.poll(out, options_.max_records, max_bytes, options_.poll_timeout);
  if (n > 0) {
    last_records_ = out.size();
    last_bytes_ = out.byte_size();
    // One stamp per batch; the credit window bounds how many are out, the cap only
    // guards against a sink that never reports (a failed one).
    const auto& last = out[out.size() - 1];
    if (unacked_.size() >= max_unacked)
      unacked_.pop_front();
    unacked_.push_back({std::chrono::steady_clock::now(),
                        {std::string{out.topic(last)}, last.partition, last.offset + 1}, n});
  }
  // An empty poll already waited poll_timeout: come back soon, but through the
  // mailbox, so credit and stats requests are served in between.
  return n == 0 ? Status::idle : Status::ready;
}

// Pausing drops librdkafka's prefetched messages, and resuming refetches them: a
// stall of a few hundred milliseconds, which the pipeline's normal rhythm (a sink
// that is simply slower than the consumer, so credit runs out and comes back all
// the time) would pay again and again. So a stall pauses the partitions only once it
// outlasts pause_after; until then librdkafka's own bounded prefetch queue
// (queued.max.messages.kbytes) holds what arrives, and a rebalance waits as long.
void TopicReader::set_blocked(bool blocked) {
  blocked_ = blocked;
  if (blocked)
    blocked_since_ = std::chrono::steady_clock::now();
  else if (consumer_.paused() && !reading_gated_)
    consumer_.resume();
}

void TopicReader::serve() {
  commit_due();
  if (!consumer_.paused()) {
    // Not paused yet: polling now would take records that belong to the next batch.
    // While the group settles (a consumer that reads before it has, see
    // read_before_settled), a rebalance is due any moment and must not wait.
    auto patience = options_.join_gate && !options_.join_gate->may_read() ? std::chrono::milliseconds{0}
                                                                           : options_.pause_after;
    if (!blocked_ || std::chrono::steady_clock::now() - blocked_since_ < patience)
      return;
    consumer_.pause();
  }
  consumer_.poll(scratch_, options_.max_records, 1, std::chrono::milliseconds{0});
}

TopicReader::~TopicReader() {
  // A clean shutdown commits what the sink made durable, so a restart neither
  // re-reads nor skips anything.
  try {
    if (!last_durable_.empty())
      consumer_.commit(last_durable_, false);
  } catch (const std::exception&) {
    // Partitions revoked or the broker gone: the next owner re-reads (at-least-once).
  }
  last_durable_.clear(); // leaving the group revokes everything: nothing left to commit
  if (options_.join_gate)
    options_.join_gate->leave(gate_member_);
}

int64_t TopicReader::lag() const { return total_lag(consumer_.lag()); }

std::string TopicReader::idle_reason() const {
  if (!consumer_.assignment().empty())
    return {};
  const auto& missing = consumer_.missing_topics();
  if (!missing.empty()) {
    std::string names;
    for (const auto& t : missing)
      names += (names.empty() ? "" : ", ") + t;
    return missing.size() == 1 ? "topic " + names + " does not exist" : "topics " + names + " do not exist";
  }
  if (!consumer_.assigned_once()) {
    auto group = options_.consumer.find("group.id");
    return "not assigned yet: joining the consumer group"
           + (group == options_.consumer.end() ? std::string{} : " " + group->second);
  }
  return {}; // the group gave it none: more tasks than partitions
}

std::string TopicReader::waiting_reason() const { return consumer_.brokers().describe(); }

void TopicReader::on_durable(const std::vector<kafka::TopicPartitionOffset>& offsets) {
  acked(offsets);
  const auto& assigned = consumer_.assignment();
  for (const auto& o : offsets) {
    // A batch written after its partition was revoked: the new owner reads it again
    // from the offset committed on revocation, and an older commit now would undo
    // the new owner's progress.
    if (std::none_of(assigned.begin(), assigned.end(),
                     [&](const auto& tp) { return kafka::same_partition(tp, o); }))
      continue;
    kafka::merge_offset(last_durable_, o);
    uncommitted_ = true;
  }
  commit_due();
}

void TopicReader::acked(const std::vector<kafka::TopicPartitionOffset>& offsets) {
  auto covered = [&](const Unacked& u) {
    return std::any_of(offsets.begin(), offsets.end(), [&](const auto& o) {
      return kafka::same_partition(o, u.end) && o.offset >= u.end.offset;
    });
  };
  auto last = std::find_if(unacked_.rbegin(), unacked_.rend(), covered);
  if (last == unacked_.rend())
    return;
  auto now = std::chrono::steady_clock::now();
  auto end = last.base(); // one past the newest covered batch
  for (auto it = unacked_.begin(); it != end; ++it)
    poll_to_ack_.record(static_cast<uint64_t>(
                          std::chrono::duration_cast<std::chrono::nanoseconds>(now - it->polled).count()),
                        it->records);
  unacked_.erase(unacked_.begin(), end);
}

void TopicReader::commit_due() {
  auto now = std::chrono::steady_clock::now();
  if (!uncommitted_ || now < next_commit_)
    return;
  next_commit_ = now + options_.commit_interval;
  // Asynchronous: commits are ordered by librdkafka, and a failure is logged and
  // counted; the next commit covers the same records again.
  try {
    consumer_.commit(last_durable_, true);
    uncommitted_ = false;
    spdlog::debug("kafka source: committing the offsets of {} partition(s) the sink made durable",
                  last_durable_.size());
  } catch (const std::exception& e) {
    spdlog::warn("kafka source: committing offsets failed, trying again in {} ms: {}",
                 options_.commit_interval.count(), e.what());
  }
}

} // namespace weir::engine::pipeline
