// Internal to the HTTP server (http_server.cpp): one client connection, and the
// answering of one complete request on it from a handler thread. Kept apart from
// the event loop that reads requests, which never blocks and never runs a handler.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/rest/http_message.hpp"
#include "runtime/rest/http_server.hpp"

struct ssl_st;

namespace weir::runtime::rest::detail {

using Clock = std::chrono::steady_clock;

/// One accepted connection (non-blocking socket, TLS on an https listener) and
/// what has arrived of its next request. Owned by the event loop while a request is
/// arriving, by a handler thread while one is answered (never both: the TLS
/// session is not shared); closes its socket when destroyed.
struct Connection {
  /// `tls`: a TLS session on `socket` to own, or nullptr for plain HTTP.
  Connection(int socket, ssl_st* tls) : fd(socket), tls(tls) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  /// Hands the socket over (to the lingering list) after a TLS close_notify: the
  /// destructor won't close it.
  int release() noexcept;

  /// Reads what has arrived without waiting (the TLS handshake too): the bytes
  /// read, 0 when the peer closed, -1 when nothing is there yet (wait for
  /// `wants_write` ? writable : readable), -2 on an error (a failed handshake).
  long receive(char* into, size_t size);
  /// Sends what fits now: the bytes sent, -1 when nothing fits (wait as above),
  /// -2 on an error.
  long transmit(std::string_view data);

  int fd;
  ssl_st* tls;
  bool wants_write = false; // the last -1 waits for the socket to be writable
  std::string buffer; // received and not yet consumed (a pipelined request's bytes too)
  bool started = false; // a byte of the next request has arrived
  Clock::time_point deadline; // idle: closed silently; started: answered 408
  Clock::time_point since; // when it began waiting: eviction picks the oldest
  std::optional<RequestHead> head; // parsed; the body is still arriving
  size_t body_start = 0; // where the body begins in `buffer` (with `head`)
  size_t chunks_decoded = 0; // bytes after body_start already decoded into the body
};

/// What a handler thread needs of the server to write an answer.
struct WriteContext {
  int stop_fd; // readable once the server stops: writes give up
  std::chrono::milliseconds timeout; // a client must take a response within this
  const std::atomic<bool>& stopping;
};

/// Sends `data` whole, waiting for the socket as needed; false when the peer has
/// gone, the time ran out or the server is stopping.
bool write_all(Connection& connection, std::string_view data, const WriteContext& context);

/// Runs `handler` on a complete request and writes its answer (streamed if the
/// response says so); true when the connection may serve another request.
bool answer(const HttpHandler& handler, RequestHead& head, Connection& connection, const WriteContext& context);

} // namespace weir::runtime::rest::detail
