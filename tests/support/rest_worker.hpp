// A `weir standalone` driven over its REST API, for end-to-end suites: started on a
// free port (read back from its log), called with a small HTTP client.
#pragma once

#include <boost/test/unit_test.hpp>

#include <map>
#include <memory>
#include <regex>
#include <string>
#include <thread>

#include "tests/support/http_client.hpp"
#include "tests/support/kafka_tools.hpp"
#include "tests/support/process.hpp"

namespace weir::testing {

/// A running `weir standalone` with its REST port.
struct RestWorker {
  std::unique_ptr<ChildProcess> process;
  uint16_t port = 0;

  runtime::rest::test::ClientResponse call(std::string_view method, const std::string& target,
                                           std::string_view body = {}) {
    runtime::rest::test::TestClient client{port};
    auto response = client.request(method, target, body);
    BOOST_TEST_MESSAGE(method << " " << target << " -> " << response.status << " " << response.body);
    return response;
  }
};

/// The REST port a starting weir names in its log ("REST API on http://127.0.0.1:PORT"),
/// waiting up to 30 s; 0 if it ends or never says.
inline uint16_t rest_port_of(ChildProcess& process) {
  static const std::regex listening(R"(REST API on http://127\.0\.0\.1:([0-9]+))");
  auto deadline = Clock::now() + std::chrono::seconds{30};
  std::smatch m;
  while (Clock::now() < deadline && process.running()) {
    auto out = process.output();
    if (std::regex_search(out, m, listening))
      return static_cast<uint16_t>(std::stoi(m[1]));
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  return 0;
}

/// `weir standalone` with worker_config() plus `extra` (and `connectors` files),
/// its state and log in `dir`; fails the test unless its REST API comes up.
inline RestWorker start_worker(const TempDir& dir, std::map<std::string, std::string> extra = {},
                               const std::vector<std::string>& connectors = {}) {
  auto config = worker_config(dir.path() + "/state.db");
  for (auto& [k, v] : extra)
    config[k] = v;
  write_properties(dir.path() + "/worker.properties", config);
  RestWorker w;
  w.process = start_standalone(dir.path() + "/worker.properties", connectors, dir.path() + "/weir.log");
  w.port = rest_port_of(*w.process);
  BOOST_REQUIRE_MESSAGE(w.port != 0, "weir did not say where its REST API listens:\n" << w.process->output());
  return w;
}

/// Polls `done` every 100 ms until it holds or `timeout` passes.
template <class F>
bool eventually(F done, std::chrono::seconds timeout) {
  return wait_until(timeout, std::chrono::milliseconds{100}, done);
}

/// Whether a response's body contains `text`.
inline bool has(const runtime::rest::test::ClientResponse& r, const std::string& text) {
  return r.body.find(text) != std::string::npos;
}

} // namespace weir::testing
