// The producer actor: the last stage of a source pipeline (and of the demo's
// loader). It receives batches under credit, hands them to librdkafka, and returns
// a batch's credit only when every record of it has a delivery report, so memory
// stays bounded by the credit even when the broker is slow.
//
// In a source pipeline it also runs the converters (SourceEncoder: decoded batch
// in, bytes out, once) and reports each delivered batch to SourceOffsets, which
// is what makes a source offset committable. With exactly-once it is transactional:
// each transaction carries its batches and the offsets they reach (written to the
// offsets topic), and only a committed transaction advances the offsets.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "runtime/kafka/client_config.hpp"
#include "runtime/metrics/metrics_registry.hpp"
#include "runtime/credit.hpp"

namespace weir::engine::pipeline {
class SourceEncoder;
} // namespace weir::engine::pipeline
namespace weir::runtime::connector_api {
class SourceOffsets;
} // namespace weir::runtime::connector_api

namespace weir::actors {

/// Exactly-once delivery for a source task (KIP-618).
struct ProducerTransactions {
  bool enabled = false;      ///< props must then carry `transactional.id`
  std::string offsets_topic; ///< where each transaction writes its offsets
  std::string connector;     ///< the offsets' key names it
  /// 0: one transaction per batch (transaction.boundary=poll); else the period.
  std::chrono::milliseconds interval{0};
  std::chrono::milliseconds timeout{60000}; ///< for commit and init
};

struct ProducerSpec {
  std::string name;
  runtime::kafka::Properties props; ///< librdkafka producer properties
  Credit capacity{8, 8u << 20};
  caf::actor observer; ///< receives (done, StageStats) once everything is delivered
  /// Source pipelines: converters for decoded batches, and the offsets to advance.
  std::shared_ptr<engine::pipeline::SourceEncoder> encoder = nullptr;
  std::shared_ptr<runtime::connector_api::SourceOffsets> offsets = nullptr;
  ProducerTransactions transactions = {};
  std::shared_ptr<runtime::metrics::StatsCell> cell = nullptr; ///< where it publishes its stats
};

/// Spawns the producer on its own thread (librdkafka may block while its queue is full).
caf::actor spawn_producer(caf::actor_system& sys, ProducerSpec spec);

} // namespace weir::actors
