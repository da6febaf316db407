// Live statistics of every stage, readable without asking the stage's actor.
//
// Each stage actor publishes its StageStats into its own StatsCell after every
// batch and state change. Readers (the progress line, the REST status, /metrics,
// the admin shell's tree) take snapshots from the registry: a stage that is busy
// or blocked (a sink writing into a stalled database) still shows its last
// figures, and asking never waits on it.
#pragma once

#include <chrono>
#include <compare>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/metrics/node_figures.hpp"
#include "runtime/metrics/stage_rates.hpp"
#include "runtime/stage_stats.hpp"

namespace weir::runtime::metrics {

/// One stage's latest statistics. publish() and read() may race freely.
class StatsCell {
public:
  void publish(const StageStats& stats);
  StageStats read() const;

private:
  mutable std::mutex mutex_;
  StageStats stats_;
};

/// Where a stage sits: its connector, task and stage name ("consumer", an SMT's
/// alias, "sink", "poller", "producer").
struct StageKey {
  std::string connector;
  int task = 0;
  std::string stage;
  auto operator<=>(const StageKey&) const = default;
};

/// What a stage does in its task, for Kafka Connect's task metrics.
enum class StageRole : uint8_t {
  transform,
  sink_reader,   ///< a sink task's Kafka consumer
  sink_writer,   ///< a sink task's writer
  source_reader, ///< a source task's poller
  source_writer, ///< a source task's Kafka producer
};

struct StageSnapshot {
  StageKey key;
  StageRole role = StageRole::transform;
  StageStats stats;
};

class MetricsRegistry {
public:
  /// The cell for `key`, created on first use; the same cell afterwards, so a
  /// restarted task continues its counters.
  std::shared_ptr<StatsCell> cell(const StageKey& key, StageRole role);
  /// Forgets a deleted connector's stages.
  void remove_connector(const std::string& connector);
  /// Every stage (of one connector, when given), in key order.
  std::vector<StageSnapshot> snapshot(const std::string& connector = {}) const;
  /// The stages whose key `wanted` accepts, in key order; only their cells are read.
  std::vector<StageSnapshot> snapshot_if(const std::function<bool(const StageKey&)>& wanted) const;

private:
  mutable std::mutex mutex_;
  struct Entry {
    StageRole role;
    std::shared_ptr<StatsCell> cell;
  };
  std::map<StageKey, Entry> cells_;
};

/// Every stage's figures over its last interval (StageRates): sample() about once a
/// second; each stage's interval is at least a second long. Not thread-safe.
class RateSampler {
public:
  /// Takes new rates for every stage whose last interval is at least a second old
  /// (`now_ns`: the scheduler meter's clock, to count a batch still in hand).
  void sample(const std::vector<StageSnapshot>& stages, std::chrono::steady_clock::time_point now,
              uint64_t now_ns);
  /// Whether sample() would take new rates for `key` at `now` (so its stats are worth reading).
  bool due(const StageKey& key, std::chrono::steady_clock::time_point now) const;
  /// Zero figures for a stage not sampled twice yet.
  StageRates of(const StageKey& key) const;
  std::map<StageKey, StageRates> all() const;
  void forget(const std::string& connector);

private:
  struct Rate {
    StageStats last;
    std::chrono::steady_clock::time_point at;
    StageRates rates = {}; ///< over the last interval
  };
  std::map<StageKey, Rate> rates_;
};

/// A worker's own figures, for Kafka Connect's worker metrics.
struct WorkerFigures {
  size_t connectors = 0;
  size_t tasks = 0;       ///< running on this worker
  uint64_t generation = 0; ///< of the assignment it runs (0 standalone)
  uint64_t rebalances = 0; ///< assignments it applied
  double since_last_rebalance_ms = -1; ///< -1: none
};

/// The Prometheus text exposition (version 0.0.4) of `stages`: per stage
/// `weir_stage_*` series, and per task Kafka Connect's task metrics under their
/// Prometheus names (see docs/metrics.md).
std::string render_prometheus(const std::vector<StageSnapshot>& stages);

/// The figures of the last sampling interval (docs/metrics.md): per stage
/// `weir_stage_busy_ratio`, `weir_stage_ns_per_record`, `weir_stage_credit_wait_ratio`
/// (a stage without rates yet shows 0), per task Kafka Connect's `*_rate` metrics,
/// and the node's scheduler, threads and process.
std::string render_interval_metrics(const std::vector<StageSnapshot>& stages,
                                    const std::map<StageKey, StageRates>& rates, const NodeFigures& node);

/// Kafka Connect's worker metrics (connect-worker-metrics,
/// connect-worker-rebalance-metrics).
std::string render_worker_metrics(const WorkerFigures& worker);

} // namespace weir::runtime::metrics
