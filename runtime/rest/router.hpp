// Routes requests by method and path pattern (`/connectors/{connector}/status`) to
// handlers, with Kafka Connect's answers for what matches nothing: 404 "HTTP 404
// Not Found" for an unknown path, 405 "HTTP 405 Method Not Allowed" (with an Allow
// header) for a known path with another method, always as its JSON error body.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/rest/http_message.hpp"

namespace weir::runtime::rest {

/// Decodes %XX escapes (and '+' as a space when `plus_is_space`, as in query
/// strings); std::nullopt for a malformed escape.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space);
/// Escapes everything but RFC 3986's unreserved characters (for a path segment).
std::string percent_encode(std::string_view text);

/// Decoded query parameters in request order; a name may repeat (`expand=a&expand=b`).
class QueryParams {
public:
  /// Throws RestError(400) for a malformed escape.
  static QueryParams parse(std::string_view query);
  /// The first value of `name`, if given (`?flag` gives an empty value).
  std::optional<std::string> get(std::string_view name) const;
  std::vector<std::string> all(std::string_view name) const;

private:
  std::vector<std::pair<std::string, std::string>> items_;
};

/// What a handler sees: the request, its decoded path parameters and query.
struct RouteRequest {
  const HttpRequest& http;
  std::map<std::string, std::string, std::less<>> params;
  QueryParams query;

  /// The decoded value of a `{name}` segment of the matched pattern.
  const std::string& param(std::string_view name) const;
};

using RouteHandler = std::function<HttpResponse(const RouteRequest&)>;

/// A table of routes, filled before serving and read-only after (so dispatch is
/// safe from many threads).
class Router {
public:
  /// Adds a route. Pattern segments are literals or `{name}` (one whole, non-empty
  /// segment). Where two patterns match a path, the one whose first differing
  /// segment is a literal wins (`/a/reset` over `/a/{x}`).
  void add(std::string method, std::string_view pattern, RouteHandler handler);

  /// Answers a request. Segments are split before decoding, so `%2F` stays inside
  /// one segment; one trailing slash is ignored. A handler's RestError becomes its
  /// status and message; any other exception a 500 with its what().
  HttpResponse dispatch(const HttpRequest& request) const;

private:
  struct Route {
    std::string method;
    std::vector<std::string> segments; // literal, or "{name}"
    RouteHandler handler;
  };
  std::vector<Route> routes_;
};

} // namespace weir::runtime::rest
