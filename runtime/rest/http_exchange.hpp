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

namespace weir::runtime::rest::detail {

using Clock = std::chrono::steady_clock;

/// One accepted connection (non-blocking socket) and what has arrived of its next
/// request. Owned by the event loop while a request is arriving, by a handler
/// thread while one is answered; closes its socket when destroyed.
struct Connection {
  explicit Connection(int socket) : fd(socket) {}
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  /// Hands the socket over (to the lingering list): the destructor won't close it.
  int release() noexcept;

  int fd;
  std::string buffer; // received and not yet consumed (a pipelined request's bytes too)
  bool started = false; // a byte of the next request has arrived
  Clock::time_point deadline; // idle: closed silently; started: answered 408
  Clock::time_point since; // when it began waiting: eviction picks the oldest
  std::optional<RequestHead> head; // parsed; the body is still arriving
  size_t body_start = 0; // where the body begins in `buffer` (with `head`)
};

/// What a handler thread needs of the server to write an answer.
struct WriteContext {
  int stop_fd; // readable once the server stops: writes give up
  std::chrono::milliseconds timeout; // a client must take a response within this
  const std::atomic<bool>& stopping;
};

/// Sends `data` whole, waiting for the socket as needed; false when the peer has
/// gone, the time ran out or the server is stopping.
bool write_all(int fd, std::string_view data, const WriteContext& context);

/// Runs `handler` on a complete request and writes its answer (streamed if the
/// response says so); true when the connection may serve another request.
bool answer(const HttpHandler& handler, RequestHead& head, int fd, const WriteContext& context);

} // namespace weir::runtime::rest::detail
