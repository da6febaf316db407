// What a stage's counters mean over an interval: the per-second rates and the
// fractions of time (busy, waiting for credit, idle) that the tree, /metrics and
// the verdict read. The worker samples every stage's counters about once a
// second and keeps the last interval's figures.
#pragma once

#include "runtime/stage_stats.hpp"

namespace weir::runtime::metrics {

struct StageRates {
  double records_in_per_sec = 0;
  double records_out_per_sec = 0;
  double bytes_in_per_sec = 0;
  double cpu_per_sec = 0;   ///< CPU seconds per second: 1.0 is one whole core
  double busy = 0;          ///< busy wall time ÷ the interval, 0..1
  double ns_per_record = 0; ///< CPU ns per record received; 0 without records
  double credit_wait = 0;   ///< time waiting for the downstream's credit ÷ the interval
  double idle = 0;          ///< readers: time with nothing to read ÷ the interval
  /// Stages that keep it (StageStats::poll_to_ack): the poll-to-ack latency of the
  /// records acknowledged in the interval, in seconds; 0 when none was.
  double poll_to_ack_p50 = 0;
  double poll_to_ack_p99 = 0;
};

/// The figures between two samples of one stage `seconds` apart. A counter that
/// went back (a restarted stage in a fresh cell) counts as zero; fractions are
/// clamped to 0..1, since a batch that straddles a sample lands in one interval.
StageRates rates_between(const StageStats& then, const StageStats& now, double seconds);

} // namespace weir::runtime::metrics
