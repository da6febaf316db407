// weir's REST server (runtime/rest/http_server) beside cpp-httplib's server (the
// version weir links, default settings), answering the same trivial route, so the
// choice between them (docs/rest.md#the-server) rests on figures: requests/s over
// kept-alive and fresh connections, memory with N idle connections, whether a
// fresh client is answered within 5 s while N connections sit idle or trickle a
// request a byte a second (slowloris), and the time a body of one-byte chunks
// costs. Results: bench/results/rest_server.md.
//
//   build/bench/rest_server_bench [--seconds S] [--server weir|httplib|httplib-1024]...
//
// httplib is its default pool of max(8, cores - 1) threads, httplib-1024 a pool of
// 1,024; both with TCP_NODELAY, as weir's server.
//
// Client and server share the process (the clients' memory is only their sockets,
// the same for both servers), on loopback; a shared 2-core machine moves the rates
// by 20% and more, so compare servers within one run.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/rest/http_server.hpp"
#include "tests/support/http_client.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using weir::runtime::rest::test::TestClient;

long rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A server under test, listening on an ephemeral loopback port until destroyed.
class Subject {
public:
  virtual ~Subject() = default;
  virtual uint16_t port() const = 0;
};

class WeirSubject final : public Subject {
public:
  WeirSubject()
      : server_(options(), [](const weir::runtime::rest::HttpRequest&) {
          return weir::runtime::rest::json_response(200, "[]");
        }) {}
  uint16_t port() const override { return server_.port(); }

private:
  static weir::runtime::rest::HttpServerOptions options() {
    weir::runtime::rest::HttpServerOptions o;
    o.listener = "http://127.0.0.1:0";
    return o;
  }
  weir::runtime::rest::HttpServer server_;
};

class HttplibSubject final : public Subject {
public:
  /// `threads` 0: its default pool (max(8, cores - 1) threads).
  explicit HttplibSubject(size_t threads) {
    if (threads > 0) server_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    // Its default leaves Nagle on (40 ms per kept-alive request here); accepted
    // sockets inherit TCP_NODELAY from the listener, as weir's server sets it.
    server_.set_socket_options([](socket_t fd) {
      httplib::default_socket_options(fd);
      int one = 1;
      ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    });
    server_.Get(".*", [](const httplib::Request&, httplib::Response& res) { res.set_content("[]", "application/json"); });
    port_ = static_cast<uint16_t>(server_.bind_to_any_port("127.0.0.1"));
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(1ms);
  }
  ~HttplibSubject() override {
    server_.stop();
    thread_.join();
  }
  uint16_t port() const override { return port_; }

private:
  httplib::Server server_;
  uint16_t port_ = 0;
  std::thread thread_;
};

// GET /connectors over one connection, reconnecting when the server closes it
// (cpp-httplib closes after 5 requests by default); the requests answered 200.
long keep_alive_requests(uint16_t port, Clock::time_point until) {
  long done = 0;
  while (Clock::now() < until) {
    TestClient client{port, 5s};
    for (;;) {
      auto r = client.request("GET", "/connectors");
      if (r.status != 200) break;
      ++done;
      const std::string* connection = r.header("connection");
      if ((connection && *connection == "close") || Clock::now() >= until) break;
    }
  }
  return done;
}

double keep_alive_rps(uint16_t port, int threads, double seconds) {
  std::atomic<long> total{0};
  auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::vector<std::thread> clients;
  for (int i = 0; i < threads; ++i) clients.emplace_back([&] { total += keep_alive_requests(port, until); });
  for (auto& t : clients) t.join();
  return static_cast<double>(total) / seconds;
}

double fresh_connection_rps(uint16_t port, double seconds) {
  long done = 0;
  auto t0 = Clock::now();
  while (seconds_since(t0) < seconds) {
    TestClient client{port, 5s};
    done += client.request("GET", "/connectors", "", "Connection: close\r\n").status == 200;
  }
  return static_cast<double>(done) / seconds;
}

// A fresh client's GET within the 5 s client timeout: its latency in ms,
// or -1 when it got no 200 in time.
double probe_ms(uint16_t port) {
  auto t0 = Clock::now();
  try {
    TestClient client{port, 5s};
    if (client.request("GET", "/connectors").status != 200) return -1;
  } catch (const std::exception&) {
    return -1;
  }
  return seconds_since(t0) * 1000;
}

struct UnderLoad {
  long rss_growth_kib = 0;
  int answered = 0, probes = 0;
  double worst_ms = 0;
};

// `n` connections that never send (idle) or trickle a request head a byte a second
// (slowloris), and a fresh client probing every 500 ms for `seconds`.
UnderLoad with_connections(uint16_t port, int n, bool trickle, double seconds) {
  UnderLoad result;
  long before = rss_kib();
  std::vector<std::unique_ptr<TestClient>> held;
  for (int i = 0; i < n; ++i) held.push_back(std::make_unique<TestClient>(port, 5s));
  std::atomic<bool> done{false};
  std::thread trickler([&] {
    const std::string head = "GET /connectors HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    for (size_t second = 0; trickle && !done; ++second) {
      for (auto& c : held) c->send_raw(std::string(1, second < head.size() ? head[second] : 'a'));
      for (int i = 0; i < 10 && !done; ++i) std::this_thread::sleep_for(100ms);
    }
  });
  std::this_thread::sleep_for(300ms);
  result.rss_growth_kib = rss_kib() - before;
  auto t0 = Clock::now();
  while (seconds_since(t0) < seconds) {
    double ms = probe_ms(port);
    ++result.probes;
    if (ms >= 0) ++result.answered;
    result.worst_ms = ms < 0 ? 5000 : std::max(result.worst_ms, ms);
    std::this_thread::sleep_for(500ms);
  }
  done = true;
  trickler.join();
  return result;
}

// A 24 MB chunked body of one-byte chunks (4 MB decoded, the default limit) sent
// as fast as the server takes it, while a fresh client probes: seconds until it is
// answered, and the slowest probe meanwhile (ms).
std::pair<double, double> tiny_chunks(uint16_t port) {
  std::string body;
  body.reserve(24'000'010);
  for (int i = 0; i < 4'000'000; ++i) body += "1\r\nx\r\n";
  body += "0\r\n\r\n";
  std::atomic<bool> done{false};
  double worst = 0;
  std::thread prober([&] {
    while (!done) {
      double ms = probe_ms(port);
      worst = ms < 0 ? 5000 : std::max(worst, ms);
      std::this_thread::sleep_for(50ms);
    }
  });
  auto t0 = Clock::now();
  TestClient client{port, 60s};
  client.send_raw("PUT /connectors/x/config HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
  for (size_t at = 0; at < body.size(); at += 65536) client.send_raw(std::string_view{body}.substr(at, 65536));
  client.read_response();
  double seconds = seconds_since(t0);
  done = true;
  prober.join();
  return {seconds, worst};
}

std::unique_ptr<Subject> make(const std::string& name) {
  if (name == "weir") return std::make_unique<WeirSubject>();
  if (name == "httplib") return std::make_unique<HttplibSubject>(0);
  if (name == "httplib-1024") return std::make_unique<HttplibSubject>(1024);
  throw std::invalid_argument("unknown server '" + name + "' (weir, httplib or httplib-1024)");
}

void print_load(const char* what, const UnderLoad& r) {
  std::printf("| %s | %d of %d | %.0f ms%s | %+ld KiB |\n", what, r.answered, r.probes, r.worst_ms,
              r.answered < r.probes ? " (timed out)" : "", r.rss_growth_kib);
}

} // namespace

int main(int argc, char** argv) {
  double seconds = 3;
  std::vector<std::string> servers;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--seconds" && i + 1 < argc) seconds = std::stod(argv[++i]);
    else if (arg == "--server" && i + 1 < argc) servers.push_back(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--seconds S] [--server weir|httplib|httplib-1024]...\n", argv[0]);
      return 2;
    }
  }
  if (servers.empty()) servers = {"weir", "httplib", "httplib-1024"};
  for (const auto& name : servers) {
    std::printf("\n### %s (%s)\n\n", name.c_str(), name == "weir" ? "runtime/rest" : CPPHTTPLIB_VERSION);
    auto subject = make(name);
    std::printf("Process RSS with the server listening: %ld KiB\n\n", rss_kib());
    std::printf("| requests/s | 1 client, kept alive | 8 clients, kept alive | 1 client, a connection each |\n");
    std::printf("| --- | --- | --- | --- |\n");
    double one = keep_alive_rps(subject->port(), 1, seconds);
    double eight = keep_alive_rps(subject->port(), 8, seconds);
    double fresh = fresh_connection_rps(subject->port(), seconds);
    std::printf("| GET /connectors | %.0f | %.0f | %.0f |\n\n", one, eight, fresh);
    std::printf("| held connections | fresh clients answered within 5 s | slowest | server RSS growth |\n");
    std::printf("| --- | --- | --- | --- |\n");
    std::fflush(stdout);
    for (int n : {64, 500}) {
      std::string what = std::to_string(n) + " idle";
      print_load(what.c_str(), with_connections(subject->port(), n, false, seconds));
      std::fflush(stdout);
    }
    for (int n : {100, 1100}) {
      std::string what = std::to_string(n) + " slowloris";
      print_load(what.c_str(), with_connections(subject->port(), n, true, seconds * 2));
      std::fflush(stdout);
    }
    auto [chunked_s, chunked_worst] = tiny_chunks(subject->port());
    std::printf("\nA 24 MB body of one-byte chunks: answered after %.2f s, slowest fresh client meanwhile %.0f ms\n",
                chunked_s, chunked_worst);
    std::printf("\nProcess RSS at the end: %ld KiB\n", rss_kib());
  }
}
