#include "runtime/metrics/scheduler_meter.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>

namespace weir::runtime::metrics {

uint64_t SchedulerMeter::now_ns() {
  return static_cast<uint64_t>(
    std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count());
}

uint64_t SchedulerMeter::thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

void SchedulerMeter::on_take(size_t index, uint64_t now, uint64_t cpu) {
  if (index >= max_threads)
    return;
  slots_[index].cpu_since = cpu;
  slots_[index].since_ns.store(now, std::memory_order_relaxed);
}

void SchedulerMeter::on_return(size_t index, uint64_t now, uint64_t cpu) {
  if (index >= max_threads)
    return;
  auto& slot = slots_[index];
  auto since = slot.since_ns.load(std::memory_order_relaxed);
  if (since == 0)
    return;
  if (cpu >= slot.cpu_since)
    slot.cpu_ns.store(slot.cpu_ns.load(std::memory_order_relaxed) + (cpu - slot.cpu_since),
                      std::memory_order_relaxed);
  // Busy before idle: a reader between the two stores counts the resume once, not never.
  slot.busy_ns.store(slot.busy_ns.load(std::memory_order_relaxed) + (now - since), std::memory_order_relaxed);
  slot.since_ns.store(0, std::memory_order_relaxed);
}

void SchedulerMeter::on_start(size_t index, int tid) {
  if (index >= max_threads)
    return;
  slots_[index].tid.store(tid, std::memory_order_relaxed);
  auto n = threads_.load(std::memory_order_relaxed);
  while (n < index + 1 && !threads_.compare_exchange_weak(n, index + 1, std::memory_order_relaxed)) {
  }
}

SchedulerMeter::Reading SchedulerMeter::read(uint64_t now) const {
  Reading r;
  auto n = threads_.load(std::memory_order_relaxed);
  r.busy_ns.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const auto& slot = slots_[i];
    auto busy = slot.busy_ns.load(std::memory_order_relaxed);
    auto since = slot.since_ns.load(std::memory_order_relaxed);
    r.busy_ns.push_back(busy + (since != 0 && now > since ? now - since : 0));
    r.cpu_ns.push_back(slot.cpu_ns.load(std::memory_order_relaxed));
    r.tids.push_back(slot.tid.load(std::memory_order_relaxed));
  }
  r.run_queue = std::max<int64_t>(queued_.load(std::memory_order_relaxed), 0);
  return r;
}

std::vector<double> fractions_between(const std::vector<uint64_t>& then, const std::vector<uint64_t>& now,
                                      double seconds) {
  std::vector<double> out;
  for (size_t i = 0; i < now.size(); ++i) {
    uint64_t before = i < then.size() ? then[i] : 0;
    double busy = now[i] >= before ? static_cast<double>(now[i] - before) : 0.0;
    out.push_back(seconds > 0 ? std::clamp(busy / (seconds * 1e9), 0.0, 1.0) : 0.0);
  }
  return out;
}

} // namespace weir::runtime::metrics
