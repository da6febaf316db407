// A Kafka consumer as a sink pipeline's feed: reads while it holds credit, pauses its
// partitions when credit stays out (pause_after), commits only what the sink reported durable.
#pragma once

#include <atomic>
#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kafka/consumer.hpp"
#include "engine/pipeline/join_gate.hpp"
#include "runtime/stage_logic.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::pipeline {

class TopicReader : public BatchFeed {
public:
  struct Options {
    /// librdkafka properties (bootstrap, group.id, ...); Java's max.poll.records, if
    /// given, is taken out and sets max_records.
    kafka::Properties consumer;
    std::vector<std::string> topics;  ///< names, or one '^regex'
    size_t max_records = 2000;        ///< records per batch
    std::chrono::milliseconds poll_timeout{100};
    /// How long credit may stay out before the partitions are paused (see set_blocked).
    std::chrono::milliseconds pause_after{1000};
    /// When set, the consumers sharing it join their group one after the other and
    /// read once it has settled (see JoinGate).
    std::shared_ptr<JoinGate> join_gate = nullptr;
    /// With a join_gate: read as soon as partitions are assigned, without waiting for
    /// the group to settle. Only for a sink that writes a record read twice once
    /// (SinkWriter::exactly_once): the gate's wait exists to prevent duplicates.
    bool read_before_settled = false;
    /// Durable offsets reported within this interval go to the broker in one commit.
    /// Each commit is a write to __consumer_offsets: one per batch (~700/s for a
    /// fast sink) kept the broker busier than the whole fetch path.
    std::chrono::milliseconds commit_interval{100};
    /// Where partitions start when first assigned (see kafka::Consumer::start_at).
    std::vector<kafka::TopicPartitionOffset> start_offsets;
  };

  /// `listener` hears of every rebalance after the reader's own handling: partitions
  /// given up have their durable offsets committed first, as Kafka Connect commits
  /// on revocation, so their next owner does not rewrite what was written.
  explicit TopicReader(Options options, kafka::RebalanceListener listener = {});
  /// Commits the last durable offsets synchronously, then leaves the group.
  ~TopicReader() override;

  Status fill(Batch& out, uint64_t max_bytes) override;
  void set_blocked(bool blocked) override;
  void serve() override;
  void on_durable(const std::vector<kafka::TopicPartitionOffset>& offsets) override;
  std::string_view kind() const noexcept override { return "consumer"; }
  int64_t lag() const override;
  std::vector<kafka::PartitionLag> partition_lags() const override { return consumer_.lag(); }
  uint64_t wait_ns() const override { return consumer_.poll_wait_ns(); }
  metrics::LatencyHistogram poll_to_ack() const override { return poll_to_ack_; }
  int32_t assigned_partitions() const override {
    return static_cast<int32_t>(consumer_.assignment().size());
  }
  std::string idle_reason() const override;
  /// "waiting for the broker since <UTC time>" while no broker answers.
  std::string waiting_reason() const override;
  uint64_t commits() const override { return consumer_.commits_done(); }
  uint64_t commit_ns() const override { return consumer_.commit_ns(); }

  kafka::Consumer& consumer() noexcept { return consumer_; }

private:
  void on_rebalance(const kafka::RebalanceEvent& event);
  /// Commits the durable offsets not yet committed, once commit_interval has passed;
  /// a failure is logged and the commit tried again an interval later.
  void commit_due();
  /// Records the poll-to-ack time of the batches that `offsets` made durable.
  void acked(const std::vector<kafka::TopicPartitionOffset>& offsets);

  Options options_;
  kafka::RebalanceListener listener_;
  // Before consumer_: its rebalance callback reads them until it is closed.
  std::vector<kafka::TopicPartitionOffset> last_durable_;
  bool uncommitted_ = false; ///< last_durable_ moved since the last commit
  std::chrono::steady_clock::time_point next_commit_{};
  kafka::Consumer consumer_;
  Batch scratch_; // serve() polls into it; always empty while paused
  bool subscribed_ = false;
  bool gate_asked_ = false;
  bool first_through_gate_ = false; ///< this consumer joined first (see JoinGate)
  size_t gate_member_ = 0;          ///< its number at the gate
  bool reading_gated_ = false;      ///< paused until the gate lets it read
  size_t last_records_ = 0; // the size of the last batch filled: the next one's guess
  size_t last_bytes_ = 0;
  bool blocked_ = false;
  std::chrono::steady_clock::time_point blocked_since_;
  /// Batches read and not yet durable, oldest first: when each was polled and where
  /// it ended (the position after its last record). A sink writes batches in order,
  /// so a durable report covering one's end covers every batch before it too.
  struct Unacked {
    std::chrono::steady_clock::time_point polled;
    kafka::TopicPartitionOffset end;
    uint64_t records;
  };
  std::deque<Unacked> unacked_;
  metrics::LatencyHistogram poll_to_ack_;
};

} // namespace weir::engine::pipeline
