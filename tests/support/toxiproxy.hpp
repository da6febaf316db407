// Toxiproxy (github.com/Shopify/toxiproxy/v2) for network fault tests: a
// toxiproxy-server of the test's own on a free loopback port, driven over its HTTP API
// with cpp-httplib. A proxy listens on one loopback port and forwards to another;
// toxics slow it (latency, bandwidth), reset its connections, or the proxy is disabled
// altogether (its connections closed, new ones refused): a cut.
//
// The binary comes from weir::ensure_toxiproxy in scripts/lib.sh ($WEIR_SCRIPTS_DIR,
// set by tests/integration/meson.build), which builds it once with `go install`;
// scripts/test.sh runs it up front, so a test only finds the path. The server is
// killed with the test (ChildProcess), its log kept in the test's directory.
#pragma once

#include "tests/support/ports.hpp"
#include "tests/support/process.hpp"

#include <boost/test/unit_test.hpp>
#include <httplib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace weir::testing {

class Toxiproxy {
public:
  /// Starts toxiproxy-server on 127.0.0.1 (a free port), logging to `log`, and waits
  /// until its API answers; fails the test when it cannot.
  explicit Toxiproxy(const std::string& log) : port_(free_ports(1)[0]) {
    process_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{server_path(), "-host", "127.0.0.1", "-port", std::to_string(port_)}, log);
    bool up = wait_until(std::chrono::seconds{20}, std::chrono::milliseconds{50}, [&] {
      return !process_->running() || client().Get("/version");
    });
    BOOST_REQUIRE_MESSAGE(up && process_->running(), "toxiproxy-server did not answer on 127.0.0.1:"
                                                         << port_ << ":\n" << process_->output());
  }

  /// A proxy `name` from 127.0.0.1:`listen` to 127.0.0.1:`upstream`, enabled.
  void create(const std::string& name, uint16_t listen, uint16_t upstream) {
    call("POST", "/proxies",
         R"({"name":")" + name + R"(","listen":"127.0.0.1:)" + std::to_string(listen)
             + R"(","upstream":"127.0.0.1:)" + std::to_string(upstream) + R"(","enabled":true})");
  }

  /// Enables or disables proxy `name`; disabling closes its connections and stops it
  /// listening (clients see connections refused).
  void set_enabled(const std::string& name, bool enabled) {
    call("POST", "/proxies/" + name, enabled ? R"({"enabled":true})" : R"({"enabled":false})");
  }

  /// Adds toxic `toxic` of `type` (latency, bandwidth, reset_peer, timeout, ...) on the
  /// `stream` (upstream: client to server; downstream: server to client) of proxy
  /// `name`, with `attributes` as a JSON object, e.g. {"latency":500}.
  void add_toxic(const std::string& name, const std::string& toxic, const std::string& type,
                 const std::string& stream, const std::string& attributes) {
    call("POST", "/proxies/" + name + "/toxics",
         R"({"name":")" + toxic + R"(","type":")" + type + R"(","stream":")" + stream
             + R"(","toxicity":1.0,"attributes":)" + attributes + "}");
  }

  void remove_toxic(const std::string& name, const std::string& toxic) {
    call("DELETE", "/proxies/" + name + "/toxics/" + toxic, "");
  }

  uint16_t port() const noexcept { return port_; }

private:
  static std::string server_path() {
    const char* scripts = std::getenv("WEIR_SCRIPTS_DIR");
    BOOST_REQUIRE_MESSAGE(scripts && *scripts, "WEIR_SCRIPTS_DIR is not set (meson test sets it)");
    std::string command = "bash -c '. \"$0\"/lib.sh && weir::ensure_toxiproxy' '" + std::string{scripts} + "'";
    std::unique_ptr<FILE, int (*)(FILE*)> out{::popen(command.c_str(), "r"), ::pclose};
    BOOST_REQUIRE_MESSAGE(out, "cannot run " << command);
    std::string path;
    char buf[4096];
    while (auto n = std::fread(buf, 1, sizeof buf, out.get()))
      path.append(buf, n);
    int rc = ::pclose(out.release());
    while (!path.empty() && (path.back() == '\n' || path.back() == '\r'))
      path.pop_back();
    if (auto nl = path.rfind('\n'); nl != std::string::npos)
      path.erase(0, nl + 1);
    BOOST_REQUIRE_MESSAGE(rc == 0 && !path.empty(), "weir::ensure_toxiproxy failed (exit " << rc << ")");
    return path;
  }

  httplib::Client client() const {
    httplib::Client c{"127.0.0.1", port_};
    c.set_connection_timeout(5);
    c.set_read_timeout(10);
    return c;
  }

  void call(const std::string& method, const std::string& path, const std::string& body) {
    auto c = client();
    auto r = method == "DELETE" ? c.Delete(path) : c.Post(path, body, "application/json");
    BOOST_REQUIRE_MESSAGE(r, "toxiproxy " << method << " " << path << ": " << httplib::to_string(r.error()));
    BOOST_REQUIRE_MESSAGE(r->status >= 200 && r->status < 300,
                          "toxiproxy " << method << " " << path << " " << body << " -> " << r->status << " "
                                       << r->body);
    BOOST_TEST_MESSAGE("toxiproxy " << method << " " << path << " " << body << " -> " << r->status);
  }

  uint16_t port_;
  std::unique_ptr<ChildProcess> process_;
};

} // namespace weir::testing
