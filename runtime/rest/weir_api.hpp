// weir's own endpoints beside Kafka Connect's (docs/rest.md, "weir's endpoints"):
// the live actor tree, Prometheus metrics and taps on a stage's records, served over
// the same ConnectHerder, with the same error bodies, deadlines and bearer token.
#pragma once

#include "runtime/rest/connect_api.hpp"

namespace weir::runtime::rest {

/// Content type of GET /metrics: Prometheus' text exposition format 0.0.4.
inline constexpr std::string_view prometheus_content_type = "text/plain; version=0.0.4; charset=utf-8";
/// Content type of a tap: one JSON object per line, each line ending in '\n'.
inline constexpr std::string_view ndjson_content_type = "application/x-ndjson";

/// Limits of a tap's query parameters.
inline constexpr int tap_default_count = 10;
inline constexpr int tap_max_count = 10'000;
/// How long a tap waits for its records by default (capped by the request timeout).
inline constexpr std::chrono::milliseconds tap_default_timeout{10'000};
/// The most taps a server streams at once: each holds a handler thread (of 64,
/// HttpServerOptions) for its whole life, and the other requests need some. One more
/// is 429.
inline constexpr int tap_max_concurrent = 16;

/// The most lines one GET /weir/logs returns (all the node keeps, runtime/log_tail.hpp).
inline constexpr int logs_max_limit = 1000;

/// Adds GET /weir/tree, /weir/tree/{connector}, /metrics, /weir/logs and
/// /weir/connectors/{connector}/tasks/{task}/stages/{stage}/tap.
void add_weir_routes(Router& router, ConnectHerder& herder, const ConnectApiOptions& options);

} // namespace weir::runtime::rest
