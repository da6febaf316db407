// The few admin operations weir needs: create topics, count partitions, read a
// topic's configs.
// Each call opens a short-lived client; these are setup paths, not hot ones.
#pragma once

#include "runtime/kafka/client_config.hpp"

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/kafka/topic_partition.hpp"

namespace weir::runtime::kafka {

/// A topic to create. -1 for partitions or replication means the broker's default.
struct NewTopic {
  std::string name;
  int32_t partitions = -1;
  int16_t replication = -1;
  /// Topic configs (cleanup.policy=compact, ...); the broker's defaults for the rest.
  std::map<std::string, std::string> configs = {};
};

/// Creates `topics` (an existing topic is not an error, and keeps its configs) and
/// waits up to `timeout` for the broker to confirm. On the embedded cluster, creates
/// them there directly, without their configs (the mock broker has none). Throws
/// KafkaError naming each topic that failed.
void create_topics(const Properties& props, const std::vector<NewTopic>& topics,
                   std::chrono::milliseconds timeout = std::chrono::seconds{30});

/// The offsets `group` has committed, every partition of it (a sink connector's are
/// the group connect-NAME's). Throws KafkaError when the cluster does not answer.
std::vector<TopicPartitionOffset> group_offsets(const Properties& props, const std::string& group,
                                                std::chrono::milliseconds timeout);
/// Commits `offsets` for `group`, which must have no active member (Kafka refuses
/// otherwise: the KafkaError says so).
void alter_group_offsets(const Properties& props, const std::string& group,
                         const std::vector<TopicPartitionOffset>& offsets,
                         std::chrono::milliseconds timeout);
/// Forgets the committed offsets of `partitions` for `group` (a consumer of it then
/// starts at auto.offset.reset).
void delete_group_offsets(const Properties& props, const std::string& group,
                          const std::vector<TopicPartition>& partitions,
                          std::chrono::milliseconds timeout);

/// The topic's partition count from cluster metadata; std::nullopt when the topic
/// does not exist. Throws KafkaError when the metadata cannot be fetched.
std::optional<int32_t> partition_count(const Properties& props, const std::string& topic,
                                       std::chrono::milliseconds timeout = std::chrono::seconds{10});

/// Partition counts (as partition_count) from one client kept between lookups: a
/// new client costs a connection and its threads, most of a sink connector's
/// creation. A lookup with other client properties replaces the client. Thread-safe.
class PartitionCounter {
public:
  std::optional<int32_t> count(const Properties& props, const std::string& topic,
                               std::chrono::milliseconds timeout = std::chrono::seconds{10});

private:
  std::mutex mutex_;
  Properties props_;
  HandlePtr rk_;
};

/// The cluster's id from the broker's metadata (Kafka Connect's kafka_cluster_id).
/// Throws KafkaError when no broker answers within `timeout`.
std::string cluster_id(const Properties& props, std::chrono::milliseconds timeout);

/// The topic's configs as the broker reports them (DescribeConfigs): every config,
/// defaults included; a null value is left out. Throws KafkaError, also when the
/// topic does not exist.
std::map<std::string, std::string> topic_configs(const Properties& props, const std::string& topic,
                                                 std::chrono::milliseconds timeout = std::chrono::seconds{10});

} // namespace weir::runtime::kafka
