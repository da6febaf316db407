#include "runtime/kafka/producer.hpp"

#include "tests/support/kafka_unit.hpp"

#include <boost/test/unit_test.hpp>

#include <map>
#include <set>

using namespace weir::runtime::kafka;
using namespace weir::runtime::kafka::test;

namespace {

struct Ack {
  size_t delivered = 0;
  size_t failed = 0;
  std::string error;
};

// Polls `producer` until `acks` holds `batches` entries or the limit passes.
bool await_acks(Producer& producer, const std::map<uint64_t, Ack>& acks, size_t batches) {
  auto deadline = Clock::now() + 30s;
  while (acks.size() < batches && Clock::now() < deadline)
    producer.poll(100ms);
  return acks.size() == batches;
}

} // namespace

BOOST_AUTO_TEST_SUITE(kafka_producer)

BOOST_AUTO_TEST_CASE(each_batch_is_acknowledged_once_with_its_token) {
  auto topic = unique_name("acks");
  create_topics(embedded(), {{topic, 3}});
  std::map<uint64_t, Ack> acks;
  size_t calls = 0;
  Producer producer(embedded(), [&](uint64_t token, size_t ok, size_t bad, const std::string& e) {
    ++calls;
    acks[token] = {ok, bad, e};
  });
  weir::Batch batch;
  for (uint64_t token = 10; token < 15; ++token) {
    batch.clear();
    for (int i = 0; i < 200; ++i)
      batch.append(topic, -1, -1, -1, "k" + std::to_string(i), "v");
    producer.produce(batch, token);
  }
  BOOST_TEST(producer.in_flight() > 0u);
  BOOST_REQUIRE(await_acks(producer, acks, 5));
  BOOST_TEST(calls == 5u);
  for (uint64_t token = 10; token < 15; ++token) {
    BOOST_TEST(acks[token].delivered == 200u);
    BOOST_TEST(acks[token].failed == 0u);
    BOOST_TEST(acks[token].error.empty());
  }
  BOOST_TEST(producer.in_flight() == 0u);
  BOOST_TEST(producer.flush(1s));

  // An empty batch is acknowledged at once.
  batch.clear();
  producer.produce(batch, 99);
  BOOST_TEST(acks.at(99).delivered == 0u);
}

BOOST_AUTO_TEST_CASE(a_failed_record_is_reported_with_its_batch) {
  auto topic = unique_name("fail");
  create_topics(embedded(), {{topic, 1}});
  std::map<uint64_t, Ack> acks;
  auto props = embedded();
  props["message.max.bytes"] = "2000";
  Producer producer(props, [&](uint64_t token, size_t ok, size_t bad, const std::string& e) {
    acks[token] = {ok, bad, e};
  });
  weir::Batch batch;
  batch.append(topic, 0, -1, -1, std::nullopt, "small");
  batch.append(topic, 0, -1, -1, std::nullopt, std::string(5000, 'x'));
  batch.append(topic, 0, -1, -1, std::nullopt, "small");
  producer.produce(batch, 1);
  BOOST_REQUIRE(await_acks(producer, acks, 1));
  BOOST_TEST(acks[1].delivered == 2u);
  BOOST_TEST(acks[1].failed == 1u);
  BOOST_TEST_MESSAGE("first error: " << acks[1].error);
  BOOST_TEST(!acks[1].error.empty());
}

BOOST_AUTO_TEST_CASE(a_full_queue_is_waited_out_not_failed) {
  auto topic = unique_name("queue-full");
  create_topics(embedded(), {{topic, 2}});
  std::map<uint64_t, Ack> acks;
  auto props = embedded();
  props["queue.buffering.max.messages"] = "10";
  Producer producer(props, [&](uint64_t token, size_t ok, size_t bad, const std::string& e) {
    acks[token] = {ok, bad, e};
  });
  weir::Batch batch;
  for (int i = 0; i < 1000; ++i)
    batch.append(topic, i % 2, -1, -1, std::nullopt, std::to_string(i));
  producer.produce(batch, 7);
  BOOST_REQUIRE(await_acks(producer, acks, 1));
  BOOST_TEST(acks[7].delivered == 1000u);
  BOOST_TEST(acks[7].failed == 0u);
}

BOOST_AUTO_TEST_CASE(keys_pick_partitions_and_timestamps_survive) {
  const int partitions = 3;
  auto topic = unique_name("keyed");
  create_topics(embedded(), {{topic, partitions}});
  std::map<uint64_t, Ack> acks;
  Producer producer(embedded(), [&](uint64_t token, size_t ok, size_t bad, const std::string& e) {
    acks[token] = {ok, bad, e};
  });
  weir::Batch batch;
  const int64_t ts = 1700000000123;
  for (int i = 0; i < 300; ++i)
    batch.append(topic, -1, -1, ts + i, "key-" + std::to_string(i % 30), std::to_string(i));
  producer.produce(batch, 1);
  BOOST_REQUIRE(await_acks(producer, acks, 1));
  BOOST_REQUIRE_EQUAL(acks[1].delivered, 300u);

  Consumer consumer(consumer_props(unique_name("g")));
  consumer.subscribe({topic});
  std::map<std::string, std::set<int32_t>> partitions_of_key;
  std::set<int32_t> used;
  size_t seen = 0;
  weir::Batch out;
  auto deadline = Clock::now() + 30s;
  while (seen < 300 && Clock::now() < deadline) {
    out.clear();
    consumer.poll(out, 500, 1 << 20, 100ms);
    for (const auto& r : out.records()) {
      int i = std::stoi(std::string(out.bytes(r.value)));
      BOOST_TEST(r.timestamp == ts + i);
      partitions_of_key[std::string(out.bytes(r.key))].insert(r.partition);
      used.insert(r.partition);
      ++seen;
    }
  }
  BOOST_REQUIRE_EQUAL(seen, 300u);
  BOOST_TEST(used.size() == static_cast<size_t>(partitions));
  for (const auto& [key, ps] : partitions_of_key)
    BOOST_TEST(ps.size() == 1u, key << " went to " << ps.size() << " partitions");
}

BOOST_AUTO_TEST_SUITE_END()
