// A sink task's pipeline as actors:
//   consumer (+ converters, own thread) -> one stage per SMT -> sink writer (own thread)
// linked together, so the task lives and dies as one.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "engine/connector_registry.hpp"
#include "runtime/metrics/metrics_registry.hpp"
#include "engine/pipeline/topic_reader.hpp"
#include "runtime/credit.hpp"

namespace weir::actors {

struct SinkTaskSpec {
  std::string connector;
  int task = 0;
  const engine::SinkPlugin* plugin = nullptr;
  std::map<std::string, std::string> config;        ///< the connector's config, resolved
  std::map<std::string, std::string> worker_config; ///< the worker's, for converters and clients
  /// Per hop: one batch being handled and one ready is enough to overlap the stages;
  /// more only hold more memory per task.
  Credit capacity{2, 8u << 20};
  /// The connector's tasks.max: its tasks share a prefetch budget (see sink_task.cpp).
  int tasks = 1;
  caf::actor observer; ///< gets (done, StageStats) from the sink after a clean stop
  /// The consumer's group.instance.id (static membership), or empty: in a cluster a
  /// task restarted on another node after a crash takes its old member's place at
  /// once, instead of waiting for the dead one's session to time out.
  std::string group_instance_id = {};
  /// Shared by the tasks started together (see engine::pipeline::JoinGate); none:
  /// the consumer subscribes at once.
  std::shared_ptr<engine::pipeline::JoinGate> join_gate = nullptr;
  /// Where the stages publish their statistics (none when null).
  runtime::metrics::MetricsRegistry* metrics = nullptr;
};

/// The actors of one task, its topic reader first; names are the stage names in the tree.
struct SinkTaskActors {
  std::vector<caf::actor> stages;
  std::vector<std::string> names;
  caf::actor first() const { return stages.front(); }
  caf::actor last() const { return stages.back(); }
};

/// Builds every stage and spawns the actors. Throws ConfigError / KafkaError when
/// the task cannot start (nothing is left running then).
SinkTaskActors spawn_sink_task(caf::actor_system& sys, const SinkTaskSpec& spec);

} // namespace weir::actors
