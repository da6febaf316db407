// A node's figures over the worker's last sampling interval: its scheduler
// threads' busy fractions and run queue, its other threads by group, the
// process's CPU, memory and descriptors, and the scheduler's verdict. Shown in the
// actor tree's node (GET /weir/tree), the shell's top header and /metrics.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/metrics/process_sampler.hpp"
#include "runtime/metrics/scheduler_meter.hpp"

namespace weir::runtime::metrics {

struct SchedulerThreadFigures {
  int id = 0;          ///< the worker's index in CAF's scheduler
  int tid = 0;         ///< its kernel thread id
  double busy = 0;     ///< wall time running actors ÷ the interval
  double cpu = 0;      ///< CPU time running actors ÷ the interval
  uint64_t busy_ns = 0; ///< the counters, since the thread started
  uint64_t cpu_ns = 0;
};

struct NodeFigures {
  std::vector<SchedulerThreadFigures> scheduler;
  int64_t run_queue = 0;
  ProcessFigures process;
  std::string verdict; ///< scheduler_verdict(); "" when not saturated
  /// Threads at least saturated_busy busy.
  int busy_threads() const;
  std::vector<double> thread_busy() const;
};

/// Takes the node's readings and keeps the figures of the last interval. Not
/// thread-safe: its owner (the worker) calls it under its own lock.
class NodeSampler {
public:
  /// `meter` may be null (a scheduler weir did not configure): no thread figures.
  explicit NodeSampler(const SchedulerMeter* meter) : meter_(meter) {}

  /// Reads the meter and /proc when `min_interval` has passed since the last
  /// reading; returns whether the figures changed.
  bool sample(std::chrono::milliseconds min_interval = std::chrono::milliseconds{1000});
  const NodeFigures& figures() const { return figures_; }

private:
  const SchedulerMeter* meter_;
  bool started_ = false;
  SchedulerMeter::Reading scheduler_;
  ProcessReading process_;
  NodeFigures figures_;
};

} // namespace weir::runtime::metrics
