#include "engine/pipeline/source_offsets_topic.hpp"

#include <memory>
#include <vector>

#include "runtime/convert/json_text.hpp"
#include "runtime/kafka/admin.hpp"

namespace weir::engine::pipeline {

namespace {

std::string key_prefix(std::string_view connector) {
  std::string k = "[";
  convert::append_json_string(connector, k);
  k += ',';
  return k;
}

struct ListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* l) const noexcept {
    rd_kafka_topic_partition_list_destroy(l);
  }
};

} // namespace

std::string offset_record_key(std::string_view connector, std::string_view partition) {
  auto k = key_prefix(connector);
  k += partition;
  k += ']';
  return k;
}

std::string_view partition_of_key(std::string_view key, std::string_view connector) {
  auto prefix = key_prefix(connector);
  if (!key.starts_with(prefix) || !key.ends_with(']') || key.size() <= prefix.size() + 1)
    return {};
  return key.substr(prefix.size(), key.size() - prefix.size() - 1);
}

OffsetMap read_offsets_topic(const kafka::Properties& props, const std::string& topic,
                             std::string_view connector, std::chrono::milliseconds timeout) {
  auto partitions = kafka::partition_count(props, topic, timeout);
  OffsetMap out;
  if (!partitions || *partitions <= 0)
    return out;
  auto p = props;
  p["group.id"] = "weir-offsets-reader"; // never joins or commits: partitions are assigned
  p["isolation.level"] = "read_committed";
  p["enable.partition.eof"] = "true";
  p["enable.auto.commit"] = "false";
  auto rk = kafka::make_handle(RD_KAFKA_CONSUMER, kafka::make_conf(p));
  rd_kafka_poll_set_consumer(rk.get());
  std::unique_ptr<rd_kafka_topic_partition_list_t, ListDeleter> list{
    rd_kafka_topic_partition_list_new(*partitions)};
  for (int32_t i = 0; i < *partitions; ++i)
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), i)->offset =
      RD_KAFKA_OFFSET_BEGINNING;
  if (auto err = rd_kafka_assign(rk.get(), list.get()))
    throw kafka::KafkaError(kafka::describe("offsets topic " + topic + ": assign", err), err);
  std::vector<bool> at_end(static_cast<size_t>(*partitions), false);
  int32_t ended = 0;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (ended < *partitions) {
    if (std::chrono::steady_clock::now() >= deadline)
      throw kafka::KafkaError("offsets topic " + topic + ": not read to its end within "
                              + std::to_string(timeout.count()) + " ms");
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk.get(), 200);
    if (!m)
      continue;
    std::unique_ptr<rd_kafka_message_t, void (*)(rd_kafka_message_t*)> msg{m, rd_kafka_message_destroy};
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      auto i = static_cast<size_t>(m->partition);
      if (i < at_end.size() && !at_end[i]) {
        at_end[i] = true;
        ++ended;
      }
      continue;
    }
    if (m->err)
      throw kafka::KafkaError(kafka::describe("offsets topic " + topic, m->err), m->err);
    if (!m->key)
      continue;
    auto partition = partition_of_key({static_cast<const char*>(m->key), m->key_len}, connector);
    if (partition.empty())
      continue;
    if (m->payload)
      out.insert_or_assign(std::string{partition},
                           std::string{static_cast<const char*>(m->payload), m->len});
    else
      out.erase(std::string{partition});
  }
  rd_kafka_consumer_close(rk.get());
  return out;
}

} // namespace weir::engine::pipeline
