#include "runtime/kafka/embedded_cluster.hpp"

#include "runtime/kafka/client_config.hpp"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <atomic>

namespace weir::runtime::kafka {

namespace {

std::atomic<int> default_partition_count{4};
std::atomic<EmbeddedCluster*> running{nullptr};

} // namespace

EmbeddedCluster::EmbeddedCluster() {
  // The mock needs a client handle for its bookkeeping; this one does nothing else.
  // No bootstrap.servers on purpose: log_level 4 hides the notice about it.
  auto conf = make_conf({{"client.id", "weir-embedded-cluster"}, {"log_level", "4"}});
  auto handle = make_handle(RD_KAFKA_PRODUCER, std::move(conf));
  mock_ = rd_kafka_mock_cluster_new(handle.get(), 1);
  if (!mock_)
    throw KafkaError("cannot start the embedded kafka cluster");
  rk_ = handle.release();
  bootstrap_ = rd_kafka_mock_cluster_bootstraps(mock_);
}

EmbeddedCluster& EmbeddedCluster::instance() {
  // Deliberately leaked: destroying the mock at exit would race with clients that
  // other static objects may still hold.
  static EmbeddedCluster* cluster = [] {
    auto* c = new EmbeddedCluster();
    running.store(c);
    return c;
  }();
  return *cluster;
}

void EmbeddedCluster::set_default_partitions(int partitions) {
  if (partitions <= 0)
    throw KafkaError("embedded cluster: default partitions must be positive");
  default_partition_count.store(partitions);
}

int EmbeddedCluster::default_partitions() { return default_partition_count.load(); }

bool EmbeddedCluster::is_embedded(std::string_view bootstrap) {
  if (bootstrap == keyword)
    return true;
  auto* c = running.load();
  return c && bootstrap == c->bootstrap_;
}

bool EmbeddedCluster::create_topic(const std::string& name, int partitions) {
  if (partitions <= 0)
    partitions = default_partitions();
  auto err = rd_kafka_mock_topic_create(mock_, name.c_str(), partitions, 1);
  if (err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
    return false;
  if (err)
    throw KafkaError(describe("embedded cluster: cannot create topic '" + name + "'", err), err);
  return true;
}

std::map<std::string, std::string> resolve_bootstrap(const std::map<std::string, std::string>& props) {
  auto out = props;
  auto it = out.find("bootstrap.servers");
  if (it != out.end() && it->second == EmbeddedCluster::keyword)
    it->second = EmbeddedCluster::instance().bootstrap();
  return out;
}

} // namespace weir::runtime::kafka
