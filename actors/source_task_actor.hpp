// A source task's pipeline as actors:
//   poller (the connector's SourceTask, own thread) -> one stage per SMT
//     -> producer (converters + librdkafka, own thread)
// linked together, so the task lives and dies as one. The poller polls only while
// it holds credit; the producer returns credit on delivery, so a slow broker
// stops the poller instead of growing memory.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "engine/connector_registry.hpp"
#include "runtime/metrics/metrics_registry.hpp"
#include "runtime/credit.hpp"

namespace weir::actors {

struct SourceTaskSpec {
  std::string connector;
  int task = 0;
  const engine::SourcePlugin* plugin = nullptr;
  std::map<std::string, std::string> config;        ///< this task's config, resolved
  std::map<std::string, std::string> worker_config; ///< the worker's, for converters and clients
  runtime::connector_api::OffsetMap stored_offsets;       ///< the connector's, from the state store
  Credit capacity{4, 8u << 20};                      ///< per hop
  caf::actor observer; ///< gets (done, StageStats) from the producer after a clean stop
  /// Exactly-once: a transactional producer (this id), offsets written to this topic.
  std::string transactional_id = {};
  std::string offsets_topic = {};
  /// Where the stages publish their statistics (none when null).
  runtime::metrics::MetricsRegistry* metrics = nullptr;
};

/// The actors of one task, poller first; names are the stage names in the tree.
struct SourceTaskActors {
  std::vector<caf::actor> stages;
  std::vector<std::string> names;
  std::shared_ptr<runtime::connector_api::SourceOffsets> offsets; ///< what may be stored
  caf::actor first() const { return stages.front(); }
  caf::actor last() const { return stages.back(); }
};

/// Starts the connector's task (start() with the stored offsets), builds every
/// stage and spawns the actors. Throws ConfigError or std::exception naming what
/// is wrong when the task cannot start (nothing is left running then).
SourceTaskActors spawn_source_task(caf::actor_system& sys, const SourceTaskSpec& spec);

} // namespace weir::actors
