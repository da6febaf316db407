#include "runtime/rest/http_server.hpp"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "runtime/rest/http_exchange.hpp"
#include "weir/config.hpp"

namespace weir::runtime::rest {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

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
  Listener listener;
  listener.tls = value.size() >= 8 && iequals(value.substr(0, 8), "https://");
  if (!listener.tls && (value.size() < 7 || !iequals(value.substr(0, 7), "http://")))
    throw fail("expected http://HOST:PORT or https://HOST:PORT");
  std::string_view rest = value.substr(listener.tls ? 8 : 7);
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

using detail::Connection;

// A connection answered with an error: read and dropped until the peer closes (or
// `until`), so that closing it does not reset the answer away before it is read.
struct Lingering {
  int fd;
  Clock::time_point until;
};

// A complete request and the connection it came on, waiting for a handler thread.
struct Exchange {
  std::unique_ptr<Connection> connection;
  RequestHead head;
};

// Sends what fits now, without waiting: the event loop never blocks on a client.
bool send_now(int fd, std::string_view data) {
  ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  return n == static_cast<ssize_t>(data.size());
}
bool send_now(Connection& c, std::string_view data) {
  return c.transmit(data) == static_cast<long>(data.size());
}

// A write to a socket the peer has closed raises SIGPIPE, and OpenSSL writes with
// write(2), not send(MSG_NOSIGNAL): the server's threads block it, so such a write
// only fails with EPIPE.
void block_sigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void wake(int event_fd) {
  uint64_t one = 1;
  if (::write(event_fd, &one, sizeof one) < 0) {
    // An eventfd only fails to count past 2^64 - 2: the loop is awake already.
  }
}

} // namespace

struct HttpServer::Impl {
  enum class Next { wait, gone }; // what became of a connection after advance()

  HttpServerOptions options;
  HttpHandler handler;
  std::unique_ptr<TlsContext> tls; // an https listener's
  int listen_fd = -1;
  int stop_read = -1, stop_write = -1; // a pipe, readable once stop() was called
  int returned_event = -1; // eventfd: a handler thread gave a connection back
  int spare_fd = -1; // kept open to refuse a client with when out of descriptors
  uint16_t port = 0;
  std::atomic<bool> stopping{false};
  std::once_flag stop_once;
  std::thread loop_thread;

  // The event loop's own: connections whose next request is arriving.
  std::vector<std::unique_ptr<Connection>> waiting;
  std::vector<Lingering> lingering;

  // Shared between the loop and the handler threads.
  std::mutex mutex;
  std::condition_variable ready_changed;
  std::deque<Exchange> ready; // complete requests, in arrival order
  std::vector<std::unique_ptr<Connection>> returned; // answered, kept alive
  std::vector<std::thread> handlers;
  size_t idle_handlers = 0;
  std::atomic<size_t> answering{0}; // connections in `ready`, a handler or `returned`
  std::atomic<size_t> queued_bytes{0}; // request bytes in `ready`: max_buffered_bytes counts them

  detail::WriteContext write_context() const { return {stop_read, options.read_timeout, stopping}; }

  void listen();
  void loop();
  void take_returned();
  void read_from(std::unique_ptr<Connection>& slot, size_t& buffered);
  Next advance(std::unique_ptr<Connection>& slot);
  Next reject(std::unique_ptr<Connection>& slot, const HttpResponse& response);
  void dispatch(std::unique_ptr<Connection>& slot);
  void expire(Clock::time_point now);
  void accept_ready();
  bool evict_one(bool keep_reading);
  void refuse(int fd, bool keep_reading);
  void refuse(Connection& c, bool keep_reading);
  std::string too_many() const;
  void linger(int fd);
  void drain_lingering(const std::vector<pollfd>& fds, size_t first);
  void handler_thread();
  void stop();
};

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
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    // A long backlog: a burst of clients waits for accept() instead of SYN retries.
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
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

void HttpServer::Impl::linger(int fd) {
  ::shutdown(fd, SHUT_WR);
  if (lingering.size() < 256) lingering.push_back({fd, Clock::now() + milliseconds(1000)});
  else ::close(fd);
}

std::string HttpServer::Impl::too_many() const {
  return format_response(error_response(503, "Too many connections: this server serves at most " +
                                                 std::to_string(options.max_connections) +
                                                 " at once; retry later"),
                         false);
}

// A connection just accepted (no TLS session yet: on an https listener it is only
// closed, since nothing can be said before the handshake).
void HttpServer::Impl::refuse(int fd, bool keep_reading) {
  if (tls) {
    ::close(fd);
    return;
  }
  (void)send_now(fd, too_many());
  if (keep_reading) linger(fd);
  else ::close(fd);
}

void HttpServer::Impl::refuse(Connection& c, bool keep_reading) {
  (void)send_now(c, too_many());
  int fd = c.release();
  if (keep_reading) linger(fd);
  else ::close(fd);
}

void HttpServer::Impl::drain_lingering(const std::vector<pollfd>& fds, size_t first) {
  auto now = Clock::now();
  for (size_t i = 0; i < lingering.size();) {
    bool done = now >= lingering[i].until;
    if (!done && fds[first + i].revents != 0) {
      char sink[16 * 1024];
      ssize_t n = ::recv(lingering[i].fd, sink, sizeof sink, MSG_DONTWAIT);
      done = n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
    }
    if (done) {
      ::close(lingering[i].fd);
      lingering[i] = lingering.back();
      lingering.pop_back();
      // fds[first + i] now belongs to the one moved here; it is looked at next round.
      if (i < lingering.size()) ++i;
    } else {
      ++i;
    }
  }
}

HttpServer::Impl::Next HttpServer::Impl::reject(std::unique_ptr<Connection>& slot, const HttpResponse& response) {
  (void)send_now(*slot, format_response(response, false));
  int fd = slot->release();
  slot.reset();
  linger(fd);
  return Next::gone;
}

void HttpServer::Impl::dispatch(std::unique_ptr<Connection>& slot) {
  RequestHead head = std::move(*slot->head);
  slot->head.reset();
  Exchange exchange{std::move(slot), std::move(head)};
  ++answering;
  queued_bytes += exchange.head.request.body.size();
  std::lock_guard lock{mutex};
  ready.push_back(std::move(exchange));
  // Another thread when the requests waiting outnumber the idle threads: a thread
  // woken for an earlier request may not have taken it yet, and a request must not
  // wait behind one that streams (a tap) while threads are to spare.
  if (ready.size() > idle_handlers && handlers.size() < options.max_handler_threads) {
    try {
      handlers.emplace_back([this] {
        pthread_setname_np(pthread_self(), "weir-rest-h"); // grouped as the REST server's (docs/metrics.md)
        handler_thread();
      });
    } catch (const std::system_error& e) {
      // No thread to spare: the request waits for a running handler thread.
      if (handlers.empty()) spdlog::error("REST server: cannot start a handler thread: {}", e.what());
    }
  }
  ready_changed.notify_one();
}

// Frames the next request from the connection's buffer: answers what is wrong with
// it at once, hands it to a handler once whole, else waits for more bytes.
HttpServer::Impl::Next HttpServer::Impl::advance(std::unique_ptr<Connection>& slot) {
  Connection& c = *slot;
  for (;;) {
    if (!c.head) {
      size_t head_end = c.buffer.find("\r\n\r\n");
      if (head_end == std::string::npos && c.buffer.size() <= options.max_header_bytes) return Next::wait;
      if (head_end == std::string::npos || head_end > options.max_header_bytes)
        return reject(slot, error_response(431, "Request header is larger than " +
                                                    std::to_string(options.max_header_bytes) + " bytes"));
      auto parsed = parse_request_head(std::string_view{c.buffer}.substr(0, head_end));
      if (auto* error = std::get_if<HttpError>(&parsed)) return reject(slot, error_response(error->status, error->message));
      RequestHead& head = std::get<RequestHead>(parsed);
      c.body_start = head_end + 4;
      bool has_body = head.chunked || head.content_length.value_or(0) > 0;
      if (!head.chunked && !head.content_length) head.content_length = 0;
      if (!options.bearer_token.empty() && !(options.open_request && options.open_request(head.request))) {
        if (auto denied = check_bearer(head.request, options.bearer_token)) {
          denied->head_only = head.request.method == "HEAD";
          // Answered without reading the body: with a body on the way, close.
          if (has_body || !head.keep_alive || stopping) return reject(slot, *denied);
          c.buffer.erase(0, c.body_start);
          if (!send_now(c, format_response(*denied, true))) {
            slot.reset();
            return Next::gone;
          }
          c.started = !c.buffer.empty();
          c.deadline = Clock::now() + (c.started ? options.read_timeout : options.idle_timeout);
          continue; // a pipelined request may follow
        }
      }
      if (head.content_length && *head.content_length > options.max_body_bytes)
        return reject(slot, error_response(413, "Request body is larger than " +
                                                    std::to_string(options.max_body_bytes) + " bytes"));
      if (head.expect_continue && has_body && c.buffer.size() == c.body_start &&
          !send_now(c, "HTTP/1.1 100 Continue\r\n\r\n")) {
        slot.reset();
        return Next::gone;
      }
      c.head = std::move(head);
      c.chunks_decoded = 0;
    }
    std::string_view pending = std::string_view{c.buffer}.substr(c.body_start);
    RequestHead& head = *c.head;
    size_t consumed = 0;
    if (head.chunked) {
      // From where the last read's complete chunks ended: each byte is decoded once.
      std::string decoded;
      ChunkedResult result = decode_chunked(pending.substr(c.chunks_decoded),
                                            options.max_body_bytes - head.request.body.size(), decoded);
      if (result.state == ChunkedResult::State::error)
        return reject(slot, error_response(result.error.status, result.error.message));
      head.request.body += decoded;
      c.chunks_decoded += result.consumed;
      if (result.state == ChunkedResult::State::need_more) return Next::wait;
      consumed = c.body_start + c.chunks_decoded;
    } else {
      if (pending.size() < *head.content_length) return Next::wait;
      head.request.body = pending.substr(0, *head.content_length);
      consumed = c.body_start + *head.content_length;
    }
    c.buffer.erase(0, consumed);
    // A large body's buffer is not kept for an idle connection's sake.
    if (c.buffer.capacity() > 64 * 1024) c.buffer.shrink_to_fit();
    dispatch(slot);
    return Next::gone;
  }
}

void HttpServer::Impl::read_from(std::unique_ptr<Connection>& slot, size_t& buffered) {
  Connection& c = *slot;
  char chunk[64 * 1024];
  // TLS may hold decrypted bytes that poll() cannot see: read them all now.
  for (int reads = 0; reads < 16; ++reads) {
    long n = c.receive(chunk, sizeof chunk);
    if (n == -1) break;
    if (n <= 0) { // closed, reset or a failed handshake: nothing to answer
      slot.reset();
      return;
    }
    if (buffered + static_cast<size_t>(n) > options.max_buffered_bytes) {
      reject(slot, error_response(503, "The server is receiving too many requests at once; retry later"));
      return;
    }
    buffered += static_cast<size_t>(n);
    c.buffer.append(chunk, static_cast<size_t>(n));
    if (!c.started) {
      c.started = true;
      c.deadline = Clock::now() + options.read_timeout;
    }
    if (!c.tls || SSL_pending(c.tls) == 0) break;
  }
  if (c.started) advance(slot);
}

void HttpServer::Impl::expire(Clock::time_point now) {
  for (auto& slot : waiting) {
    if (!slot || now < slot->deadline) continue;
    if (slot->started) reject(slot, error_response(408, "The request did not arrive in time"));
    else slot.reset(); // idle too long: closed without a word, as HTTP allows
  }
}

// Makes room for a new connection: closes the one that has waited longest
// without a complete request, an idle one before one half sent (answered 503,
// lingering for it to be read if `keep_reading`).
bool HttpServer::Impl::evict_one(bool keep_reading) {
  auto victim = waiting.end();
  for (auto it = waiting.begin(); it != waiting.end(); ++it) {
    const auto& c = *it;
    if (!c) continue;
    if (victim == waiting.end()) {
      victim = it;
      continue;
    }
    const auto& v = *victim;
    if ((!c->started && v->started) || (c->started == v->started && c->since < v->since)) victim = it;
  }
  if (victim == waiting.end()) return false;
  if ((*victim)->started) refuse(**victim, keep_reading);
  waiting.erase(victim);
  return true;
}

void HttpServer::Impl::accept_ready() {
  for (int i = 0; i < 64; ++i) {
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno != EMFILE && errno != ENFILE) return;
      // Out of descriptors: free one by eviction, else answer with the spare one.
      if (evict_one(false)) continue; // no descriptor to spare for lingering
      ::close(spare_fd);
      fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (fd >= 0) refuse(fd, false);
      spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      return;
    }
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (waiting.size() + answering >= options.max_connections && !evict_one(true)) {
      refuse(fd, true);
      continue;
    }
    SSL* session = tls ? tls->session(fd) : nullptr;
    if (tls && !session) {
      ::close(fd);
      continue;
    }
    auto c = std::make_unique<Connection>(fd, session);
    c->since = Clock::now();
    c->deadline = c->since + options.idle_timeout;
    waiting.push_back(std::move(c));
  }
}

void HttpServer::Impl::take_returned() {
  std::vector<std::unique_ptr<Connection>> back;
  {
    std::lock_guard lock{mutex};
    back.swap(returned);
  }
  auto now = Clock::now();
  for (auto& c : back) {
    --answering;
    c->started = !c->buffer.empty();
    c->since = now;
    c->deadline = now + (c->started ? options.read_timeout : options.idle_timeout);
    waiting.push_back(std::move(c));
    advance(waiting.back()); // a pipelined request may be there already
  }
}

void HttpServer::Impl::loop() {
  block_sigpipe();
  std::vector<pollfd> fds;
  for (;;) {
    take_returned();
    std::erase(waiting, nullptr);
    accept_ready();
    std::erase(waiting, nullptr);
    fds.assign({{listen_fd, POLLIN, 0}, {stop_read, POLLIN, 0}, {returned_event, POLLIN, 0}});
    auto next = Clock::now() + milliseconds(1000);
    for (const auto& l : lingering) {
      fds.push_back({l.fd, POLLIN, 0});
      next = std::min(next, l.until);
    }
    size_t first_waiting = fds.size();
    for (const auto& c : waiting) {
      fds.push_back({c->fd, static_cast<short>(c->wants_write ? POLLOUT : POLLIN), 0});
      next = std::min(next, c->deadline);
    }
    auto timeout = std::chrono::duration_cast<milliseconds>(next - Clock::now()).count();
    int rc = ::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<int64_t>(timeout + 1, 0, 1000)));
    if (rc < 0 && errno != EINTR) std::this_thread::sleep_for(milliseconds(50));
    if (fds[1].revents != 0) break;
    if (fds[2].revents != 0) {
      uint64_t count;
      (void)::read(returned_event, &count, sizeof count);
    }
    drain_lingering(fds, 3);
    size_t buffered = queued_bytes;
    for (const auto& c : waiting) buffered += c->buffer.size();
    for (size_t i = 0; i < waiting.size(); ++i)
      if (fds[first_waiting + i].revents != 0) read_from(waiting[i], buffered);
    expire(Clock::now());
  }
  waiting.clear();
  for (const auto& l : lingering) ::close(l.fd);
  lingering.clear();
}

void HttpServer::Impl::handler_thread() {
  block_sigpipe();
  std::unique_lock lock{mutex};
  for (;;) {
    ++idle_handlers;
    ready_changed.wait(lock, [this] { return stopping || !ready.empty(); });
    --idle_handlers;
    if (stopping) return;
    Exchange exchange = std::move(ready.front());
    ready.pop_front();
    queued_bytes -= exchange.head.request.body.size();
    lock.unlock();
    bool keep = detail::answer(handler, exchange.head, *exchange.connection, write_context());
    lock.lock();
    if (keep && !stopping) {
      returned.push_back(std::move(exchange.connection));
      wake(returned_event);
    } else {
      exchange.connection.reset();
      --answering;
    }
  }
}

void HttpServer::Impl::stop() {
  std::call_once(stop_once, [this] {
    stopping = true;
    char byte = 1;
    if (::write(stop_write, &byte, 1) < 0) {
      // The pipe is empty and open, so this cannot fail; nothing else to do if it did.
    }
    if (loop_thread.joinable()) loop_thread.join();
    {
      std::lock_guard lock{mutex};
      ready_changed.notify_all();
    }
    for (auto& t : handlers) t.join();
    ready.clear();
    returned.clear();
    for (int fd : {listen_fd, stop_read, stop_write, returned_event, spare_fd})
      if (fd >= 0) ::close(fd);
  });
}

HttpServer::HttpServer(HttpServerOptions options, HttpHandler handler) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->handler = std::move(handler);
  if (parse_listener(impl_->options.listener).tls) {
    if (!impl_->options.tls)
      throw ConfigError(tls_key_chain, "An https listener needs " + std::string{tls_key_chain} + " and "
                                           + tls_key_key + " (or a PEM keystore file)");
    impl_->tls = std::make_unique<TlsContext>(*impl_->options.tls);
  }
  impl_->listen();
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    ::close(impl_->listen_fd);
    throw_errno("pipe2");
  }
  impl_->stop_read = pipe_fds[0];
  impl_->stop_write = pipe_fds[1];
  impl_->returned_event = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  impl_->spare_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (impl_->returned_event < 0 || impl_->spare_fd < 0) {
    int error = errno;
    impl_->stop();
    errno = error;
    throw_errno("REST server: eventfd or /dev/null");
  }
  impl_->loop_thread = std::thread([impl = impl_.get()] {
    pthread_setname_np(pthread_self(), "weir-rest");
    impl->loop();
  });
}

HttpServer::~HttpServer() { stop(); }

uint16_t HttpServer::port() const noexcept { return impl_->port; }

void HttpServer::stop() { impl_->stop(); }

} // namespace weir::runtime::rest
