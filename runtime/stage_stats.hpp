// What a pipeline stage reports about itself: the raw material of the actor tree,
// the progress line, the REST status and /metrics. Plain data, CAF-free; the
// actors send it in messages (actors/messages.hpp) and publish it to a StatsCell
// (runtime/metrics/metrics_registry.hpp) that readers see without asking the actor.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/kafka/topic_partition.hpp"
#include "runtime/metrics/latency_histogram.hpp"
#include "runtime/credit.hpp"

namespace weir::runtime {

struct StageStats {
  std::string name;
  std::string kind;
  std::string state;
  uint64_t records_in = 0;
  uint64_t records_out = 0;
  uint64_t batches_in = 0;
  uint64_t bytes_in = 0;
  uint64_t errors = 0;
  uint64_t dead_lettered = 0; ///< sink writers: of the errors, records sent to the dead-letter queue
  std::string last_error;
  uint64_t cpu_ns = 0;
  uint64_t busy_ns = 0;        ///< wall time handling batches (one clock read pair per batch)
  uint64_t credit_wait_ns = 0; ///< time with output ready and no credit from downstream
  uint64_t idle_ns = 0;        ///< readers: time their source had nothing to give (its
                               ///< poll's wait for records included)
  /// Stages on a thread of their own (a sink writing to a database): the steady
  /// clock's ns when the batch in hand began, 0 between batches, so that a write
  /// stuck for seconds shows as busy before it ends (see busy_at()).
  uint64_t busy_since_ns = 0;
  uint64_t mailbox = 0;
  Credit capacity;          ///< credit this stage grants its upstream
  Credit held;              ///< of which currently used
  Credit out_capacity;      ///< credit granted to this stage by its downstream
  Credit out_in_flight;     ///< of which in flight now
  Credit out_max_in_flight; ///< the most ever in flight at once
  int64_t lag = -1;         ///< consumers: records behind the high watermarks
  /// Consumers: the same per assigned partition (whose known lags sum to `lag`).
  std::vector<kafka::PartitionLag> partition_lags;
  int32_t partitions = -1;  ///< consumers: partitions assigned
  std::string idle_reason;  ///< consumers with no partition: why ("" when not known)
  std::string waiting;      ///< consumers, producers: why they cannot work now ("waiting for the broker since ...")
  uint64_t commits = 0;     ///< consumers: offset commits completed
  uint64_t commit_ns = 0;   ///< consumers: their total time, request to answer
  int64_t source_lag_bytes = -1; ///< sources that know it: bytes their origin keeps for
                                 ///< them, not yet durable in Kafka (a replication slot's lag)
  /// A sink task's consumer, a source task's producer: per record, the time from the
  /// poll that read it to its ack (the sink wrote it durably, Kafka acknowledged it).
  metrics::LatencyHistogram poll_to_ack;
};

/// The busy time of `s` at `now_ns` (steady clock), the batch in hand included.
inline uint64_t busy_at(const StageStats& s, uint64_t now_ns) {
  return s.busy_ns + (s.busy_since_ns != 0 && now_ns > s.busy_since_ns ? now_ns - s.busy_since_ns : 0);
}

} // namespace weir::runtime
