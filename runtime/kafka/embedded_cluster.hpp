// `bootstrap.servers=embedded`: librdkafka's mock cluster inside this process.
//
// The mock speaks the real Kafka protocol over loopback TCP and keeps everything in
// memory. It is a development convenience (the quickstart demo, fast unit tests):
// no durability, no persistence across restarts, a subset of the protocol (no
// CreateTopics: topics are created here or auto-created with 4 partitions). It is
// never a substitute for the real broker in integration tests.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <string_view>

struct rd_kafka_s;
struct rd_kafka_mock_cluster_s;

namespace weir::runtime::kafka {

/// The process-wide mock cluster, started on first use.
class EmbeddedCluster {
public:
  /// The `bootstrap.servers` value that selects the embedded cluster.
  static constexpr std::string_view keyword = "embedded";

  /// Starts the cluster on the first call (thread-safe). It lives until the process
  /// exits: clients anywhere may still point at it, so it is never torn down.
  static EmbeddedCluster& instance();

  /// Partitions of topics created by create_topic without a count (initially 4,
  /// which is also what the mock gives auto-created topics).
  static void set_default_partitions(int partitions);
  static int default_partitions();

  /// True for "embedded" and for the address of the running embedded cluster.
  static bool is_embedded(std::string_view bootstrap);

  /// The mock brokers' address list ("127.0.0.1:port").
  const std::string& bootstrap() const noexcept { return bootstrap_; }

  /// Creates a topic (replication 1); `partitions <= 0` means default_partitions().
  /// Returns false when it already existed. Throws KafkaError on other failures.
  bool create_topic(const std::string& name, int partitions = 0);

  EmbeddedCluster(const EmbeddedCluster&) = delete;
  EmbeddedCluster& operator=(const EmbeddedCluster&) = delete;

private:
  EmbeddedCluster();

  rd_kafka_s* rk_ = nullptr;
  rd_kafka_mock_cluster_s* mock_ = nullptr;
  std::string bootstrap_;
};

/// A copy of `props` whose `bootstrap.servers=embedded` is replaced by the embedded
/// cluster's address (starting it if needed); other properties are untouched.
std::map<std::string, std::string> resolve_bootstrap(const std::map<std::string, std::string>& props);

} // namespace weir::runtime::kafka
