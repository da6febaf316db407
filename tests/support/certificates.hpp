// Test certificates made with the openssl command for each run: a CA, and
// certificates it signs (for cluster.tls.* and https listeners).
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <string>

namespace weir::testing {

/// Runs a shell command quietly; fails the test unless it succeeds.
inline void run_quietly(const std::string& command) {
  BOOST_REQUIRE_MESSAGE(std::system((command + " >/dev/null 2>&1").c_str()) == 0, "failed: " << command);
}

/// A self-signed CA: `dir`/`ca`.pem and .key.
inline void make_ca(const std::string& dir, const std::string& ca) {
  run_quietly("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=" + ca + " -keyout " + dir + "/" + ca
              + ".key -out " + dir + "/" + ca + ".pem");
}

/// `dir`/`name`.pem and .key, signed by the CA `ca`; `alt_names` non-empty: its
/// subjectAltName (e.g. "IP:127.0.0.1", which clients such as curl check).
inline void make_cert(const std::string& dir, const std::string& name, const std::string& ca,
                      const std::string& alt_names = {}) {
  auto base = dir + "/" + name;
  run_quietly("openssl req -newkey rsa:2048 -nodes -subj /CN=" + name + " -keyout " + base + ".key -out " + base
              + ".csr");
  std::string extensions;
  if (!alt_names.empty()) {
    std::ofstream(base + ".ext") << "subjectAltName=" << alt_names << "\n";
    extensions = " -extfile " + base + ".ext";
  }
  run_quietly("openssl x509 -req -days 2 -in " + base + ".csr -CA " + dir + "/" + ca + ".pem -CAkey " + dir + "/"
              + ca + ".key -CAcreateserial -out " + base + ".pem" + extensions);
}

} // namespace weir::testing
