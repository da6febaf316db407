// A Kafka consumer as a pipeline source: reads while it holds credit, pauses its
// partitions when credit stays out (pause_after), commits only what the sink reported durable.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "runtime/kafka/consumer.hpp"
#include "runtime/stage_logic.hpp"

namespace weir::runtime::pipeline {

/// The consumers of tasks started together join their group together. One that
/// joins alone gets every partition in a first generation that the others' joins
/// then break, and librdkafka 2.0 rejoins only 1 to 2 s later: no records flow
/// meanwhile. So each consumer first connects (see Consumer::connect), then waits
/// until all have, or until `deadline`, and only then subscribes.
struct JoinGate {
  std::atomic<int> expected{-1}; ///< how many consumers; -1 until the starter knows
  std::atomic<int> connected{0};
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::now()
                                                   + std::chrono::seconds{2};
  bool open() const {
    int e = expected.load();
    return (e >= 0 && connected.load() >= e) || std::chrono::steady_clock::now() >= deadline;
  }
};

class KafkaSource : public BatchSource {
public:
  struct Options {
    kafka::Properties consumer;       ///< librdkafka properties (bootstrap, group.id, ...)
    std::vector<std::string> topics;  ///< names, or one '^regex'
    size_t max_records = 2000;        ///< records per batch
    std::chrono::milliseconds poll_timeout{100};
    /// How long credit may stay out before the partitions are paused (see set_blocked).
    std::chrono::milliseconds pause_after{1000};
    /// When set, the consumers sharing it join their group together (see JoinGate).
    std::shared_ptr<JoinGate> join_gate = nullptr;
  };

  /// `listener` hears of every rebalance after the source's own handling: partitions
  /// given up have their durable offsets committed first, as Kafka Connect commits
  /// on revocation, so their next owner does not rewrite what was written.
  explicit KafkaSource(Options options, kafka::RebalanceListener listener = {});
  /// Commits the last durable offsets synchronously, then leaves the group.
  ~KafkaSource() override;

  Status fill(Batch& out, uint64_t max_bytes) override;
  void set_blocked(bool blocked) override;
  void serve() override;
  void on_durable(const std::vector<kafka::TopicPartitionOffset>& offsets) override;
  std::string_view kind() const noexcept override { return "consumer"; }
  int64_t lag() const override;
  int32_t assigned_partitions() const override {
    return static_cast<int32_t>(consumer_.assignment().size());
  }
  uint64_t commits() const override { return consumer_.commits_done(); }
  uint64_t commit_ns() const override { return consumer_.commit_ns(); }

  kafka::Consumer& consumer() noexcept { return consumer_; }
  uint64_t committed_batches() const noexcept { return commits_; }

private:
  void on_rebalance(const kafka::RebalanceEvent& event);

  Options options_;
  kafka::RebalanceListener listener_;
  // Before consumer_: its rebalance callback reads them until it is closed.
  std::vector<kafka::TopicPartitionOffset> last_durable_;
  uint64_t commits_ = 0;
  kafka::Consumer consumer_;
  Batch scratch_; // serve() polls into it; always empty while paused
  bool subscribed_ = false;
  bool connected_ = false; ///< through the join gate's first step
  size_t last_records_ = 0; // the size of the last batch filled: the next one's guess
  size_t last_bytes_ = 0;
  bool blocked_ = false;
  std::chrono::steady_clock::time_point blocked_since_;
};

} // namespace weir::runtime::pipeline
