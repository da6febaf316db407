#include "engine/pipeline/topic_creation.hpp"

#include <algorithm>

#include "runtime/config/convert.hpp"
#include "weir/config.hpp"

namespace weir::engine::pipeline {

namespace {

using StringMap = std::map<std::string, std::string>;

/// The list under `key` (empty when absent), split as ConfigDef splits lists.
std::vector<std::string> list_of(const StringMap& c, const std::string& key) {
  auto it = c.find(key);
  if (it == c.end())
    return {};
  std::string reason;
  return std::get<std::vector<std::string>>(*convert(ConfigType::List, it->second, reason));
}

/// A partition count or replication factor: -1 (the broker's default) or positive.
int64_t count(const StringMap& c, const std::string& key, int64_t fallback, std::string_view what) {
  auto it = c.find(key);
  if (it == c.end())
    return fallback;
  std::string reason;
  auto n = convert(ConfigType::Int, it->second, reason);
  if (n && (std::get<int32_t>(*n) == 0 || std::get<int32_t>(*n) < -1))
    reason = what;
  if (!reason.empty())
    throw ConfigError(key, invalid_value_message(key, it->second, reason));
  return std::get<int32_t>(*n);
}

std::vector<transforms::JavaRegex> patterns(const StringMap& c, const std::string& key) {
  std::vector<transforms::JavaRegex> out;
  for (const auto& text : list_of(c, key)) {
    transforms::JavaRegex re;
    if (auto why = re.compile(text); !why.empty())
      throw ConfigError(key, invalid_value_message(key, text, "not a valid regular expression: " + why));
    out.push_back(std::move(re));
  }
  return out;
}

constexpr std::string_view partitions_doc = "Number of partitions must be positive, or -1 to use the broker's default";
constexpr std::string_view replication_doc =
    "Replication factor must be positive and not larger than the number of brokers in the Kafka cluster, or -1 "
    "to use the broker's default";

} // namespace

bool TopicCreationGroup::matches(std::string_view topic) const {
  auto hit = [topic](const transforms::JavaRegex& re) { return re.matches(topic); };
  return std::any_of(include.begin(), include.end(), hit) && std::none_of(exclude.begin(), exclude.end(), hit);
}

std::optional<TopicCreation> TopicCreation::parse(const StringMap& c, bool worker_enabled) {
  const std::string p(prefix);
  bool used = std::any_of(c.begin(), c.end(), [&](const auto& kv) { return kv.first.starts_with(p); });
  if (!worker_enabled || !used)
    return std::nullopt;
  for (const char* required : {"default.replication.factor", "default.partitions"})
    if (!c.contains(p + required))
      throw ConfigError(p + required, "Missing required configuration \"" + p + required +
                                          "\" which has no default value.");
  auto replication = count(c, p + "default.replication.factor", -1, replication_doc);
  if (replication > 32767)
    throw ConfigError(p + "default.replication.factor",
                      invalid_value_message(p + "default.replication.factor", std::to_string(replication),
                                            replication_doc));
  auto partitions = count(c, p + "default.partitions", -1, partitions_doc);

  std::vector<std::string> names;
  for (auto& name : list_of(c, p + "groups"))
    if (name != "default" && std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(std::move(name));
  names.emplace_back("default");

  TopicCreation out;
  for (const auto& name : names) {
    const std::string g = p + name + ".";
    TopicCreationGroup group;
    group.name = name;
    if (name == "default") {
      group.include.emplace_back();
      group.include.back().compile(".*");
    } else {
      group.include = patterns(c, g + "include");
      group.exclude = patterns(c, g + "exclude");
    }
    group.partitions = static_cast<int32_t>(count(c, g + "partitions", partitions, partitions_doc));
    group.replication = static_cast<int16_t>(count(c, g + "replication.factor", replication, replication_doc));
    for (const auto& [key, value] : c) {
      if (!key.starts_with(g))
        continue;
      std::string config = key.substr(g.size());
      if (config != "include" && config != "exclude" && config != "partitions" && config != "replication.factor")
        group.configs[config] = value;
    }
    out.groups_.push_back(std::move(group));
  }
  // Keys of groups that topic.creation.groups does not list are a mistake the user
  // would not otherwise notice.
  for (const auto& [key, value] : c) {
    if (!key.starts_with(p) || key == p + "groups")
      continue;
    std::string_view rest = std::string_view(key).substr(p.size());
    std::string_view group = rest.substr(0, rest.find('.'));
    if (std::find(names.begin(), names.end(), group) == names.end())
      throw ConfigError(key, "Configuration " + key + " names the topic creation group '" + std::string(group) +
                                 "', which " + p + "groups does not list");
  }
  return out;
}

kafka::NewTopic TopicCreation::new_topic(const std::string& topic) const {
  for (const auto& g : groups_)
    if (g.matches(topic))
      return {topic, g.partitions, g.replication, g.configs};
  return {topic}; // unreachable: the default group matches every topic
}

void TopicCreator::ensure(const data::DecodedBatch& batch) {
  std::string_view last;
  for (uint32_t i = 0; i < batch.size(); ++i) {
    const auto& rec = batch[i];
    if (!rec.live() || rec.topic == last)
      continue;
    last = rec.topic;
    std::string topic(rec.topic);
    if (known_.contains(topic))
      continue;
    kafka::create_topics(admin_props_, {creation_.new_topic(topic)});
    known_.insert(std::move(topic));
  }
}

} // namespace weir::engine::pipeline
