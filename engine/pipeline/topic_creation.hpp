// Topic creation for source connectors, as Kafka Connect does it (KIP-158): a source
// task creates each topic it writes to before the topic's first record, with the
// partitions, replication factor and topic configs of the first
// `topic.creation.groups` group that includes the topic and does not exclude it, or
// else of the `default` group.
//
// Keys (connector): topic.creation.groups (list), topic.creation.default.partitions and
// topic.creation.default.replication.factor (-1: the broker's default; both required
// once any topic.creation key is set), and per group GROUP:
// topic.creation.GROUP.include / .exclude (lists of Java regexes, exclude wins),
// .partitions / .replication.factor (the default group's when absent), and any other
// topic.creation.GROUP.NAME as the topic config NAME (cleanup.policy, ...).
// Worker: topic.creation.enable (default true); false turns it off for every connector.
// A topic that exists already is left as it is.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "runtime/data/decoded_batch.hpp"
#include "runtime/kafka/admin.hpp"
#include "weir/config.hpp"
#include "transforms/java_regex.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::pipeline {

/// One `topic.creation` group.
struct TopicCreationGroup {
  std::string name;
  std::vector<transforms::JavaRegex> include, exclude;
  int32_t partitions = -1;
  int16_t replication = -1;
  std::map<std::string, std::string> configs;

  /// Included by a pattern and excluded by none (the whole name must match).
  bool matches(std::string_view topic) const;
};

class TopicCreation {
public:
  /// The prefix of every connector key of topic creation.
  static constexpr std::string_view prefix = "topic.creation.";

  /// The connector's groups; std::nullopt when it creates no topics (`worker_enabled`
  /// false, or no topic.creation key set). Throws ConfigError naming the key (a
  /// missing default, a bad count, a pattern that does not compile).
  static std::optional<TopicCreation> parse(const std::map<std::string, std::string>& connector,
                                            bool worker_enabled);

  /// The topic to create for `topic`, from its group.
  kafka::NewTopic new_topic(const std::string& topic) const;

private:
  std::vector<TopicCreationGroup> groups_; ///< as listed; the default group last
};

/// Creates the topics of a source task's records before their first record reaches
/// the producer. One admin request per topic the task has not written to before.
class TopicCreator {
public:
  TopicCreator(TopicCreation creation, kafka::Properties admin_props)
    : creation_(std::move(creation)), admin_props_(std::move(admin_props)) {}

  /// Creates the topics of `batch`'s live records that this task has not seen yet.
  /// Throws kafka::KafkaError when one cannot be created (the task fails, as in Kafka
  /// Connect).
  void ensure(const data::DecodedBatch& batch);

private:
  TopicCreation creation_;
  kafka::Properties admin_props_;
  std::unordered_set<std::string> known_;
};

} // namespace weir::engine::pipeline
