#include "runtime/metrics/node_figures.hpp"

#include "runtime/metrics/verdict.hpp"

namespace weir::runtime::metrics {

int NodeFigures::busy_threads() const {
  int n = 0;
  for (const auto& t : scheduler)
    n += t.busy >= saturated_busy;
  return n;
}

std::vector<double> NodeFigures::thread_busy() const {
  std::vector<double> out;
  for (const auto& t : scheduler)
    out.push_back(t.busy);
  return out;
}

bool NodeSampler::sample(std::chrono::milliseconds min_interval) {
  auto now = SchedulerMeter::now_ns();
  if (started_ && now - process_.at_ns < static_cast<uint64_t>(min_interval.count()) * 1'000'000u)
    return false;
  auto process = read_process();
  SchedulerMeter::Reading scheduler;
  if (meter_)
    scheduler = meter_->read(process.at_ns);
  if (started_) {
    double seconds = static_cast<double>(process.at_ns - process_.at_ns) / 1e9;
    NodeFigures f;
    auto busy = fractions_between(scheduler_.busy_ns, scheduler.busy_ns, seconds);
    auto cpu = fractions_between(scheduler_.cpu_ns, scheduler.cpu_ns, seconds);
    for (size_t i = 0; i < busy.size(); ++i)
      f.scheduler.push_back(
        {static_cast<int>(i), scheduler.tids[i], busy[i], cpu[i], scheduler.busy_ns[i], scheduler.cpu_ns[i]});
    f.run_queue = scheduler.run_queue;
    f.process = process_between(process_, process);
    f.verdict = scheduler_verdict(f.thread_busy());
    figures_ = std::move(f);
  }
  started_ = true;
  scheduler_ = std::move(scheduler);
  process_ = std::move(process);
  return true;
}

} // namespace weir::runtime::metrics
