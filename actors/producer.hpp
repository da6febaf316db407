// The producer actor: the last stage of a source pipeline (and of the demo's
// loader). It receives batches under credit, hands them to librdkafka, and returns
// a batch's credit only when every record of it has a delivery report, so memory
// stays bounded by the credit even when the broker is slow.
#pragma once

#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "runtime/kafka/client_config.hpp"
#include "weir/credit.hpp"

namespace weir::actors {

struct ProducerSpec {
  std::string name;
  runtime::kafka::Properties props; ///< librdkafka producer properties
  Credit capacity{8, 8u << 20};
  caf::actor observer; ///< receives (done, StageStats) once everything is delivered
};

/// Spawns the producer on its own thread (librdkafka may block while its queue is full).
caf::actor spawn_producer(caf::actor_system& sys, ProducerSpec spec);

} // namespace weir::actors
