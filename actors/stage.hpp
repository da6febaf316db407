// Pipeline stage actors: the credit protocol around runtime::StageLogic and
// runtime::BatchSource. One implementation serves every stage kind.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/messages.hpp"
#include "runtime/stage_logic.hpp"
#include "weir/credit.hpp"

namespace weir::actors {

/// A stage that receives batches: a transform (with a downstream) or a sink
/// (without). It grants `capacity` to its upstream and returns a batch's credit
/// once the batch has left it: forwarded downstream, or processed by a sink.
/// A sink then reports the batch's offsets durable to its upstream, and every
/// transform passes that report on, up to the source, which commits.
struct StageSpec {
  std::string name;
  std::shared_ptr<runtime::StageLogic> logic;
  caf::actor downstream; ///< invalid for a sink
  Credit capacity{4, 4u << 20};
  caf::actor observer; ///< receives (done, StageStats) at end of stream (sinks)
};

/// Per partition, the offset after the last record of `batch`: what a sink
/// reports durable once it has written the batch.
OffsetList durable_offsets(const Batch& batch);

/// A stage that produces batches while it holds credit from `downstream`.
struct SourceSpec {
  std::string name;
  std::shared_ptr<runtime::BatchSource> source;
  caf::actor downstream;
  uint64_t max_batch_bytes = 1u << 20;
  std::chrono::milliseconds idle_delay{10}; ///< wait after an idle fill
  bool detached = false; ///< own thread, for sources whose fill() blocks
};

caf::actor spawn_stage(caf::actor_system& sys, StageSpec spec);
caf::actor spawn_source(caf::actor_system& sys, SourceSpec spec);

} // namespace weir::actors
