// How busy the actor scheduler's threads are: the counters a scheduler policy
// (actors/scheduler.cpp) writes as its threads run actors, and a reader samples.
//
// Each thread owns one slot on a cache line of its own and is its only writer:
// per actor resume (when it takes a job, when it comes back for the next) one read
// of the steady clock and one of the thread's CPU clock, relaxed atomic stores, no
// lock. Wall time says how long the thread was occupied (a thread that waits for
// a core still is); CPU time is what /proc can confirm. The run queue is one shared
// counter, changed when an actor becomes ready and when a thread takes it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace weir::runtime::metrics {

class SchedulerMeter {
public:
  static constexpr size_t max_threads = 256;

  /// What a reader sees at one instant.
  struct Reading {
    std::vector<uint64_t> busy_ns; ///< per thread, wall time running actors, the resume running now included
    std::vector<uint64_t> cpu_ns;  ///< per thread, CPU time running actors, up to its last resume
    std::vector<int> tids;         ///< per thread, its kernel thread id (0: not started)
    int64_t run_queue = 0;
  };

  /// The steady clock, in ns.
  static uint64_t now_ns();
  /// The calling thread's CPU clock, in ns.
  static uint64_t thread_cpu_ns();

  /// Thread `index` took a job at `now` (steady) and `cpu` (its CPU clock).
  void on_take(size_t index, uint64_t now, uint64_t cpu);
  /// Thread `index` comes back for its next job at `now` and `cpu`.
  void on_return(size_t index, uint64_t now, uint64_t cpu);
  /// Thread `index` started; `tid` is its kernel id. Sets how many threads there are.
  void on_start(size_t index, int tid);

  void on_ready() { queued_.fetch_add(1, std::memory_order_relaxed); }
  void on_taken() { queued_.fetch_sub(1, std::memory_order_relaxed); }

  Reading read(uint64_t now) const;

private:
  struct alignas(64) Slot {
    std::atomic<uint64_t> busy_ns{0};
    std::atomic<uint64_t> since_ns{0}; ///< start of the resume running now; 0 between them
    std::atomic<uint64_t> cpu_ns{0};
    uint64_t cpu_since = 0;            ///< the owning thread's alone
    std::atomic<int> tid{0};
  };
  Slot slots_[max_threads];
  std::atomic<size_t> threads_{0};
  alignas(64) std::atomic<int64_t> queued_{0};
};

/// Per thread, (the counter in `now` − the one in `then`) ÷ `seconds`, 0..1:
/// busy fractions from busy_ns, CPU fractions from cpu_ns.
std::vector<double> fractions_between(const std::vector<uint64_t>& then, const std::vector<uint64_t>& now,
                                      double seconds);

} // namespace weir::runtime::metrics
