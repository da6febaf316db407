// Kafka Connect's REST API (4.x paths, status codes and JSON shapes) over a
// ConnectHerder, and the server a worker runs to offer it. docs/rest.md lists the
// endpoints and what weir adds (bearer tokens, redaction, timeouts that say what
// they waited for).
#pragma once

#include <chrono>
#include <cstdint>

#include "runtime/rest/connect_herder.hpp"
#include "runtime/rest/http_server.hpp"
#include "runtime/rest/router.hpp"

namespace weir::runtime::rest {

struct ConnectApiOptions {
  /// The deadline given to each herder call (Kafka Connect: 90 s).
  std::chrono::milliseconds request_timeout{90'000};
  /// The deadline of GET /health's check (Kafka Connect: 10 s).
  std::chrono::milliseconds health_check_timeout{10'000};
  /// Kafka Connect's `topic.tracking.enable` and `topic.tracking.allow.reset`:
  /// when off, the topics endpoints answer 403.
  bool topic_tracking_enable = true;
  bool topic_tracking_allow_reset = true;
};

/// Adds every endpoint to `router`, Kafka Connect's, weir's own (weir_api.hpp) and
/// the web console's files (console.hpp).
/// `herder` must outlive the router's use.
void add_connect_routes(Router& router, ConnectHerder& herder, const ConnectApiOptions& options);

/// The `{connector}` and `{task}` path parameters; a task that is not an integer is
/// 404, as JAX-RS answers a path parameter it cannot convert.
TaskId task_id_param(const RouteRequest& request);

/// Kafka Connect's `forward` query parameter: only `forward=false` (what a worker
/// puts on a request it forwards) refuses a further hop; absent or anything else
/// allows it.
Forward forward_param(const RouteRequest& request);

/// The REST server of a worker (its console's files open to all, console.hpp): listens from construction until destruction (or
/// stop()). Destroy it before the herder.
class ConnectRestServer {
public:
  ConnectRestServer(ConnectHerder& herder, HttpServerOptions http, ConnectApiOptions api = {});
  uint16_t port() const noexcept { return server_.port(); }
  void stop() { server_.stop(); }

private:
  Router router_; // complete before server_ starts serving
  HttpServer server_;
};

} // namespace weir::runtime::rest
