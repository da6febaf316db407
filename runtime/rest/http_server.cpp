#include "runtime/rest/http_server.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <climits>
#include <functional>
#include <list>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "weir/config.hpp"

namespace weir::runtime::rest {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

int ms_until(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
  return static_cast<int>(std::clamp<int64_t>(left, 0, INT_MAX));
}

[[noreturn]] void throw_errno(const std::string& what) {
  throw std::system_error(errno, std::generic_category(), what);
}

// Compares without an early exit, so the time taken tells nothing about where a
// guess goes wrong (only, as usual, whether its length is right).
bool same_secret(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size() || b.empty()) return false;
  unsigned diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

std::optional<HttpResponse> check_bearer(const HttpRequest& request, const std::string& token) {
  const std::string* header = request.header("authorization");
  std::string_view message;
  if (!header) {
    message = "Authentication required: send the header 'Authorization: Bearer <token>'";
  } else if (header->size() < 7 || !iequals(std::string_view{*header}.substr(0, 7), "Bearer ")) {
    message = "Unsupported authorization scheme: expected 'Authorization: Bearer <token>'";
  } else if (!same_secret(std::string_view{*header}.substr(7), token)) {
    message = "Invalid bearer token";
  } else {
    return std::nullopt;
  }
  HttpResponse response = error_response(401, message);
  response.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"weir\"");
  return response;
}

} // namespace

Listener parse_listener(std::string_view value) {
  auto fail = [&](std::string_view why) {
    return ConfigError("listeners", "Invalid value " + std::string{value} +
                                        " for configuration listeners: " + std::string{why});
  };
  if (value.find(',') != std::string_view::npos)
    throw fail("weir listens on one address; give a single http://HOST:PORT");
  if (value.size() >= 8 && iequals(value.substr(0, 8), "https://"))
    throw fail("https listeners are not supported yet; use http://HOST:PORT");
  if (value.size() < 7 || !iequals(value.substr(0, 7), "http://")) throw fail("expected http://HOST:PORT");
  std::string_view rest = value.substr(7);
  Listener listener;
  if (!rest.empty() && rest.front() == '[') {
    size_t close = rest.find(']');
    if (close == std::string_view::npos) throw fail("unterminated IPv6 address");
    listener.host = rest.substr(1, close - 1);
    rest.remove_prefix(close + 1);
  } else {
    size_t colon = rest.find(':');
    listener.host = rest.substr(0, colon);
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon);
  }
  if (rest.size() < 2 || rest.front() != ':') throw fail("a port is required (http://HOST:PORT)");
  rest.remove_prefix(1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), port);
  if (ec != std::errc{} || end != rest.data() + rest.size() || port > 65535)
    throw fail("the port must be a number from 0 to 65535");
  if (listener.host.find_first_of("/?#@ ") != std::string::npos) throw fail("invalid host");
  listener.port = static_cast<uint16_t>(port);
  return listener;
}

namespace {

// What connection sessions share with the server.
struct Shared {
  HttpServerOptions options;
  HttpHandler handler;
  int wake_read = -1; // readable once stop() was called: every poll watches it
  std::atomic<bool> stopping{false};
};

} // namespace

struct HttpServer::Impl : Shared {
  // One accepted connection, served by its own thread, which closes `fd` itself.
  struct Connection {
    int fd = -1;
    std::thread thread;
    std::atomic<bool> finished{false};
  };
  // A refused connection whose 503 is on its way: read and dropped until the peer
  // closes (or `until`), so that closing it does not reset the 503 away.
  struct Lingering {
    int fd;
    Clock::time_point until;
  };

  int listen_fd = -1;
  int wake_write = -1;
  uint16_t port = 0;
  std::once_flag stop_once;
  std::thread acceptor;
  // Touched only by the acceptor thread, and by stop() after joining it.
  std::list<std::unique_ptr<Connection>> connections;
  std::vector<Lingering> lingering;

  void listen();
  void accept_loop();
  void accept_one();
  void refuse(int fd);
  void drain_lingering(const std::vector<pollfd>& fds);
  void reap();
  void stop();
};

namespace {

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

// Reads, frames and answers the requests of one connection, in order.
class Session {
public:
  Session(Shared& server, int fd) : server_(server), fd_(fd) {}
  void run();

private:
  enum class Read { ok, eof, timeout, stopped, error };
  Read read_some(Clock::time_point deadline);
  bool write_all(std::string_view data);
  // Answers and closes, reading what the client still sends for a moment so the
  // answer is not lost to a reset.
  void fail(const HttpResponse& response);
  void fail(int status, std::string_view message) { fail(error_response(status, message)); }
  bool serve_one();
  // Sends a response whose body is streamed (HttpResponse::stream); false when the
  // connection must close.
  bool stream(HttpResponse& response, bool keep, bool chunked);
  bool read_body(RequestHead& head, size_t body_start, Clock::time_point deadline, size_t& consumed);

  Shared& server_;
  int fd_;
  std::string buffer_;
};

Session::Read Session::read_some(Clock::time_point deadline) {
  pollfd fds[2] = {{fd_, POLLIN, 0}, {server_.wake_read, POLLIN, 0}};
  for (;;) {
    int rc = ::poll(fds, 2, ms_until(deadline));
    if (rc < 0 && errno == EINTR) continue;
    if (rc < 0) return Read::error;
    if (fds[1].revents != 0) return Read::stopped;
    if (rc == 0) return Read::timeout;
    char chunk[64 * 1024];
    ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n > 0) {
      buffer_.append(chunk, static_cast<size_t>(n));
      return Read::ok;
    }
    if (n == 0) return Read::eof;
    if (errno != EINTR && errno != EAGAIN) return Read::error;
  }
}

bool Session::write_all(std::string_view data) {
  auto deadline = Clock::now() + server_.options.read_timeout;
  while (!data.empty()) {
    ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    pollfd fds[2] = {{fd_, POLLOUT, 0}, {server_.wake_read, POLLIN, 0}};
    int rc = ::poll(fds, 2, ms_until(deadline));
    if ((rc < 0 && errno != EINTR) || rc == 0 || fds[1].revents != 0) return false;
  }
  return true;
}

void Session::fail(const HttpResponse& response) {
  if (!write_all(format_response(response, false))) return;
  ::shutdown(fd_, SHUT_WR);
  auto until = Clock::now() + milliseconds(1000);
  size_t drained = 0;
  while (drained < 8 * 1024 * 1024 && read_some(until) == Read::ok) {
    drained += buffer_.size();
    buffer_.clear();
  }
}

bool Session::read_body(RequestHead& head, size_t body_start, Clock::time_point deadline,
                        size_t& consumed) {
  const auto& options = server_.options;
  for (;;) {
    std::string_view pending = std::string_view{buffer_}.substr(body_start);
    if (head.chunked) {
      ChunkedResult result = decode_chunked(pending, options.max_body_bytes, head.request.body);
      if (result.state == ChunkedResult::State::done) {
        consumed = body_start + result.consumed;
        return true;
      }
      if (result.state == ChunkedResult::State::error) {
        fail(result.error.status, result.error.message);
        return false;
      }
    } else if (pending.size() >= *head.content_length) {
      head.request.body = pending.substr(0, *head.content_length);
      consumed = body_start + *head.content_length;
      return true;
    }
    Read r = read_some(deadline);
    if (r == Read::timeout) fail(408, "The request body did not arrive in time");
    if (r != Read::ok) return false;
  }
}

// Serves one request; false when the connection must close.
bool Session::serve_one() {
  const auto& options = server_.options;
  auto deadline = Clock::now() + (buffer_.empty() ? options.idle_timeout : options.read_timeout);
  bool started = !buffer_.empty();
  size_t head_end;
  while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (buffer_.size() > options.max_header_bytes) {
      fail(431, "Request header is larger than " + std::to_string(options.max_header_bytes) + " bytes");
      return false;
    }
    Read r = read_some(deadline);
    if (r == Read::timeout && started) fail(408, "The request did not arrive in time");
    if (r != Read::ok) return false;
    if (!started) deadline = Clock::now() + options.read_timeout;
    started = true;
  }
  if (head_end > options.max_header_bytes) {
    fail(431, "Request header is larger than " + std::to_string(options.max_header_bytes) + " bytes");
    return false;
  }
  auto parsed = parse_request_head(std::string_view{buffer_}.substr(0, head_end));
  if (auto* error = std::get_if<HttpError>(&parsed)) {
    fail(error->status, error->message);
    return false;
  }
  RequestHead& head = std::get<RequestHead>(parsed);
  size_t body_start = head_end + 4;
  bool has_body = head.chunked || head.content_length.value_or(0) > 0;
  if (!head.chunked && !head.content_length) head.content_length = 0;

  if (!options.bearer_token.empty()) {
    if (auto denied = check_bearer(head.request, options.bearer_token)) {
      // Answered without reading the body: with a body on the way, close.
      if (has_body || !head.keep_alive || server_.stopping) {
        fail(*denied);
        return false;
      }
      buffer_.erase(0, body_start);
      return write_all(format_response(*denied, true));
    }
  }
  if (head.content_length && *head.content_length > options.max_body_bytes) {
    fail(413, "Request body is larger than " + std::to_string(options.max_body_bytes) + " bytes");
    return false;
  }
  if (head.expect_continue && has_body && buffer_.size() == body_start &&
      !write_all("HTTP/1.1 100 Continue\r\n\r\n"))
    return false;
  size_t consumed = 0;
  if (!read_body(head, body_start, deadline, consumed)) return false;
  buffer_.erase(0, consumed);

  HttpResponse response;
  auto handling = Clock::now();
  if (auto error = error_of([&] { response = server_.handler(head.request); })) response = std::move(*error);
  // Kafka Connect's request log, at DEBUG (PUT /admin/loggers/root turns it on).
  spdlog::debug("REST {} {} -> {} in {} ms", head.request.method, head.request.target, response.status,
                std::chrono::duration_cast<milliseconds>(Clock::now() - handling).count());
  bool keep = head.keep_alive && !server_.stopping;
  // HTTP/1.0 closes by default, so keeping it open must be said.
  if (keep && head.request.minor_version == 0) response.headers.emplace_back("Connection", "keep-alive");
  if (response.stream) return stream(response, keep, head.request.minor_version > 0);
  return write_all(format_response(response, keep)) && keep;
}

// The ResponseStream of one response on this session's connection.
class SessionStream final : public ResponseStream {
public:
  SessionStream(int fd, const HttpResponse& response, bool keep, bool chunked, const std::atomic<bool>& stopping,
                std::function<bool(std::string_view)> write_all)
      : fd_(fd), response_(response), keep_(keep), chunked_(chunked), stopping_(stopping),
        write_all_(std::move(write_all)) {}

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
    failed_ = !write_all_(bytes);
    return !failed_;
  }

  bool gone() override {
    if (failed_ || stopping_) return true;
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
  const std::atomic<bool>& stopping_;
  std::function<bool(std::string_view)> write_all_;
  bool started_ = false;
  std::atomic<bool> failed_{false}; // gone() may be asked from another thread (a forwarded tap's watcher)
  std::string buffered_;
};

bool Session::stream(HttpResponse& response, bool keep, bool chunked) {
  SessionStream out{fd_, response, keep, chunked, server_.stopping,
                    [this](std::string_view bytes) { return write_all(bytes); }};
  auto error = error_of([&] { response.stream(out); });
  if (error && out.started()) return false; // cut short: the client sees no last chunk
  if (error) return write_all(format_response(*error, keep)) && keep;
  if (out.failed()) return false;
  if (!out.started()) { // nothing streamed, or HTTP/1.0: one whole answer
    response.body = out.buffered();
    return write_all(format_response(response, keep)) && keep;
  }
  return write_all("0\r\n\r\n") && keep;
}

void Session::run() {
  while (!server_.stopping && serve_one()) {
  }
}

} // namespace

void HttpServer::Impl::listen() {
  Listener where = parse_listener(options.listener);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port_text = std::to_string(where.port);
  const char* host = where.host.empty() ? nullptr : where.host.c_str();
  if (int rc = ::getaddrinfo(host, port_text.c_str(), &hints, &found); rc != 0)
    throw std::system_error(std::make_error_code(std::errc::invalid_argument),
                            "cannot listen on " + options.listener + ": cannot resolve " + where.host
                              + ": " + gai_strerror(rc));
  int error = 0;
  for (addrinfo* a = found; a && listen_fd < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      listen_fd = fd;
    } else {
      error = errno;
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (listen_fd < 0) {
    errno = error;
    throw_errno("cannot listen on " + options.listener);
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  ::getsockname(listen_fd, reinterpret_cast<sockaddr*>(&bound), &length);
  port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

void HttpServer::Impl::refuse(int fd) {
  ::fcntl(fd, F_SETFL, O_NONBLOCK);
  std::string reply = format_response(
      error_response(503, "Too many connections: this server serves at most " +
                              std::to_string(options.max_connections) + " at once; retry later"),
      false);
  (void)::send(fd, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::shutdown(fd, SHUT_WR);
  if (lingering.size() < 64) lingering.push_back({fd, Clock::now() + milliseconds(2000)});
  else ::close(fd);
}

void HttpServer::Impl::drain_lingering(const std::vector<pollfd>& fds) {
  auto now = Clock::now();
  for (size_t i = 0; i < lingering.size();) {
    bool done = now >= lingering[i].until;
    if (!done && fds[i + 2].revents != 0) {
      char sink[4096];
      ssize_t n = ::recv(lingering[i].fd, sink, sizeof sink, MSG_DONTWAIT);
      done = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
    }
    if (done) {
      ::close(lingering[i].fd);
      lingering[i] = lingering.back();
      lingering.pop_back();
    } else {
      ++i;
    }
  }
}

void HttpServer::Impl::reap() {
  for (auto it = connections.begin(); it != connections.end();) {
    if ((*it)->finished) {
      (*it)->thread.join();
      it = connections.erase(it);
    } else {
      ++it;
    }
  }
}

void HttpServer::Impl::accept_one() {
  int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) {
    // Out of descriptors: back off instead of spinning on a listener that stays readable.
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
      std::this_thread::sleep_for(milliseconds(50));
    return;
  }
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  reap();
  if (connections.size() >= options.max_connections) {
    refuse(fd);
    return;
  }
  auto connection = std::make_unique<Connection>();
  Connection* c = connection.get();
  c->fd = fd;
  try {
    c->thread = std::thread([this, c] {
      Session(*this, c->fd).run();
      ::close(c->fd);
      c->finished = true;
    });
  } catch (const std::system_error&) {
    refuse(fd); // no thread to spare: answer as if over the cap
    return;
  }
  connections.push_back(std::move(connection));
}

void HttpServer::Impl::accept_loop() {
  std::vector<pollfd> fds;
  for (;;) {
    fds.assign({{listen_fd, POLLIN, 0}, {wake_read, POLLIN, 0}});
    for (const auto& l : lingering) fds.push_back({l.fd, POLLIN, 0});
    // Wake up now and then to join finished connection threads.
    int rc = ::poll(fds.data(), fds.size(), lingering.empty() ? 1000 : 100);
    if (rc < 0 && errno != EINTR) std::this_thread::sleep_for(milliseconds(50));
    if (fds[1].revents != 0) break;
    drain_lingering(fds);
    if (rc > 0 && fds[0].revents != 0) accept_one();
    else reap();
  }
  for (const auto& l : lingering) ::close(l.fd);
  lingering.clear();
}

void HttpServer::Impl::stop() {
  std::call_once(stop_once, [this] {
    stopping = true;
    char wake = 1;
    if (::write(wake_write, &wake, 1) < 0) {
      // The pipe is empty and open, so this cannot fail; nothing else to do if it did.
    }
    if (acceptor.joinable()) acceptor.join();
    for (auto& c : connections) c->thread.join();
    connections.clear();
    ::close(listen_fd);
    ::close(wake_read);
    ::close(wake_write);
  });
}

HttpServer::HttpServer(HttpServerOptions options, HttpHandler handler) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->handler = std::move(handler);
  impl_->listen();
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    ::close(impl_->listen_fd);
    throw_errno("pipe2");
  }
  impl_->wake_read = pipe_fds[0];
  impl_->wake_write = pipe_fds[1];
  impl_->acceptor = std::thread([impl = impl_.get()] { impl->accept_loop(); });
}

HttpServer::~HttpServer() { stop(); }

uint16_t HttpServer::port() const noexcept { return impl_->port; }

void HttpServer::stop() { impl_->stop(); }

} // namespace weir::runtime::rest
