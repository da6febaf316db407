// How weir tunes CAF's scheduler.
#pragma once

#include <caf/fwd.hpp>

namespace weir::actors {

/// Idle scheduler workers go to sleep soon instead of polling.
///
/// CAF's default has each idle worker poll its queue every 50 us for 500 rounds
/// before it sleeps on a condition variable. weir's scheduled actors are pipeline
/// stages that wake once per batch (the Kafka consumers and the sink writers have
/// threads of their own), so most of those polls find nothing and take CPU from the
/// threads that do the work: about 0.35 CPU seconds per 2 million records through
/// three SMT stages (bench/results/profile.md). An enqueue wakes a sleeping worker,
/// so sleeping sooner costs a wake-up per batch, not a poll interval.
void tune_scheduler(caf::actor_system_config& cfg);

} // namespace weir::actors
