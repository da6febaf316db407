#include "runtime/rest/weir_api.hpp"

#include <atomic>
#include <charconv>
#include <limits>
#include <memory>

#include "runtime/convert/json_text.hpp"
#include "runtime/log_tail.hpp"
#include "runtime/rest/weir_json.hpp"

namespace weir::runtime::rest {

namespace {

// An integer query parameter within [low, high]; `fallback` when absent; else 400
// naming the parameter, in the wording of Kafka Connect's own parameter errors.
int64_t int_param(const RouteRequest& request, std::string_view name, int64_t low, int64_t high,
                  int64_t fallback) {
  auto text = request.query.get(name);
  if (!text) return fallback;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc{} || end != text->data() + text->size() || value < low || value > high)
    throw bad_request("Invalid value \"" + *text + "\" for query parameter \"" + std::string{name} +
                      "\": expected an integer from " + std::to_string(low) + " to " + std::to_string(high));
  return value;
}

struct WeirApi {
  ConnectHerder& herder;
  ConnectApiOptions options;
  std::shared_ptr<std::atomic<int>> taps = std::make_shared<std::atomic<int>>(0); ///< streaming now

  Deadline deadline() const { return std::chrono::steady_clock::now() + options.request_timeout; }

  HttpResponse tree(const RouteRequest& request, const std::optional<std::string>& connector) const {
    // ?scope=node: this node's actors only (how a cluster node gathers the others');
    // ?scope=cluster, the default: every live node's (a standalone worker is one).
    auto scope = request.query.get("scope");
    if (scope && *scope != "node" && *scope != "cluster")
      throw bad_request("Invalid value \"" + *scope + "\" for query parameter \"scope\": expected node or cluster");
    bool node_only = scope == std::optional<std::string>{"node"};
    std::string body;
    append_actor_tree(node_only ? herder.node_tree(connector, deadline())
                                : herder.actor_tree(connector, deadline()),
                      body);
    return json_response(200, std::move(body));
  }

  // This node's recent log lines, oldest first; `after` and `connector` keep a
  // polling console to the lines it has not seen, about the connector it shows.
  static HttpResponse logs(const RouteRequest& request) {
    auto after = static_cast<uint64_t>(int_param(request, "after", 0, std::numeric_limits<int64_t>::max(), 0));
    auto limit = static_cast<size_t>(int_param(request, "limit", 1, logs_max_limit, logs_max_limit));
    auto connector = request.query.get("connector");
    std::string body = R"({"lines":[)";
    for (const auto& line : log_tail().lines(after, limit, connector)) {
      if (body.back() != '[') body += ',';
      body += R"({"seq":)" + std::to_string(line.seq) + R"(,"time":)" + std::to_string(line.time_ms) + R"(,"level":)";
      convert::append_json_string(line.level, body);
      body += R"(,"message":)";
      convert::append_json_string(line.message, body);
      body += '}';
    }
    body += "]}";
    return json_response(200, std::move(body));
  }

  HttpResponse metrics() const {
    return {200, {}, herder.metrics_text(deadline()), std::string{prometheus_content_type}};
  }

  HttpResponse tap(const RouteRequest& request) const {
    TaskId id = task_id_param(request);
    int count = static_cast<int>(int_param(request, "count", 1, tap_max_count, tap_default_count));
    int64_t max_ms = options.request_timeout.count();
    auto timeout = std::chrono::milliseconds(
        int_param(request, "timeout_ms", 1, max_ms, std::min<int64_t>(tap_default_timeout.count(), max_ms)));
    // A slot among the taps streaming now, held until the answer is done with.
    if (taps->fetch_add(1) >= tap_max_concurrent) {
      --*taps;
      throw RestError(429, "Too many taps: this worker streams at most " + std::to_string(tap_max_concurrent) +
                             " at once; retry when one has ended");
    }
    auto slot = std::shared_ptr<void>(nullptr, [taps = taps](void*) { --*taps; });
    HttpResponse response{200, {}, {}, std::string{ndjson_content_type}};
    // Streamed: each record goes out as it passes, and the tap ends when the client goes.
    response.stream = [herder = &herder, id, stage = request.param("stage"), count, forward = forward_param(request),
                       deadline = std::chrono::steady_clock::now() + timeout, slot](ResponseStream& out) {
      struct Lines final : TapSink {
        ResponseStream& out;
        explicit Lines(ResponseStream& o) : out(o) {}
        bool record(std::string_view json) override { return out.write(std::string{json} + '\n'); }
        bool gone() override { return out.gone(); }
      } lines{out};
      herder->tap(id, stage, count, forward, deadline, lines);
    };
    return response;
  }
};

} // namespace

void add_weir_routes(Router& router, ConnectHerder& herder, const ConnectApiOptions& options) {
  auto api = std::make_shared<WeirApi>(WeirApi{herder, options});
  router.add("GET", "/weir/tree",
             [api](const RouteRequest& request) { return api->tree(request, std::nullopt); });
  router.add("GET", "/weir/tree/{connector}", [api](const RouteRequest& request) {
    return api->tree(request, request.param("connector"));
  });
  router.add("GET", "/metrics", [api](const RouteRequest&) { return api->metrics(); });
  router.add("GET", "/weir/logs", &WeirApi::logs);
  router.add("GET", "/weir/connectors/{connector}/tasks/{task}/stages/{stage}/tap",
             [api](const RouteRequest& request) { return api->tap(request); });
}

} // namespace weir::runtime::rest
