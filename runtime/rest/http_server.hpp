// A small HTTP/1.1 server on POSIX sockets for the REST API. One event-loop thread
// accepts connections and reads requests without blocking: a connection holds no
// thread until its request (head and body) has arrived whole and passed the
// bearer-token check, so idle, slow (slowloris) and unauthenticated clients cannot
// starve the others. Complete requests go to a pool of handler threads (a handler
// may block on a slow connector, or stream a tap for minutes). Keep-alive,
// pipelining, Content-Length and chunked bodies, limits and timeouts, TLS on an
// https listener (tls.hpp); malformed input is answered with a 4xx and Kafka
// Connect's JSON error body, never a crash. Its threads block SIGPIPE.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/rest/http_message.hpp"
#include "runtime/rest/tls.hpp"

namespace weir::runtime::rest {

/// Where to listen, from Kafka Connect's `listeners` form `http[s]://HOST:PORT`.
struct Listener {
  std::string host; // empty: every interface
  uint16_t port = 0; // 0: an ephemeral port
  bool tls = false; // https
};

/// Parses one `listeners` entry: `http://HOST:PORT`, `https://HOST:PORT`,
/// `http://[::1]:PORT`, or `http://:PORT` (every interface, as in Kafka Connect).
/// Throws weir::ConfigError naming `listeners` for another scheme, a list, or a bad
/// port.
Listener parse_listener(std::string_view value);

struct HttpServerOptions {
  /// weir listens on loopback only unless told otherwise (Kafka Connect: every interface).
  std::string listener = "http://127.0.0.1:8083";
  size_t max_header_bytes = 16 * 1024; // request line + headers; more → 431
  size_t max_body_bytes = 4 * 1024 * 1024; // more → 413, answered from Content-Length before any is read
  /// Open connections. At the cap a new one takes the place of the connection that
  /// has waited longest without a complete request (an idle one first); only when
  /// every open connection is being answered is the newcomer refused with 503.
  size_t max_connections = 2048;
  /// Handler threads, started as requests need them; requests beyond wait in turn.
  size_t max_handler_threads = 64;
  /// Request bytes held across all connections still receiving and complete
  /// requests waiting for a handler thread; a connection that would pass it is
  /// answered 503 (memory stays bounded under many uploads).
  size_t max_buffered_bytes = 64 * 1024 * 1024;
  /// A kept-alive connection with no request for this long is closed.
  std::chrono::milliseconds idle_timeout{30'000};
  /// A request must arrive whole (head and body) within this time of its first
  /// byte (else 408), however slowly it trickles; a response must be taken by the
  /// client within it.
  std::chrono::milliseconds read_timeout{30'000};
  /// Non-empty: every request needs `Authorization: Bearer <token>` (else 401)...
  std::string bearer_token;
  /// ...except those this says are open (the web console's static files, which then
  /// ask the user for the token). Called on the event-loop thread: keep it cheap.
  std::function<bool(const HttpRequest&)> open_request = nullptr;
  /// An https listener's certificate, key and client-certificate policy (required
  /// with https; a ConfigError naming the key when missing or wrong).
  std::optional<TlsOptions> tls;
};

/// Answers one request. Called concurrently from handler threads, so it must be
/// thread-safe; an exception it throws becomes a 500 (RestError: its own status).
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

/// Listens from construction (bind errors throw std::system_error) until stop() or
/// destruction, which close the listener and every connection and join every
/// thread. A request already inside the handler is finished first, so stopping
/// takes as long as the slowest handler call in flight; complete requests still
/// waiting for a handler thread are closed unanswered.
class HttpServer {
public:
  HttpServer(HttpServerOptions options, HttpHandler handler);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  /// The bound port (the ephemeral one when the listener asked for port 0).
  uint16_t port() const noexcept;
  /// Idempotent; returns once no thread of the server is left.
  void stop();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace weir::runtime::rest
