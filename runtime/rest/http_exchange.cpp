#include "runtime/rest/http_exchange.hpp"

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
  SocketStream(int fd, const HttpResponse& response, bool keep, bool chunked, const WriteContext& context)
      : fd_(fd), response_(response), keep_(keep), chunked_(chunked), context_(context) {}

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
    failed_ = !write_all(fd_, bytes, context_);
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
  int fd_;
  const HttpResponse& response_;
  bool keep_, chunked_;
  const WriteContext& context_;
  bool started_ = false;
  std::atomic<bool> failed_{false}; // gone() may be asked from another thread (a forwarded tap's watcher)
  std::string buffered_;
};

bool stream(HttpResponse& response, bool keep, bool chunked, int fd, const WriteContext& context) {
  SocketStream out{fd, response, keep, chunked, context};
  auto error = error_of([&] { response.stream(out); });
  if (error && out.started()) return false; // cut short: the client sees no last chunk
  if (error) return write_all(fd, format_response(*error, keep), context) && keep;
  if (out.failed()) return false;
  if (!out.started()) { // nothing streamed, or HTTP/1.0: one whole answer
    response.body = out.buffered();
    return write_all(fd, format_response(response, keep), context) && keep;
  }
  return write_all(fd, "0\r\n\r\n", context) && keep;
}

} // namespace

Connection::~Connection() {
  if (fd >= 0) ::close(fd);
}

int Connection::release() noexcept { return std::exchange(fd, -1); }

bool write_all(int fd, std::string_view data, const WriteContext& context) {
  auto deadline = Clock::now() + context.timeout;
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    pollfd fds[2] = {{fd, POLLOUT, 0}, {context.stop_fd, POLLIN, 0}};
    int rc = ::poll(fds, 2, ms_until(deadline));
    if ((rc < 0 && errno != EINTR) || rc == 0 || fds[1].revents != 0) return false;
  }
  return true;
}

bool answer(const HttpHandler& handler, RequestHead& head, int fd, const WriteContext& context) {
  HttpResponse response;
  auto handling = Clock::now();
  if (auto error = error_of([&] { response = handler(head.request); })) response = std::move(*error);
  // Kafka Connect's request log, at DEBUG (PUT /admin/loggers/root turns it on).
  spdlog::debug("REST {} {} -> {} in {} ms", head.request.method, head.request.target, response.status,
                std::chrono::duration_cast<milliseconds>(Clock::now() - handling).count());
  bool keep = head.keep_alive && !context.stopping;
  // HTTP/1.0 closes by default, so keeping it open must be said.
  if (keep && head.request.minor_version == 0) response.headers.emplace_back("Connection", "keep-alive");
  if (response.stream) return stream(response, keep, head.request.minor_version > 0, fd, context);
  return write_all(fd, format_response(response, keep), context) && keep;
}

} // namespace weir::runtime::rest::detail
