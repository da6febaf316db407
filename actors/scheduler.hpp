// How weir tunes and meters CAF's scheduler.
#pragma once

#include <cstddef>

#include <caf/fwd.hpp>

#include "runtime/metrics/scheduler_meter.hpp"

namespace weir::actors {

/// Idle scheduler workers go to sleep soon instead of polling, and every worker
/// thread's busy time and the run queue are metered.
///
/// CAF's default has each idle worker poll its queue every 50 us for 500 rounds
/// before it sleeps on a condition variable. weir's scheduled actors are pipeline
/// stages that wake once per batch (the Kafka consumers and the sink writers have
/// threads of their own), so most of those polls find nothing and take CPU from the
/// threads that do the work (bench/results/profile.md measures how much). An
/// enqueue wakes a sleeping worker,
/// so sleeping sooner costs a wake-up per batch, not a poll interval.
///
/// The meter is CAF's work-stealing policy with two clock reads per actor resume
/// (docs/metrics.md says why not per-thread CPU clocks); its threads are named
/// weir-sched-N, so /proc shows which threads they are.
/// `threads`: the scheduler's threads, 0 for CAF's default (one per core).
void tune_scheduler(caf::actor_system_config& cfg, size_t threads = 0);

/// The meter of a system configured by tune_scheduler(); nullptr for any other.
runtime::metrics::SchedulerMeter* scheduler_meter(caf::actor_system& sys);

} // namespace weir::actors
