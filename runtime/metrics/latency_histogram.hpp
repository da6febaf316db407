// Durations on a log scale, for latency quantiles (poll-to-ack p50/p99) that cost
// no lock and no per-record clock read: its one owner records once per batch,
// weighted by the batch's records, and readers take copies (published with the
// stage's statistics) and subtract an earlier copy for an interval's quantiles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace weir::runtime::metrics {

struct LatencyHistogram {
  /// Four buckets per power of two (each ~19% wide) from 2^10 ns (~1 µs) to 2^42 ns
  /// (~73 min); one bucket below, one above.
  static constexpr int per_octave = 4;
  static constexpr int first_octave = 10;
  static constexpr int octaves = 32;
  static constexpr std::size_t size = 2 + per_octave * octaves;

  /// Records in each bucket; empty until the first record() (most stages have none).
  std::vector<uint64_t> counts;

  /// Adds `records` records that took `ns`.
  void record(uint64_t ns, uint64_t records = 1);
  /// Records so far.
  uint64_t total() const;
  /// The q-quantile (0 < q ≤ 1) in seconds: the middle of the bucket that holds it,
  /// so within ~10% of the true value; 0 without records.
  double quantile_seconds(double q) const;
  /// What was recorded after `then`, an earlier copy of this histogram (a histogram
  /// that went back, as a restarted task's, counts from zero).
  LatencyHistogram since(const LatencyHistogram& then) const;

  friend bool operator==(const LatencyHistogram&, const LatencyHistogram&) = default;
};

template <class Inspector>
auto inspect(Inspector& f, LatencyHistogram& x) {
  return f(x.counts);
}

} // namespace weir::runtime::metrics
