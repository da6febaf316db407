// Topic-partition values shared by the Kafka clients and the actors that wrap them.
// Dependency-free on purpose: actor messages carry these, so CAF serializes them
// through the `inspect` overloads below.
#pragma once

#include <algorithm>
#include <compare>
#include <cstdint>
#include <string>
#include <vector>

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

/// How far a partition's consumption is behind its high watermark.
struct PartitionLag {
  std::string topic;
  int32_t partition = -1;
  int64_t lag = -1; ///< -1 until both the watermark and the position are known

  friend bool operator==(const PartitionLag&, const PartitionLag&) = default;
};

/// Whether two values (TopicPartition, TopicPartitionOffset, ...) name the same
/// partition.
template <class A, class B>
bool same_partition(const A& a, const B& b) {
  return a.partition == b.partition && a.topic == b.topic;
}

/// Records `o` in `offsets`, one entry per partition, keeping the highest offset.
inline void merge_offset(std::vector<TopicPartitionOffset>& offsets, const TopicPartitionOffset& o) {
  auto it = std::find_if(offsets.begin(), offsets.end(), [&](const auto& x) { return same_partition(x, o); });
  if (it == offsets.end())
    offsets.push_back(o);
  else
    it->offset = std::max(it->offset, o.offset);
}

template <class Inspector>
auto inspect(Inspector& f, TopicPartition& x) {
  return f(x.topic, x.partition);
}

template <class Inspector>
auto inspect(Inspector& f, TopicPartitionOffset& x) {
  return f(x.topic, x.partition, x.offset);
}

template <class Inspector>
auto inspect(Inspector& f, PartitionLag& x) {
  return f(x.topic, x.partition, x.lag);
}

} // namespace weir::runtime::kafka
