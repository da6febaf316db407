// Pipeline stage actors: the credit protocol around runtime::StageLogicOf and
// runtime::FeedOf. One implementation serves every stage kind and both payload
// types (raw Batch and DecodedBatch).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/messages.hpp"
#include "runtime/metrics/metrics_registry.hpp"
#include "runtime/stage_logic.hpp"
#include "runtime/credit.hpp"

namespace weir::actors {

/// A stage that receives batches: a transform (with a downstream) or a sink
/// (without). It grants `capacity` to its upstream and returns a batch's credit
/// once the batch has left it: forwarded downstream, or processed by a sink.
/// A sink then reports the batch's offsets durable to its upstream, and every
/// transform passes that report on, up to the feed, which commits.
template <class Payload>
struct StageSpecOf {
  std::string name;
  std::shared_ptr<runtime::StageLogicOf<Payload>> logic;
  caf::actor downstream; ///< invalid for a sink
  Credit capacity{4, 4u << 20};
  caf::actor observer; ///< receives (done, StageStats) at end of stream (sinks)
  bool detached = false; ///< own thread, for logic that blocks (database writes)
  std::shared_ptr<runtime::metrics::StatsCell> cell = nullptr; ///< where it publishes its stats
  bool timed = true; ///< reads the clocks around each batch (metrics.stage.timing.enabled)
};

/// A stage that produces batches while it holds credit from `downstream`.
template <class Payload>
struct FeedSpecOf {
  std::string name;
  std::shared_ptr<runtime::FeedOf<Payload>> feed;
  caf::actor downstream;
  uint64_t max_batch_bytes = 1u << 20;
  std::chrono::milliseconds idle_delay{10}; ///< wait after an idle fill; 0: next after the mailbox
  bool detached = false; ///< own thread, for feeds whose fill() blocks
  std::shared_ptr<runtime::metrics::StatsCell> cell = nullptr; ///< where it publishes its stats
  /// What it is, for log lines ("the consumer of sink task orders-1"); empty: "feed NAME".
  std::string role = {};
  bool timed = true; ///< reads the clocks around each fill (metrics.stage.timing.enabled)
};

using StageSpec = StageSpecOf<Batch>;
using FeedSpec = FeedSpecOf<Batch>;
using DecodedStageSpec = StageSpecOf<runtime::data::DecodedBatch>;
using DecodedFeedSpec = FeedSpecOf<runtime::data::DecodedBatch>;

caf::actor spawn_stage(caf::actor_system& sys, StageSpec spec);
caf::actor spawn_stage(caf::actor_system& sys, DecodedStageSpec spec);
caf::actor spawn_feed(caf::actor_system& sys, FeedSpec spec);
caf::actor spawn_feed(caf::actor_system& sys, DecodedFeedSpec spec);

} // namespace weir::actors
