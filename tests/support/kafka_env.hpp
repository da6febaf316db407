// Where the integration tests find the real Kafka broker.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>

namespace weir::testing {

/// The broker's bootstrap address from WEIR_KAFKA_BOOTSTRAP (scripts/test.sh sets
/// it). Fails the calling test when the variable is missing: an integration test
/// never skips, and never falls back to the embedded mock cluster.
inline std::string kafka_bootstrap() {
  const char* address = std::getenv("WEIR_KAFKA_BOOTSTRAP");
  BOOST_REQUIRE_MESSAGE(address && *address,
                        "WEIR_KAFKA_BOOTSTRAP is not set: this test needs a real Kafka broker "
                        "(scripts/kafka.sh start prints its address; export it as "
                        "WEIR_KAFKA_BOOTSTRAP, or run scripts/test.sh)");
  return address;
}

} // namespace weir::testing
