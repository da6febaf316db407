#include "runtime/metrics/verdict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace weir::runtime::metrics {

namespace {

bool is_reader(StageRole role) { return role == StageRole::sink_reader || role == StageRole::source_reader; }
bool is_writer(StageRole role) { return role == StageRole::sink_writer || role == StageRole::source_writer; }

std::string micros(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, ns < 10'000 ? "%.1f" : "%.0f", ns / 1000.0);
  return std::string{buf} + " µs/record";
}

std::string named(const StageFigures& s) { return s.kind.empty() ? s.name : s.name + " (" + s.kind + ")"; }

// The transform that costs the most per record: in a chain of SMTs sharing the
// scheduler, every one of them waits its turn, and the dearest is the one to fix.
const StageFigures& dearest_transform(const std::vector<StageFigures>& stages, const StageFigures& first) {
  const StageFigures* best = &first;
  for (const auto& s : stages)
    if (s.role == StageRole::transform && s.rates.ns_per_record > best->rates.ns_per_record)
      best = &s;
  return *best;
}

Verdict transform_verdict(const std::vector<StageFigures>& stages, const StageFigures& first, double reader_wait,
                          const std::string& reader) {
  const auto& s = dearest_transform(stages, first);
  int transforms = 0;
  double chain_ns = 0;
  for (const auto& t : stages)
    if (t.role == StageRole::transform)
      ++transforms, chain_ns += t.rates.ns_per_record;
  // No record got through them this interval (their threads were busy elsewhere):
  // no cost to show, only where the records wait.
  if (chain_ns == 0)
    return {"bottleneck: " + named(first) + ": no batch got through the SMTs this interval; the " + reader
              + " waited for credit " + percent(reader_wait) + " of the time",
            first.name};
  std::string text = "bottleneck: " + named(s) + ": " + percent(s.rates.busy) + " busy, " + micros(s.rates.ns_per_record);
  if (transforms > 1)
    text += " (the " + std::to_string(transforms) + " SMTs together " + micros(chain_ns) + ")";
  text += "; the " + reader + " waited for credit " + percent(reader_wait) + " of the time";
  return {std::move(text), s.name};
}

} // namespace

std::string percent(double fraction) {
  return std::to_string(static_cast<int>(std::lround(std::clamp(fraction, 0.0, 1.0) * 100))) + "%";
}

std::string scheduler_verdict(const std::vector<double>& thread_busy) {
  if (thread_busy.empty())
    return {};
  auto least = *std::min_element(thread_busy.begin(), thread_busy.end());
  if (least < saturated_busy)
    return {};
  auto n = std::to_string(thread_busy.size());
  return "scheduler saturated: " + n + " of " + n + " threads " + percent(least)
         + " busy; more tasks will not help: add nodes";
}

namespace {

// The rules without the scheduler (docs/metrics.md, "The verdict", 2 to 5).
Verdict pipeline_verdict(const std::vector<StageFigures>& stages) {
  const auto& reader = stages.front();
  const char* reader_word = reader.role == StageRole::sink_reader ? "consumer" : "poller";
  auto lag = reader.lag >= 0 ? ", lag " + std::to_string(reader.lag) : std::string{};
  auto source = reader.role == StageRole::sink_reader ? std::string{"Kafka"} : reader.kind;
  bool held_back = reader.rates.credit_wait >= waiting;
  if (reader.rates.idle >= idle || (reader.rates.records_in_per_sec == 0 && !held_back))
    return {"bottleneck: none (" + source + "): the " + reader_word + " is idle " + percent(reader.rates.idle) + lag, ""};
  // Less than a second of input behind: the task takes records as fast as they come.
  if (!held_back && reader.lag >= 0 && static_cast<double>(reader.lag) <= reader.rates.records_in_per_sec)
    return {"bottleneck: none (" + source + "): the " + reader_word + " keeps up (idle " + percent(reader.rates.idle)
              + ")" + lag,
            ""};
  if (!held_back)
    return {"bottleneck: " + named(reader) + ": the " + reader_word + " is busy " + percent(reader.rates.busy)
              + " reading" + lag + "; the stages after it keep up",
            reader.name};
  for (size_t i = 1; i < stages.size(); ++i) {
    const auto& s = stages[i];
    if (s.rates.credit_wait >= waiting && i + 1 < stages.size())
      continue; // held back itself: look further down
    if (!is_writer(s.role))
      return transform_verdict(stages, s, reader.rates.credit_wait, reader_word);
    // A writer that is not busy holds the credit of what it handed on and waits
    // for the destination's acknowledgements (a producer waiting for the broker).
    auto doing = s.rates.busy >= waiting ? percent(s.rates.busy) + " of its time writing, "
                                             + micros(s.rates.ns_per_record) + " CPU"
                                         : "waiting for acknowledgements (busy " + percent(s.rates.busy) + ")";
    return {"bottleneck: " + named(s) + ": " + doing + "; the " + reader_word + " waited for credit "
              + percent(reader.rates.credit_wait) + " of the time",
            s.name};
  }
  return {};
}

} // namespace

Verdict task_verdict(const std::vector<StageFigures>& stages, const std::string& scheduler) {
  if (stages.empty() || !is_reader(stages.front().role))
    return {};
  auto v = pipeline_verdict(stages);
  if (scheduler.empty())
    return v;
  // Saturated: more tasks will not help, whatever holds this one back. A stage
  // named keeps its name; else the busiest says where the threads' time goes.
  if (!v.stage.empty())
    return {v.text + "; " + scheduler, v.stage};
  const StageFigures* busiest = &stages.front();
  for (const auto& s : stages)
    if (s.rates.cpu_per_sec > busiest->rates.cpu_per_sec)
      busiest = &s;
  return {scheduler + " (busiest " + named(*busiest) + ", " + micros(busiest->rates.ns_per_record) + ")",
          busiest->name};
}

} // namespace weir::runtime::metrics
