#include "runtime/rest/router.hpp"

#include <algorithm>

namespace weir::runtime::rest {

namespace {

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_param(std::string_view segment) noexcept {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

std::vector<std::string_view> split_path(std::string_view path) {
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  std::vector<std::string_view> segments;
  if (path == "/") return segments;
  path.remove_prefix(1); // paths start with '/', checked by the HTTP parser
  for (;;) {
    size_t slash = path.find('/');
    segments.push_back(path.substr(0, slash));
    if (slash == std::string_view::npos) return segments;
    path.remove_prefix(slash + 1);
  }
}

// Whether `route` matches (raw) `segments`; fills decoded params. Throws 400 for a
// bad escape in a parameter segment.
bool match(const std::vector<std::string>& route, const std::vector<std::string_view>& segments,
           std::map<std::string, std::string, std::less<>>* params) {
  if (route.size() != segments.size()) return false;
  for (size_t i = 0; i < route.size(); ++i) {
    if (is_param(route[i])) {
      if (segments[i].empty()) return false;
      if (!params) continue;
      auto decoded = percent_decode(segments[i], false);
      if (!decoded) throw RestError(400, "Malformed percent-escape in the request path");
      params->insert_or_assign(route[i].substr(1, route[i].size() - 2), std::move(*decoded));
    } else if (route[i] != segments[i]) {
      return false;
    }
  }
  return true;
}

// True when `a` is more specific than `b`: a literal where `b` has a parameter,
// at the first segment where they differ in kind.
bool more_specific(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i)
    if (is_param(a[i]) != is_param(b[i])) return !is_param(a[i]);
  return false;
}

} // namespace

std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '%') {
      if (i + 2 >= text.size()) return std::nullopt;
      int hi = hex_digit(text[i + 1]);
      int lo = hex_digit(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += plus_is_space && c == '+' ? ' ' : c;
    }
  }
  return out;
}

std::string percent_encode(std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    bool unreserved = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

QueryParams QueryParams::parse(std::string_view query) {
  QueryParams result;
  while (!query.empty()) {
    size_t amp = query.find('&');
    std::string_view item = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (item.empty()) continue;
    size_t eq = item.find('=');
    auto name = percent_decode(item.substr(0, eq), true);
    auto value = percent_decode(eq == std::string_view::npos ? "" : item.substr(eq + 1), true);
    if (!name || !value) throw RestError(400, "Malformed percent-escape in the query string");
    result.items_.emplace_back(std::move(*name), std::move(*value));
  }
  return result;
}

std::optional<std::string> QueryParams::get(std::string_view name) const {
  for (const auto& [key, value] : items_)
    if (key == name) return value;
  return std::nullopt;
}

std::vector<std::string> QueryParams::all(std::string_view name) const {
  std::vector<std::string> values;
  for (const auto& [key, value] : items_)
    if (key == name) values.push_back(value);
  return values;
}

const std::string& RouteRequest::param(std::string_view name) const {
  auto it = params.find(name);
  if (it == params.end()) throw std::logic_error("route has no parameter " + std::string{name});
  return it->second;
}

void Router::add(std::string method, std::string_view pattern, RouteHandler handler) {
  Route route{std::move(method), {}, std::move(handler)};
  for (std::string_view segment : split_path(pattern)) route.segments.emplace_back(segment);
  routes_.push_back(std::move(route));
}

HttpResponse Router::dispatch(const HttpRequest& request) const {
  try {
    auto segments = split_path(request.path());
    // HEAD is routed as GET; the server leaves the body out (detail::answer).
    const std::string_view method = request.method == "HEAD" ? std::string_view{"GET"} : request.method;
    const Route* best = nullptr;
    std::vector<std::string> allowed;
    for (const auto& route : routes_) {
      if (!match(route.segments, segments, nullptr)) continue;
      if (route.method != method) {
        if (std::find(allowed.begin(), allowed.end(), route.method) == allowed.end())
          allowed.push_back(route.method);
        continue;
      }
      if (!best || more_specific(route.segments, best->segments)) best = &route;
    }
    if (!best && allowed.empty()) return error_response(404, "HTTP 404 Not Found");
    if (!best) {
      HttpResponse response = error_response(405, "HTTP 405 Method Not Allowed");
      std::string allow;
      for (const auto& method : allowed) allow += (allow.empty() ? "" : ", ") + method;
      response.headers.emplace_back("Allow", std::move(allow));
      return response;
    }
    RouteRequest routed{request, {}, QueryParams::parse(request.query())};
    match(best->segments, segments, &routed.params);
    return best->handler(routed);
  } catch (const RestError& e) {
    return error_response(e.status(), e.what());
  } catch (const std::exception& e) {
    return error_response(500, e.what());
  }
}

} // namespace weir::runtime::rest
