// task_client_props: the Java client's property names in a Kafka Connect
// configuration, as librdkafka spells them.
#include "engine/pipeline/source_config.hpp"

#include <boost/test/unit_test.hpp>

#include <string_view>

using namespace weir::runtime;
using weir::engine::pipeline::StringMap;
using weir::engine::pipeline::task_client_props;

namespace {

bool names(const kafka::KafkaError& e, std::string_view key) {
  return std::string_view{e.what()}.find("'" + std::string(key) + "'") != std::string_view::npos;
}

} // namespace

BOOST_AUTO_TEST_SUITE(client_props)

BOOST_AUTO_TEST_CASE(java_names_become_librdkafka_names) {
  StringMap worker{{"bootstrap.servers", "127.0.0.1:9092"},
                   {"consumer.fetch.max.wait.ms", "250"},
                   {"consumer.auto.offset.reset", "none"},
                   {"consumer.key.deserializer", "org.apache.kafka.common.serialization.StringDeserializer"},
                   {"producer.max.request.size", "2097152"},
                   {"producer.buffer.memory", "33554433"},
                   {"producer.value.serializer", "org.apache.kafka.common.serialization.StringSerializer"}};
  StringMap connector{{"consumer.override.value.deserializer", "x"}};
  auto consumer = task_client_props(connector, worker, "consumer");
  BOOST_TEST(consumer == (kafka::Properties{{"bootstrap.servers", "127.0.0.1:9092"},
                                            {"fetch.wait.max.ms", "250"},
                                            {"auto.offset.reset", "error"}}));
  auto producer = task_client_props(connector, worker, "producer");
  BOOST_TEST(producer == (kafka::Properties{{"bootstrap.servers", "127.0.0.1:9092"},
                                            {"message.max.bytes", "2097152"},
                                            {"queue.buffering.max.kbytes", "32769"}})); // rounded up
  // librdkafka knows every translated name and value.
  BOOST_CHECK_NO_THROW(kafka::make_conf(consumer));
  BOOST_CHECK_NO_THROW(kafka::make_conf(producer));
}

BOOST_AUTO_TEST_CASE(untranslatable_values_and_conflicts_are_named) {
  StringMap worker{{"bootstrap.servers", "b"}};
  for (const char* bad : {"lots", "0", "-1", "12k", ""}) {
    StringMap c{{"producer.override.buffer.memory", bad}};
    BOOST_CHECK_EXCEPTION(task_client_props(c, worker, "producer"), kafka::KafkaError,
                          [](const auto& e) { return names(e, "buffer.memory"); });
  }
  StringMap both{{"consumer.override.fetch.max.wait.ms", "100"},
                 {"consumer.override.fetch.wait.max.ms", "200"}};
  BOOST_CHECK_EXCEPTION(task_client_props(both, worker, "consumer"), kafka::KafkaError,
                        [](const auto& e) { return names(e, "fetch.max.wait.ms"); });
  // A property neither client knows still reaches librdkafka, which names it.
  StringMap unknown{{"consumer.override.interceptor.classes", "com.example.Tracing"}};
  auto props = task_client_props(unknown, worker, "consumer");
  BOOST_CHECK_EXCEPTION(kafka::make_conf(props), kafka::KafkaError,
                        [](const auto& e) { return names(e, "interceptor.classes"); });
}

BOOST_AUTO_TEST_SUITE_END()
