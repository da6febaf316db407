// Helpers for tests of the plugin SDK as a plugin author uses it: weir installed into
// a temporary directory (`meson install --destdir`), an example built out of tree
// against that installation with pkg-config only, and weir processes that load it.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/http_client.hpp"
#include "tests/support/kafka_tools.hpp"
#include "tests/support/process.hpp"
#include "weir/version.hpp"

namespace weir::testing {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

inline std::string env_path(const char* name) {
  const char* p = std::getenv(name);
  BOOST_REQUIRE_MESSAGE(p && *p, name << " is not set (tests/integration/meson.build sets it)");
  return p;
}

/// Runs a command to its end within `timeout` (killed otherwise); requires exit 0.
/// `env` entries (NAME=value) are added to the test's environment.
inline void run(const std::vector<std::string>& command, const std::vector<std::string>& env,
         const std::string& log, std::chrono::seconds timeout) {
  std::vector<std::string> argv{"/usr/bin/env"};
  argv.insert(argv.end(), env.begin(), env.end());
  argv.insert(argv.end(), command.begin(), command.end());
  std::string line;
  for (const auto& a : command)
    line += a + " ";
  auto t0 = Clock::now();
  ChildProcess child(argv, log);
  auto status = child.wait(timeout);
  BOOST_REQUIRE_MESSAGE(status.has_value(), line << "did not end within " << timeout.count()
                                                 << " s:\n" << tail_lines(child.output()));
  BOOST_REQUIRE_MESSAGE(status->clean(), line << ": " << status->describe() << "\n"
                                              << tail_lines(child.output()));
  BOOST_TEST_MESSAGE(line << "took " << seconds_since(t0) << " s");
}

/// The one file named `name` below `root`; fails the test unless there is exactly one.
inline fs::path find_one(const fs::path& root, const std::string& name) {
  std::vector<fs::path> found;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.path().filename() == name && e.is_regular_file())
      found.push_back(e.path());
  BOOST_REQUIRE_MESSAGE(found.size() == 1, found.size() << " files named " << name << " under "
                                                         << root);
  return found.front();
}

/// A worker properties file with `plugin.path`, state in `dir`.
inline std::string write_worker(const TempDir& dir, const std::string& plugin_path) {
  auto config = worker_config(dir / "state.db");
  config["plugin.path"] = plugin_path;
  auto path = dir / "worker.properties";
  write_properties(path, config);
  return path;
}

inline std::string write_connector(const TempDir& dir, const std::string& name,
                            std::map<std::string, std::string> config) {
  config["name"] = name;
  auto path = dir / (name + ".properties");
  write_properties(path, config);
  return path;
}

/// `weir standalone` with an explicit binary (the installed one, or the build's).
/// LD_LIBRARY_PATH is removed (meson test points it at the build tree's libweir_sdk),
/// so an installed weir runs on the library it finds itself. env execs weir in its
/// own process: the pid is weir's.
inline std::unique_ptr<ChildProcess> start_weir(const std::string& bin, const std::string& worker,
                                         const std::vector<std::string>& connectors,
                                         const std::string& log) {
  std::vector<std::string> argv{"/usr/bin/env", "-u", "LD_LIBRARY_PATH", bin, "standalone", worker};
  argv.insert(argv.end(), connectors.begin(), connectors.end());
  argv.push_back("--progress-interval");
  argv.push_back("1");
  return std::make_unique<ChildProcess>(argv, log);
}

/// The port of weir's REST API (`listeners=http://127.0.0.1:0`), from its log line.
inline uint16_t rest_port(ChildProcess& weir) {
  static const std::regex listening(R"(REST API on http://127\.0\.0\.1:([0-9]+))");
  std::smatch m;
  std::string out;
  wait_until(30s, 50ms, [&] {
    out = weir.output();
    return std::regex_search(out, m, listening) || !weir.running();
  });
  BOOST_REQUIRE_MESSAGE(!m.empty(), "weir did not say where its REST API listens:\n" << tail_lines(out));
  return static_cast<uint16_t>(std::stoi(m[1]));
}

inline std::string http_get(uint16_t port, const std::string& target) {
  weir::runtime::rest::test::TestClient client{port};
  auto response = client.request("GET", target, {});
  BOOST_TEST_MESSAGE("GET " << target << " -> " << response.status << " " << response.body);
  BOOST_TEST(response.status == 200);
  return response.body;
}

/// The path of the mapped file whose name contains `name`, from /proc/PID/maps.
inline std::string mapped(pid_t pid, const std::string& name) {
  auto maps = read_file("/proc/" + std::to_string(pid) + "/maps");
  std::istringstream in(maps);
  std::string line;
  while (std::getline(in, line)) {
    auto slash = line.find('/');
    if (slash != std::string::npos && line.find(name, slash) != std::string::npos)
      return line.substr(slash);
  }
  return {};
}

inline size_t count_lines(const std::string& path) {
  auto text = read_file(path);
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

/// weir installed under a temporary root: its binary and the folder of weir.pc.
struct InstalledWeir {
  std::string bin;
  std::string pkgconfig_dir;
};

/// Installs the build tree (WEIR_BUILD_DIR) under `root` and checks the SDK's files
/// are there.
inline InstalledWeir install_weir(const std::string& root, const std::string& log) {
  run({"meson", "install", "-C", env_path("WEIR_BUILD_DIR"), "--no-rebuild", "--quiet",
       "--skip-subprojects", "--destdir", root},
      {}, log, 120s);
  auto pc = find_one(root, "weir.pc");
  auto sdk_lib = pc.parent_path().parent_path() / ("libweir_sdk.so." + std::to_string(WEIR_SDK_VERSION));
  BOOST_REQUIRE_MESSAGE(fs::exists(sdk_lib), sdk_lib << " was not installed");
  BOOST_REQUIRE(fs::exists(find_one(root, "plugin.hpp")));
  return {find_one(root, "weir").string(), pc.parent_path().string()};
}

/// Builds examples/`example` out of tree in `build_dir` against `weir` (pkg-config
/// only, warnings as errors); returns the path of the shared library `library`.
inline std::string build_example(const InstalledWeir& weir, const std::string& example,
                                 const std::string& build_dir, const std::string& library,
                                 const std::string& log) {
  std::vector<std::string> env{"PKG_CONFIG_PATH=" + weir.pkgconfig_dir};
  run({"meson", "setup", build_dir, env_path("WEIR_SOURCE_DIR") + "/examples/" + example, "-Dwerror=true"},
      env, log, 120s);
  run({"meson", "compile", "-C", build_dir, "-j", "2"}, env, log, 180s);
  auto path = build_dir + "/" + library;
  BOOST_REQUIRE_MESSAGE(fs::exists(path), path << " was not built");
  return path;
}

} // namespace weir::testing
