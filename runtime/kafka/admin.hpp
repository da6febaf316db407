// The few admin operations weir needs: create topics, count partitions.
// Each call opens a short-lived client; these are setup paths, not hot ones.
#pragma once

#include "runtime/kafka/client_config.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace weir::runtime::kafka {

/// A topic to create. -1 for partitions or replication means the broker's default.
struct NewTopic {
  std::string name;
  int32_t partitions = -1;
  int16_t replication = -1;
};

/// Creates `topics` (an existing topic is not an error) and waits up to `timeout`
/// for the broker to confirm. On the embedded cluster, creates them there
/// directly. Throws KafkaError naming each topic that failed.
void create_topics(const Properties& props, const std::vector<NewTopic>& topics,
                   std::chrono::milliseconds timeout = std::chrono::seconds{30});

/// The topic's partition count from cluster metadata; std::nullopt when the topic
/// does not exist. Throws KafkaError when the metadata cannot be fetched.
std::optional<int32_t> partition_count(const Properties& props, const std::string& topic,
                                       std::chrono::milliseconds timeout = std::chrono::seconds{10});

} // namespace weir::runtime::kafka
