// The bench tools' librdkafka clients: a config from key/value pairs, and a consumer
// subscribed to one topic. Any error is the tool's misuse or a broker it cannot reach:
// it is printed with the tool's name and the tool exits 2.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <utility>

#include <librdkafka/rdkafka.h>

namespace bench {

using DeliveryReport = void (*)(rd_kafka_t*, const rd_kafka_message_t*, void*);

/// A client of `type` with `settings` (a producer's delivery reports go to
/// `on_delivery`, if given); exits 2 with `tool`'s name on a bad setting.
inline rd_kafka_t* rdkafka_client(const char* tool, rd_kafka_type_t type,
                                  std::initializer_list<std::pair<const char*, std::string>> settings,
                                  DeliveryReport on_delivery = nullptr) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  if (on_delivery)
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  for (const auto& [key, value] : settings) {
    if (rd_kafka_conf_set(conf, key, value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      std::fprintf(stderr, "%s: %s\n", tool, err);
      std::exit(2);
    }
  }
  rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof err);
  if (!rk) {
    std::fprintf(stderr, "%s: %s\n", tool, err);
    std::exit(2);
  }
  return rk;
}

/// A consumer with `settings` (group.id among them), subscribed to `topic`; its
/// messages come from rd_kafka_consumer_poll or the consumer queue.
inline rd_kafka_t* subscribed_consumer(const char* tool, const std::string& topic,
                                       std::initializer_list<std::pair<const char*, std::string>> settings) {
  rd_kafka_t* rk = rdkafka_client(tool, RD_KAFKA_CONSUMER, settings);
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_partition_list_t* topics = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(topics, topic.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_subscribe(rk, topics);
  rd_kafka_topic_partition_list_destroy(topics);
  return rk;
}

} // namespace bench
