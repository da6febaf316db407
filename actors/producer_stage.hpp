// The producer actor: the last stage of a source pipeline. It receives batches under
// credit like every stage (actors/inlet.hpp) and drives engine::pipeline::ProducerLogic
// (converters, librdkafka, source offsets, exactly-once transactions): a batch's
// credit goes back only when every record of it has a delivery report, so memory
// stays bounded by the credit even when the broker is slow.
//
// Delivery reports are served on a delayed tick message while records are out, and a
// converter's retry is a delayed message too: the actor never sleeps, and keeps
// answering stats and taps meanwhile.
#pragma once

#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "runtime/metrics/metrics_registry.hpp"
#include "runtime/credit.hpp"

namespace weir::engine::pipeline {
class ProducerLogic;
} // namespace weir::engine::pipeline

namespace weir::actors {

struct ProducerSpec {
  std::string name;
  std::shared_ptr<engine::pipeline::ProducerLogic> logic;
  Credit capacity{8, 8u << 20};
  caf::actor observer; ///< receives (done, StageStats) once everything is delivered
  std::shared_ptr<runtime::metrics::StatsCell> cell = nullptr; ///< where it publishes its stats
};

/// Spawns the producer on its own thread: librdkafka may block while its queue is
/// full, exactly-once's init and commit wait for the broker's answer.
caf::actor spawn_producer(caf::actor_system& sys, ProducerSpec spec);

} // namespace weir::actors
