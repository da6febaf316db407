#include "runtime/kafka/admin.hpp"

#include "runtime/kafka/embedded_cluster.hpp"

#include <algorithm>
#include <climits>
#include <memory>

namespace weir::runtime::kafka {

namespace {

int clamp_ms(std::chrono::milliseconds timeout) {
  return static_cast<int>(std::clamp<int64_t>(timeout.count(), 0, INT_MAX));
}

HandlePtr admin_client(const Properties& props) {
  if (!props.contains("bootstrap.servers") && !props.contains("metadata.broker.list"))
    throw KafkaError("kafka property 'bootstrap.servers': required");
  auto p = props;
  p.try_emplace("client.id", "weir-admin");
  return make_handle(RD_KAFKA_PRODUCER, make_conf(p));
}

template <class T, void (*Destroy)(T*)>
struct Deleter {
  void operator()(T* x) const noexcept { Destroy(x); }
};
template <class T, void (*Destroy)(T*)>
using Owned = std::unique_ptr<T, Deleter<T, Destroy>>;

void destroy_new_topics(rd_kafka_NewTopic_t* t) { rd_kafka_NewTopic_destroy(t); }

void destroy_partitions(rd_kafka_topic_partition_list_t* l) { rd_kafka_topic_partition_list_destroy(l); }
using PartitionList = Owned<rd_kafka_topic_partition_list_t, destroy_partitions>;

/// Runs one admin request (`call` starts it on the queue) and returns its result
/// event; throws KafkaError naming `what` when it fails or never answers.
template <class Call>
Owned<rd_kafka_event_t, rd_kafka_event_destroy> admin_request(rd_kafka_t* rk, rd_kafka_admin_op_t op,
                                                              std::chrono::milliseconds timeout,
                                                              const std::string& what, Call call) {
  char errstr[512];
  Owned<rd_kafka_queue_t, rd_kafka_queue_destroy> queue{rd_kafka_queue_new(rk)};
  Owned<rd_kafka_AdminOptions_t, rd_kafka_AdminOptions_destroy> options{rd_kafka_AdminOptions_new(rk, op)};
  rd_kafka_AdminOptions_set_request_timeout(options.get(), clamp_ms(timeout), errstr, sizeof errstr);
  call(options.get(), queue.get());
  Owned<rd_kafka_event_t, rd_kafka_event_destroy> event{
    rd_kafka_queue_poll(queue.get(), clamp_ms(timeout + std::chrono::seconds{5}))};
  if (!event)
    throw KafkaError(what + ": no answer from the cluster", RD_KAFKA_RESP_ERR__TIMED_OUT);
  if (auto err = rd_kafka_event_error(event.get()))
    throw KafkaError(what + ": " + rd_kafka_event_error_string(event.get()), err);
  return event;
}

/// The first error of a group result: the group's, then any partition's.
void throw_if_failed(const rd_kafka_group_result_t* group, const std::string& what) {
  if (const auto* error = rd_kafka_group_result_error(group))
    throw KafkaError(what + ": " + rd_kafka_error_string(error), rd_kafka_error_code(error));
  const auto* parts = rd_kafka_group_result_partitions(group);
  for (int i = 0; parts && i < parts->cnt; ++i)
    if (auto err = parts->elems[i].err)
      throw KafkaError(what + ": partition " + parts->elems[i].topic + "-"
                         + std::to_string(parts->elems[i].partition) + ": " + rd_kafka_err2str(err),
                       err);
}

} // namespace

void create_topics(const Properties& props, const std::vector<NewTopic>& topics,
                   std::chrono::milliseconds timeout) {
  if (topics.empty())
    return;
  if (EmbeddedCluster::is_embedded(get_or(props, "bootstrap.servers", ""))) {
    // The mock broker has no CreateTopics API.
    for (const auto& t : topics)
      EmbeddedCluster::instance().create_topic(t.name, t.partitions);
    return;
  }

  auto rk = admin_client(props);
  char errstr[512];
  std::vector<Owned<rd_kafka_NewTopic_t, destroy_new_topics>> owned;
  std::vector<rd_kafka_NewTopic_t*> raw;
  for (const auto& t : topics) {
    auto* nt = rd_kafka_NewTopic_new(t.name.c_str(), t.partitions, t.replication, errstr,
                                     sizeof errstr);
    if (!nt)
      throw KafkaError("create topic '" + t.name + "': " + errstr, RD_KAFKA_RESP_ERR__INVALID_ARG);
    owned.emplace_back(nt);
    raw.push_back(nt);
    for (const auto& [key, value] : t.configs)
      if (auto err = rd_kafka_NewTopic_set_config(nt, key.c_str(), value.c_str()))
        throw KafkaError(describe("create topic '" + t.name + "': config '" + key + "'", err), err);
  }

  Owned<rd_kafka_queue_t, rd_kafka_queue_destroy> queue{rd_kafka_queue_new(rk.get())};
  Owned<rd_kafka_AdminOptions_t, rd_kafka_AdminOptions_destroy> options{
    rd_kafka_AdminOptions_new(rk.get(), RD_KAFKA_ADMIN_OP_CREATETOPICS)};
  rd_kafka_AdminOptions_set_operation_timeout(options.get(), clamp_ms(timeout), errstr, sizeof errstr);
  rd_kafka_AdminOptions_set_request_timeout(options.get(), clamp_ms(timeout), errstr, sizeof errstr);
  rd_kafka_CreateTopics(rk.get(), raw.data(), raw.size(), options.get(), queue.get());

  // A little slack over the request timeout: the result event always comes.
  Owned<rd_kafka_event_t, rd_kafka_event_destroy> event{
    rd_kafka_queue_poll(queue.get(), clamp_ms(timeout + std::chrono::seconds{5}))};
  if (!event)
    throw KafkaError("create topics: no answer from the cluster", RD_KAFKA_RESP_ERR__TIMED_OUT);
  if (auto err = rd_kafka_event_error(event.get()))
    throw KafkaError(std::string("create topics: ") + rd_kafka_event_error_string(event.get()), err);

  size_t count = 0;
  const auto* result = rd_kafka_event_CreateTopics_result(event.get());
  const auto** results = rd_kafka_CreateTopics_result_topics(result, &count);
  std::string failed;
  rd_kafka_resp_err_t first = RD_KAFKA_RESP_ERR_NO_ERROR;
  for (size_t i = 0; i < count; ++i) {
    auto err = rd_kafka_topic_result_error(results[i]);
    if (!err || err == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
      continue;
    const char* msg = rd_kafka_topic_result_error_string(results[i]);
    failed += std::string(failed.empty() ? "" : "; ") + "'" + rd_kafka_topic_result_name(results[i])
              + "': " + (msg ? msg : rd_kafka_err2str(err));
    if (!first)
      first = err;
  }
  if (!failed.empty())
    throw KafkaError("create topics: " + failed, first);
}

namespace {

std::optional<int32_t> partition_count_of(rd_kafka_t* rk, const std::string& topic,
                                          std::chrono::milliseconds timeout) {
  // All topics rather than just this one: a single-topic request may create the
  // topic (the mock cluster does, whatever the request says).
  const rd_kafka_metadata_t* md = nullptr;
  if (auto err = rd_kafka_metadata(rk, 1, nullptr, &md, clamp_ms(timeout)))
    throw KafkaError(describe("metadata for topic '" + topic + "'", err), err);
  std::unique_ptr<const rd_kafka_metadata_t, decltype(&rd_kafka_metadata_destroy)> guard{
    md, &rd_kafka_metadata_destroy};
  for (int i = 0; i < md->topic_cnt; ++i) {
    const auto& t = md->topics[i];
    if (topic != t.topic)
      continue;
    if (t.err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
      return std::nullopt;
    if (t.err)
      throw KafkaError(describe("metadata for topic '" + topic + "'", t.err), t.err);
    return t.partition_cnt;
  }
  return std::nullopt;
}

} // namespace

std::optional<int32_t> partition_count(const Properties& props, const std::string& topic,
                                       std::chrono::milliseconds timeout) {
  return partition_count_of(admin_client(props).get(), topic, timeout);
}

std::optional<int32_t> PartitionCounter::count(const Properties& props, const std::string& topic,
                                               std::chrono::milliseconds timeout) {
  std::lock_guard lock{mutex_};
  if (!rk_ || props != props_) {
    rk_ = admin_client(props);
    props_ = props;
  }
  return partition_count_of(rk_.get(), topic, timeout);
}

std::string cluster_id(const Properties& props, std::chrono::milliseconds timeout) {
  auto rk = admin_client(props);
  char* id = rd_kafka_clusterid(rk.get(), clamp_ms(timeout));
  if (!id)
    throw KafkaError("the cluster id: no broker answered within " + std::to_string(timeout.count()) + " ms",
                     RD_KAFKA_RESP_ERR__TIMED_OUT);
  std::string copy{id};
  rd_kafka_mem_free(rk.get(), id);
  return copy;
}

std::map<std::string, std::string> topic_configs(const Properties& props, const std::string& topic,
                                                 std::chrono::milliseconds timeout) {
  auto rk = admin_client(props);
  const std::string what = "configs of topic '" + topic + "'";
  auto event = admin_request(rk.get(), RD_KAFKA_ADMIN_OP_DESCRIBECONFIGS, timeout, what,
                             [&](rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* queue) {
                               auto* resource = rd_kafka_ConfigResource_new(RD_KAFKA_RESOURCE_TOPIC, topic.c_str());
                               rd_kafka_DescribeConfigs(rk.get(), &resource, 1, options, queue);
                               rd_kafka_ConfigResource_destroy(resource);
                             });
  size_t count = 0;
  const auto** resources = rd_kafka_DescribeConfigs_result_resources(
    rd_kafka_event_DescribeConfigs_result(event.get()), &count);
  std::map<std::string, std::string> out;
  for (size_t r = 0; r < count; ++r) {
    if (auto err = rd_kafka_ConfigResource_error(resources[r])) {
      const char* msg = rd_kafka_ConfigResource_error_string(resources[r]);
      throw KafkaError(what + ": " + (msg && *msg ? msg : rd_kafka_err2str(err)), err);
    }
    size_t entries = 0;
    const auto** configs = rd_kafka_ConfigResource_configs(resources[r], &entries);
    for (size_t i = 0; i < entries; ++i)
      if (const char* value = rd_kafka_ConfigEntry_value(configs[i]))
        out.emplace(rd_kafka_ConfigEntry_name(configs[i]), value);
  }
  return out;
}

std::vector<TopicPartitionOffset> group_offsets(const Properties& props, const std::string& group,
                                                std::chrono::milliseconds timeout) {
  auto rk = admin_client(props);
  const std::string what = "committed offsets of group '" + group + "'";
  auto event = admin_request(rk.get(), RD_KAFKA_ADMIN_OP_LISTCONSUMERGROUPOFFSETS, timeout, what,
                             [&](rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* queue) {
                               auto* request = rd_kafka_ListConsumerGroupOffsets_new(group.c_str(), nullptr);
                               rd_kafka_ListConsumerGroupOffsets(rk.get(), &request, 1, options, queue);
                               rd_kafka_ListConsumerGroupOffsets_destroy(request);
                             });
  size_t count = 0;
  const auto** groups = rd_kafka_ListConsumerGroupOffsets_result_groups(
    rd_kafka_event_ListConsumerGroupOffsets_result(event.get()), &count);
  std::vector<TopicPartitionOffset> out;
  for (size_t g = 0; g < count; ++g) {
    throw_if_failed(groups[g], what);
    const auto* parts = rd_kafka_group_result_partitions(groups[g]);
    for (int i = 0; parts && i < parts->cnt; ++i)
      if (parts->elems[i].offset >= 0)
        out.push_back({parts->elems[i].topic, parts->elems[i].partition, parts->elems[i].offset});
  }
  return out;
}

void alter_group_offsets(const Properties& props, const std::string& group,
                         const std::vector<TopicPartitionOffset>& offsets,
                         std::chrono::milliseconds timeout) {
  if (offsets.empty())
    return;
  auto rk = admin_client(props);
  PartitionList list{rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size()))};
  for (const auto& o : offsets)
    rd_kafka_topic_partition_list_add(list.get(), o.topic.c_str(), o.partition)->offset = o.offset;
  const std::string what = "alter the offsets of group '" + group + "'";
  auto event = admin_request(rk.get(), RD_KAFKA_ADMIN_OP_ALTERCONSUMERGROUPOFFSETS, timeout, what,
                             [&](rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* queue) {
                               auto* request = rd_kafka_AlterConsumerGroupOffsets_new(group.c_str(), list.get());
                               rd_kafka_AlterConsumerGroupOffsets(rk.get(), &request, 1, options, queue);
                               rd_kafka_AlterConsumerGroupOffsets_destroy(request);
                             });
  size_t count = 0;
  const auto** groups = rd_kafka_AlterConsumerGroupOffsets_result_groups(
    rd_kafka_event_AlterConsumerGroupOffsets_result(event.get()), &count);
  for (size_t g = 0; g < count; ++g)
    throw_if_failed(groups[g], what);
}

void delete_group_offsets(const Properties& props, const std::string& group,
                          const std::vector<TopicPartition>& partitions,
                          std::chrono::milliseconds timeout) {
  if (partitions.empty())
    return;
  auto rk = admin_client(props);
  PartitionList list{rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size()))};
  for (const auto& p : partitions)
    rd_kafka_topic_partition_list_add(list.get(), p.topic.c_str(), p.partition);
  const std::string what = "delete the offsets of group '" + group + "'";
  auto event = admin_request(rk.get(), RD_KAFKA_ADMIN_OP_DELETECONSUMERGROUPOFFSETS, timeout, what,
                             [&](rd_kafka_AdminOptions_t* options, rd_kafka_queue_t* queue) {
                               auto* request = rd_kafka_DeleteConsumerGroupOffsets_new(group.c_str(), list.get());
                               rd_kafka_DeleteConsumerGroupOffsets(rk.get(), &request, 1, options, queue);
                               rd_kafka_DeleteConsumerGroupOffsets_destroy(request);
                             });
  size_t count = 0;
  const auto** groups = rd_kafka_DeleteConsumerGroupOffsets_result_groups(
    rd_kafka_event_DeleteConsumerGroupOffsets_result(event.get()), &count);
  for (size_t g = 0; g < count; ++g)
    throw_if_failed(groups[g], what);
}

} // namespace weir::runtime::kafka
