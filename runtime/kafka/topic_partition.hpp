// Topic-partition values shared by the Kafka clients and the actors that wrap them.
// Dependency-free on purpose: actor messages carry these, so CAF serializes them
// through the `inspect` overloads below.
#pragma once

#include <compare>
#include <cstdint>
#include <string>

namespace weir::runtime::kafka {

/// One partition of one topic.
struct TopicPartition {
  std::string topic;
  int32_t partition = -1;

  friend auto operator<=>(const TopicPartition&, const TopicPartition&) = default;
};

/// A partition and an offset. For commits the offset is the next one to read
/// (last processed + 1), which is Kafka's convention.
struct TopicPartitionOffset {
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;

  friend auto operator<=>(const TopicPartitionOffset&, const TopicPartitionOffset&) = default;
};

template <class Inspector>
auto inspect(Inspector& f, TopicPartition& x) {
  return f(x.topic, x.partition);
}

template <class Inspector>
auto inspect(Inspector& f, TopicPartitionOffset& x) {
  return f(x.topic, x.partition, x.offset);
}

} // namespace weir::runtime::kafka
