// A task's bottleneck in words, from the figures of the worker's last sampling
// interval: the rules behind "high CPU, low throughput: optimize the SMTs" and
// "monitor the thread pool" (docs/metrics.md, "The verdict").
//
// Credit flows up, so a stage that holds a task back shows as its upstream
// waiting for credit: starting at the reader, the bottleneck is the first stage
// downstream that is not itself waiting for its downstream's credit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/metrics/metrics_registry.hpp"
#include "runtime/metrics/stage_rates.hpp"

namespace weir::runtime::metrics {

/// One stage of a task, in pipeline order (reader first).
struct StageFigures {
  std::string name;   ///< "consumer", an SMT alias, "sink"
  std::string kind;   ///< what to call it in words: "Cast", "JDBC, SQLite", "Kafka"
  StageRole role = StageRole::transform;
  StageRates rates;   ///< over the last interval
  int64_t lag = -1;   ///< readers of Kafka
};

struct Verdict {
  std::string text;  ///< "" when there are no figures yet
  std::string stage; ///< the stage named; "" for none, saturated or unknown
};

/// Thresholds of the rules.
inline constexpr double saturated_busy = 0.9; ///< a scheduler thread this busy is saturated
inline constexpr double waiting = 0.5;        ///< waiting for credit this long: held back
inline constexpr double idle = 0.5;           ///< a reader idle this long: caught up

/// "scheduler saturated: 2 of 2 threads 99% busy" when every thread is at least
/// saturated_busy busy; "" otherwise or without threads.
std::string scheduler_verdict(const std::vector<double>& thread_busy);

/// The task's verdict. `scheduler` is scheduler_verdict() of its node.
Verdict task_verdict(const std::vector<StageFigures>& stages, const std::string& scheduler);

/// A whole percentage: 0.974 → "97%".
std::string percent(double fraction);

} // namespace weir::runtime::metrics
