// A Kafka broker of one test's own, for suites that crash, cut or slow it: run by
// scripts/kafka.sh ($WEIR_KAFKA_SCRIPT, set by tests/integration/meson.build) on free
// ports with its state in a temporary directory, never the shared broker of
// scripts/test.sh. Constructing it points WEIR_KAFKA_BOOTSTRAP (the helpers of
// kafka_tools.hpp) at its direct listener.
//
// With a proxy port, the broker also opens a PROXIED listener whose advertised address
// is 127.0.0.1:PROXY_PORT: clients that bootstrap there reach it only through whatever
// forwards PROXY_PORT to proxied_port() (a Toxiproxy proxy), while the test's own
// clients and the broker's internal traffic stay direct.
#pragma once

#include "tests/support/kafka_tools.hpp"
#include "tests/support/ports.hpp"
#include "tests/support/process.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace weir::testing {

class OwnBroker {
public:
  /// Starts the broker (waits until it answers); fails the test when it cannot.
  explicit OwnBroker(std::optional<uint16_t> proxy_port = std::nullopt) {
    const char* script = std::getenv("WEIR_KAFKA_SCRIPT");
    BOOST_REQUIRE_MESSAGE(script && *script, "WEIR_KAFKA_SCRIPT is not set (meson test sets it)");
    auto ports = free_ports(3);
    proxied_port_ = ports[2];
    command_ = "WEIR_KAFKA_PORT=" + std::to_string(ports[0]) + " WEIR_KAFKA_CONTROLLER_PORT="
               + std::to_string(ports[1]) + " WEIR_KAFKA_DIR=" + dir_.path();
    if (proxy_port)
      command_ += " WEIR_KAFKA_PROXY_PORT=" + std::to_string(*proxy_port)
                  + " WEIR_KAFKA_PROXIED_PORT=" + std::to_string(proxied_port_);
    command_ += " " + std::string{script} + " ";
    address_ = "127.0.0.1:" + std::to_string(ports[0]);
    run("start");
    ::setenv("WEIR_KAFKA_BOOTSTRAP", address_.c_str(), 1);
  }
  ~OwnBroker() {
    std::system((command_ + "stop >&2").c_str());
    if (current_test_failing()) dir_.keep();
  }
  OwnBroker(const OwnBroker&) = delete;
  OwnBroker& operator=(const OwnBroker&) = delete;

  /// Runs `scripts/kafka.sh COMMAND` on this broker; fails the test when it fails.
  void run(const std::string& command) {
    auto t0 = Clock::now();
    int rc = std::system((command_ + command + " >&2").c_str());
    BOOST_REQUIRE_MESSAGE(rc == 0, "scripts/kafka.sh " << command << " failed (logs in " << dir_.path() << ")");
    BOOST_TEST_MESSAGE("kafka.sh " << command << " took " << seconds_since(t0) << " s");
  }

  /// The direct listener, 127.0.0.1:PORT.
  const std::string& address() const noexcept { return address_; }
  /// The PROXIED listener's own port (the upstream of the proxy); meaningful only
  /// when a proxy port was given.
  uint16_t proxied_port() const noexcept { return proxied_port_; }

private:
  TempDir dir_{"weir-itest-broker"};
  std::string command_, address_;
  uint16_t proxied_port_ = 0;
};

} // namespace weir::testing
