#include "runtime/rest/http_exchange.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <functional>

#include <spdlog/spdlog.h>

namespace weir::runtime::rest::detail {

namespace {

using std::chrono::milliseconds;

int ms_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, INT_MAX));
}

// Runs `call`; what it throws becomes the answer a client gets (RestError: its
// status; anything else: 500).
template <class F>
std::optional<HttpResponse> error_of(F&& call) {
  try {
    call();
    return std::nullopt;
  } catch (const RestError& e) {
    return error_response(e.status(), e.what());
  } catch (const std::exception& e) {
    return error_response(500, e.what());
  } catch (...) {
    return error_response(500, "Unexpected error");
  }
}

// The ResponseStream of one response on a connection.
class SocketStream final : public ResponseStream {
public:
  SocketStream(Connection& connection, const HttpResponse& response, bool keep, bool chunked,
               const WriteContext& context)
      : connection_(connection), fd_(connection.fd), response_(response), keep_(keep), chunked_(chunked), context_(context) {}

  bool write(std::string_view data) override {
    // A send to a client that closed its end still succeeds once: ask first.
    if (gone()) return false;
    if (data.empty()) return true;
    if (!chunked_) { // HTTP/1.0: no chunks; the whole body goes at the end
      buffered_ += data;
      return !gone();
    }
    std::string bytes = started_ ? std::string{} : format_stream_head(response_, keep_);
    started_ = true;
    bytes += format_chunk(data);
    failed_ = !write_all(connection_, bytes, context_);
    return !failed_;
  }

  bool gone() override {
    if (failed_ || context_.stopping) return true;
    pollfd p{fd_, POLLIN | POLLRDHUP, 0};
    if (::poll(&p, 1, 0) <= 0) return false;
    if (p.revents & (POLLHUP | POLLERR | POLLRDHUP)) return true;
    // Readable: the client's next request (pipelined), or its end of the stream.
    char byte;
    return ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
  }

  bool started() const { return started_; }
  bool failed() const { return failed_; }
  const std::string& buffered() const { return buffered_; }

private:
  Connection& connection_;
  int fd_; // asked by gone() from any thread: the raw socket, never the TLS session
  const HttpResponse& response_;
  bool keep_, chunked_;
  const WriteContext& context_;
  bool started_ = false;
  std::atomic<bool> failed_{false}; // gone() may be asked from another thread (a forwarded tap's watcher)
  std::string buffered_;
};

bool stream(HttpResponse& response, bool keep, bool chunked, Connection& c, const WriteContext& context) {
  SocketStream out{c, response, keep, chunked, context};
  auto error = error_of([&] { response.stream(out); });
  if (error && out.started()) return false; // cut short: the client sees no last chunk
  if (error) return write_all(c, format_response(*error, keep), context) && keep;
  if (out.failed()) return false;
  if (!out.started()) { // nothing streamed, or HTTP/1.0: one whole answer
    response.body = out.buffered();
    return write_all(c, format_response(response, keep), context) && keep;
  }
  return write_all(c, "0\r\n\r\n", context) && keep;
}

// What a TLS call's failure means for a non-blocking socket: -1 wait, 0 closed, -2 error.
long tls_outcome(Connection& c, int result) {
  switch (SSL_get_error(c.tls, result)) {
    case SSL_ERROR_WANT_READ: c.wants_write = false; return -1;
    case SSL_ERROR_WANT_WRITE: c.wants_write = true; return -1;
    case SSL_ERROR_ZERO_RETURN: return 0;
    default: ERR_clear_error(); return -2; // a failed handshake, or the peer reset
  }
}

} // namespace

Connection::~Connection() {
  if (tls) SSL_free(tls);
  if (fd >= 0) ::close(fd);
}

int Connection::release() noexcept {
  if (tls) {
    SSL_shutdown(tls); // close_notify, if it fits; the socket is drained raw after
    SSL_free(std::exchange(tls, nullptr));
  }
  return std::exchange(fd, -1);
}

long Connection::receive(char* into, size_t size) {
  if (tls) {
    int n = SSL_read(tls, into, static_cast<int>(std::min<size_t>(size, INT_MAX)));
    return n > 0 ? n : tls_outcome(*this, n);
  }
  ssize_t n = ::recv(fd, into, size, MSG_DONTWAIT);
  wants_write = false;
  if (n >= 0) return n;
  return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -1 : -2;
}

long Connection::transmit(std::string_view data) {
  if (data.empty()) return 0;
  if (tls) {
    int n = SSL_write(tls, data.data(), static_cast<int>(std::min<size_t>(data.size(), INT_MAX)));
    if (n > 0) return n;
    long outcome = tls_outcome(*this, n);
    return outcome == 0 ? -2 : outcome;
  }
  ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  wants_write = true;
  if (n >= 0) return n;
  return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -1 : -2;
}

bool write_all(Connection& c, std::string_view data, const WriteContext& context) {
  auto deadline = Clock::now() + context.timeout;
  while (!data.empty()) {
    long n = c.transmit(data);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < -1) return false;
    short wait_for = c.wants_write ? POLLOUT : POLLIN;
    pollfd fds[2] = {{c.fd, wait_for, 0}, {context.stop_fd, POLLIN, 0}};
    int rc = ::poll(fds, 2, ms_until(deadline));
    if ((rc < 0 && errno != EINTR) || rc == 0 || fds[1].revents != 0) return false;
  }
  return true;
}

bool answer(const HttpHandler& handler, RequestHead& head, Connection& c, const WriteContext& context) {
  HttpResponse response;
  auto handling = Clock::now();
  if (auto error = error_of([&] { response = handler(head.request); })) response = std::move(*error);
  if (head.request.method == "HEAD") { // RFC 9110, 9.3.2: the GET's answer without its body
    response.stream = nullptr;         // a streamed GET (a tap) is not started
    response.head_only = true;
  }
  // Kafka Connect's request log, at DEBUG (PUT /admin/loggers/root turns it on).
  spdlog::debug("REST {} {} -> {} in {} ms", head.request.method, head.request.target, response.status,
                std::chrono::duration_cast<milliseconds>(Clock::now() - handling).count());
  bool keep = head.keep_alive && !context.stopping;
  // HTTP/1.0 closes by default, so keeping it open must be said.
  if (keep && head.request.minor_version == 0) response.headers.emplace_back("Connection", "keep-alive");
  if (response.stream) return stream(response, keep, head.request.minor_version > 0, c, context);
  return write_all(c, format_response(response, keep), context) && keep;
}

} // namespace weir::runtime::rest::detail
