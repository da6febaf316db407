// A sink task's last stage when its writer is asynchronous (a plugin's
// weir::AsyncSink): it speaks the sink protocol (actors/sink_protocol.hpp) as the
// blocking stage does, but grants max.in.flight.batches batches of credit and keeps
// that many writes out at once; completions come back as messages to this actor
// from the writer's threads. engine::pipeline::AsyncSinkLogic holds the rules.
#pragma once

#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "engine/pipeline/async_sink_logic.hpp"
#include "runtime/metrics/metrics_registry.hpp"
#include "runtime/credit.hpp"

namespace weir::actors {

struct AsyncSinkSpec {
  std::string name;
  std::shared_ptr<engine::pipeline::AsyncSinkLogic> logic;
  /// Bytes of credit granted; the batches granted are logic->max_in_flight().
  uint64_t capacity_bytes = 8u << 20;
  caf::actor observer; ///< receives (done, StageStats) at end of stream
  std::shared_ptr<runtime::metrics::StatsCell> cell = nullptr;
  bool timed = true; ///< reads the clocks around each message (metrics.stage.timing.enabled)
};

/// Spawns the stage on its own thread (a plugin's put() or close() may block a little,
/// and the dead-letter queue is written synchronously).
caf::actor spawn_async_sink(caf::actor_system& sys, AsyncSinkSpec spec);

} // namespace weir::actors
