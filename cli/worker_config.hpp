// A worker's properties file, for `weir standalone` and `weir node`: Kafka Connect's
// worker keys (and weir's own), parsed once into what the worker and its REST
// server need.
#pragma once

#include <memory>
#include <string>

#include "actors/task_runner.hpp"
#include "runtime/rest/connect_api.hpp"
#include "weir/config.hpp"

namespace weir::cli {

/// The keys of a standalone worker, or of a cluster node (`node`: the cluster keys
/// too, and the state file is optional).
const ConfigDef& worker_def(bool node);

struct WorkerSetup {
  Config parsed;
  actors::TaskRunnerOptions options; ///< options.config: resolved, every default filled in
  runtime::rest::HttpServerOptions http;
};

/// Loads, resolves (config providers) and checks a worker's properties; a bad key
/// is a ConfigError naming it.
WorkerSetup load_worker(const std::string& path, bool node);

/// Starts the REST API for `herder`, logging where it listens; a port that cannot
/// be bound is a ConfigError naming `listeners`.
std::unique_ptr<runtime::rest::ConnectRestServer> serve_rest(runtime::rest::ConnectHerder& herder,
                                                             const runtime::rest::HttpServerOptions& http);

/// host:port of a bound REST listener, the worker id Kafka Connect shows in statuses.
std::string rest_address(const runtime::rest::HttpServerOptions& http, uint16_t port);

} // namespace weir::cli
