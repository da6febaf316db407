// A Kafka consumer-group member that fills weir record batches.
//
// Threading: not thread-safe. One owner (the consumer actor) calls every method from
// one thread; the rebalance listener runs on that thread, inside poll() or close().
//
// Offsets: nothing is committed automatically and nothing is stored implicitly;
// the owner commits exactly the offsets it has processed (commit()).
//
// Backpressure: pause() stops fetching for every assigned partition (and for those
// assigned later, until resume()). The owner must keep calling poll() while paused:
// that serves rebalances and returns no records. Records fetched before the pause
// stay carried over inside the consumer and come out after resume().
#pragma once

#include "runtime/kafka/broker_watch.hpp"
#include "runtime/kafka/client_config.hpp"
#include "runtime/kafka/topic_partition.hpp"
#include "runtime/batch.hpp"

#include <chrono>
#include <deque>
#include <cstdint>
#include <exception>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace weir::runtime::kafka {

/// When a consumer wakes librdkafka's fetchers (see Consumer::watch_prefetch): once
/// its prefetch queue was full (90% of queued.min.messages or of
/// queued.max.messages.kbytes) and is half drained.
class PrefetchWatch {
public:
  PrefetchWatch(size_t max_messages, size_t max_bytes) : max_messages_(max_messages), max_bytes_(max_bytes) {}

  /// A poll took `taken` messages of `taken_bytes` and dequeued `dequeued` of them
  /// (the others were carried over), leaving `queued`: whether to wake the fetchers.
  /// Fullness is judged on what the queue held before the poll took from it, so a poll
  /// of a large share of the queue still sees it full.
  bool after_poll(size_t taken, size_t taken_bytes, size_t dequeued, size_t queued);

  uint64_t wakes() const noexcept { return wakes_; }

private:
  double fill(size_t messages) const noexcept;

  size_t max_messages_, max_bytes_;
  bool full_ = false;
  double mean_message_bytes_ = 0; ///< turns the queue's length into bytes
  uint64_t wakes_ = 0;
};

/// A change of the member's assignment. With cooperative rebalancing only the
/// partitions that move are listed; an eager rebalance revokes everything first.
struct RebalanceEvent {
  std::vector<TopicPartition> assigned;
  std::vector<TopicPartition> revoked;
  /// The partitions were lost (session expired, fenced): commits for them fail.
  bool lost = false;
};

/// Called before revoked partitions are given up (so their offsets can still be
/// committed) and after assigned partitions are taken.
using RebalanceListener = std::function<void(const RebalanceEvent&)>;

class Consumer {
public:
  /// `props` are librdkafka consumer properties; `bootstrap.servers` and `group.id`
  /// are required. Defaults (overridable): partition.assignment.strategy=
  /// cooperative-sticky, auto.offset.reset=earliest, queued.min.messages=20000,
  /// max.partition.fetch.bytes=524288, heartbeat.interval.ms=500.
  /// enable.auto.commit and
  /// enable.auto.offset.store are always false (weir commits), and setting either to
  /// true is an error. Throws KafkaError.
  explicit Consumer(const Properties& props, RebalanceListener listener = {});
  ~Consumer();

  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

  /// Subscribes to `topics`; an entry starting with '^' is a regular expression.
  void subscribe(const std::vector<std::string>& topics);

  /// Where each of these partitions starts when it is first assigned, unless the
  /// group has committed a later offset: the offsets an exactly-once sink stored with
  /// its data (SinkWriter::stored_offsets). Call before subscribe().
  void start_at(std::vector<TopicPartitionOffset> offsets) { start_at_ = std::move(offsets); }

  /// Appends up to `max_records` records to `out` while `out.byte_size()` grows by at
  /// most `max_bytes`; a single larger record is taken only when `out` is empty.
  /// A record that does not fit is carried over to the next call, never dropped.
  /// Waits up to `timeout` only when it has nothing to return. Serves rebalances.
  /// Returns the number of records appended (0 while paused). Non-fatal client
  /// errors are logged and counted (error_count()); a fatal one throws KafkaError.
  size_t poll(weir::Batch& out, size_t max_records, size_t max_bytes,
              std::chrono::milliseconds timeout);

  /// Stops fetching from every assigned partition (credit exhausted).
  void pause();
  /// Undoes pause(); fetching continues after the last record handed out.
  void resume();
  bool paused() const noexcept { return paused_; }

  /// Commits exactly `offsets` (next offset to read per partition). A synchronous
  /// commit throws KafkaError naming the failed partitions; an asynchronous one
  /// reports failures in the log and error_count(), served by poll().
  void commit(const std::vector<TopicPartitionOffset>& offsets, bool async);

  /// The partitions currently assigned to this member.
  const std::vector<TopicPartition>& assignment() const noexcept { return assignment_; }
  /// Whether the group has answered with an assignment (even an empty one) yet.
  bool assigned_once() const noexcept { return assigned_once_; }
  /// Subscribed topics the broker reported as unknown (they do not exist), until
  /// one of their partitions is assigned.
  const std::set<std::string>& missing_topics() const noexcept { return missing_topics_; }

  /// Lag per assigned partition from librdkafka's cached watermarks and positions;
  /// while paused, against the broker's end offsets; for partitions not fetched from
  /// or taken from yet, from the broker's latest and committed offsets (requests, at
  /// most once a second).
  std::vector<PartitionLag> lag() const;

  /// Records fetched but not yet handed out (carried over).
  size_t carried_over() const noexcept { return pending_.size() - pending_head_; }

  /// Non-fatal errors seen so far (fetch errors, failed async commits, ...).
  uint64_t error_count() const noexcept { return errors_; }
  /// Offset commits answered so far, and their total time from request to answer.
  uint64_t commits_done() const noexcept { return commits_done_; }
  uint64_t commit_ns() const noexcept { return commit_ns_; }
  /// Total time poll() waited for records to arrive (its timeout, when it had nothing
  /// to return): time a caught-up consumer is idle, not busy.
  uint64_t poll_wait_ns() const noexcept { return poll_wait_ns_; }
  /// Times the prefetch queue, full and then half drained, woke librdkafka's fetchers.
  uint64_t fetcher_wakes() const noexcept { return prefetch_.wakes(); }

  /// Whether the brokers are reachable: from a failed connection until a commit or a
  /// metadata request (poll() asks, see BrokerWatch) succeeds again. Records do not
  /// count: they may come from the local prefetch queue long after the broker died.
  const BrokerWatch& brokers() const noexcept { return brokers_; }

  /// "COOPERATIVE", "EAGER" or "NONE" (before the first assignment).
  std::string rebalance_protocol() const;

  /// Leaves the group (revoking partitions through the listener) and releases the
  /// client. Idempotent; the destructor calls it.
  void close();

private:
  void leave_group(std::chrono::steady_clock::time_point deadline);
  static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                           rd_kafka_topic_partition_list_t* partitions, void* opaque);
  static void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  static void on_commit(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                        rd_kafka_topic_partition_list_t* offsets, void* opaque);
  void rebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* partitions);
  void drop_pending_of(const std::vector<TopicPartition>& revoked);
  void choose_start(rd_kafka_topic_partition_list_t* assigned);
  bool has_topic_handle(const char* topic) const;
  bool take(weir::Batch& out, rd_kafka_message_t* msg, size_t max_bytes, size_t start_bytes);
  bool handle_error(rd_kafka_message_t* msg); // true: msg was an error (consumed)
  size_t fetch(std::chrono::milliseconds timeout, size_t max);
  /// Up to `max` messages already queued, without waiting (see consumer.cpp).
  ssize_t take_queued(rd_kafka_message_t** into, size_t max);
  void watch_prefetch(size_t taken, size_t taken_bytes, size_t dequeued);
  void wake_fetchers();
  void throw_if_fatal();
  void rethrow_callback_error();

  friend struct ConsumerTestProbe; // tests pause the handle from another thread, as librdkafka does
  HandlePtr rk_;
  rd_kafka_queue_t* queue_ = nullptr;
  RebalanceListener listener_;
  std::vector<TopicPartition> assignment_;
  // Carried-over messages: pending_[pending_head_..] in fetch order. fetched_ is
  // the scratch array for rd_kafka_consume_batch_queue (kept to avoid reallocating).
  std::vector<rd_kafka_message_t*> pending_;
  size_t pending_head_ = 0;
  std::vector<rd_kafka_message_t*> fetched_;
  std::exception_ptr callback_error_; // thrown by the listener, rethrown by poll()/close()
  bool paused_ = false;
  std::vector<TopicPartition> left_paused_; ///< given up while paused: librdkafka keeps them paused
  bool revoked_during_fetch_ = false;
  bool closed_ = false;
  bool subscribed_ = false;
  std::vector<rd_kafka_topic_t*> topic_handles_; // see subscribe()
  std::vector<TopicPartitionOffset> start_at_;     // see start_at(), choose_start()
  bool static_member_ = false; ///< group.instance.id is set (KIP-345)
  /// Where auto.offset.reset starts a partition without a committed offset:
  /// RD_KAFKA_OFFSET_BEGINNING or _END, or _INVALID when it is an error.
  int64_t reset_to_ = RD_KAFKA_OFFSET_BEGINNING;
  PrefetchWatch prefetch_{100000, size_t{65536} * 1024}; ///< librdkafka's defaults until set
  std::deque<std::chrono::steady_clock::time_point> commits_in_flight_; ///< async, oldest first
  uint64_t commits_done_ = 0;
  uint64_t commit_ns_ = 0;
  void commit_answered(std::chrono::steady_clock::time_point sent);
  void ask_lag(std::vector<PartitionLag>& lags, const std::vector<size_t>& unknown) const;
  /// The broker's end offset of an assigned partition (-1: unknown), asked at most
  /// once a second: while paused, librdkafka's own goes stale.
  int64_t end_offset(const TopicPartition& tp) const;
  mutable std::chrono::steady_clock::time_point ends_at_;
  mutable std::vector<TopicPartitionOffset> ends_;
  mutable std::chrono::steady_clock::time_point asked_at_; ///< ask_lag()'s last request
  mutable std::vector<PartitionLag> asked_;                 ///< and its answers
  BrokerWatch brokers_;
  bool assigned_once_ = false; ///< a rebalance assigned partitions (or none) at least once
  std::set<std::string> missing_topics_;
  uint64_t errors_ = 0;
  uint64_t poll_wait_ns_ = 0;
};

} // namespace weir::runtime::kafka
