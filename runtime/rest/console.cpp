#include "runtime/rest/console.hpp"

#include <algorithm>

namespace weir::runtime::rest {

namespace {

HttpResponse serve(const ConsoleAsset& asset, const HttpRequest& request) {
  const std::string* if_none_match = request.header("if-none-match");
  // A client may list several tags, or "*"; any one matching means unchanged.
  bool unchanged = if_none_match && (if_none_match->find(asset.etag) != std::string::npos || *if_none_match == "*");
  HttpResponse response{unchanged ? 304 : 200, {}, {}, unchanged ? std::string{} : std::string{asset.content_type}};
  if (!unchanged) response.body = asset.body;
  response.headers = {{"ETag", std::string{asset.etag}},
                      {"Cache-Control", "no-cache"},
                      {"X-Content-Type-Options", "nosniff"},
                      // Only the page's own files: no inline script, nothing fetched from elsewhere.
                      {"Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'"}};
  return response;
}

const ConsoleAsset* find_asset(std::string_view name) {
  auto assets = console_assets();
  auto it = std::find_if(assets.begin(), assets.end(), [&](const ConsoleAsset& a) { return a.name == name; });
  return it == assets.end() ? nullptr : &*it;
}

} // namespace

void add_console_routes(Router& router) {
  router.add("GET", "/ui", [](const RouteRequest& request) { return serve(*find_asset("index.html"), request.http); });
  router.add("GET", "/ui/{file}", [](const RouteRequest& request) {
    const ConsoleAsset* asset = find_asset(request.param("file"));
    if (!asset) throw RestError(404, "HTTP 404 Not Found: the console has no file " + request.param("file"));
    return serve(*asset, request.http);
  });
}

bool is_console_request(const HttpRequest& request) noexcept {
  if (request.method != "GET" && request.method != "HEAD") return false;
  std::string_view path = request.path();
  if (path == "/ui" || path == "/ui/") return true;
  if (!path.starts_with("/ui/")) return false;
  std::string_view name = path.substr(4);
  // Plain names only, so no dot segment or escape can reach past the console.
  bool plain = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
  });
  return plain && !name.empty() && name.front() != '.';
}

} // namespace weir::runtime::rest
