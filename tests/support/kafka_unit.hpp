// Helpers shared by the kafka unit tests (embedded cluster only).
#pragma once

#include "runtime/kafka/admin.hpp"
#include "runtime/kafka/consumer.hpp"
#include "runtime/kafka/producer.hpp"

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace weir::runtime::kafka::test {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/// A name no other test (or earlier run against the same cluster) uses.
inline std::string unique_name(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + "-"
         + std::to_string(Clock::now().time_since_epoch().count() % 1000000007);
}

inline Properties embedded() { return {{"bootstrap.servers", "embedded"}}; }

/// Consumer properties for tests: fast group coordination on the mock.
inline Properties consumer_props(const std::string& group) {
  return {{"bootstrap.servers", "embedded"},
          {"group.id", group},
          {"session.timeout.ms", "6000"},
          {"heartbeat.interval.ms", "500"}};
}

struct TestRecord {
  int32_t partition = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

/// Produces `records` to `topic` in batches of `per_batch` and waits (bounded) until
/// every batch is acknowledged; fails the test if any record failed.
inline void produce_all(const std::string& topic, const std::vector<TestRecord>& records,
                        size_t per_batch = 500) {
  size_t acked_batches = 0, delivered = 0, failed = 0;
  std::string error;
  Producer producer(embedded(), [&](uint64_t, size_t ok, size_t bad, const std::string& e) {
    ++acked_batches;
    delivered += ok;
    failed += bad;
    if (error.empty())
      error = e;
  });
  size_t batches = 0;
  weir::Batch batch;
  for (size_t i = 0; i < records.size(); i += per_batch) {
    batch.clear();
    for (size_t j = i; j < std::min(records.size(), i + per_batch); ++j) {
      const auto& r = records[j];
      batch.append(topic, r.partition, -1, -1, r.key, r.value);
      for (const auto& [k, v] : r.headers)
        batch.add_header(k, v);
    }
    producer.produce(batch, batches++);
  }
  auto deadline = Clock::now() + 30s;
  while (acked_batches < batches && Clock::now() < deadline)
    producer.poll(100ms);
  BOOST_REQUIRE_EQUAL(acked_batches, batches);
  BOOST_REQUIRE_MESSAGE(failed == 0, "delivery failed: " << error);
  BOOST_REQUIRE_EQUAL(delivered, records.size());
  BOOST_REQUIRE_EQUAL(producer.in_flight(), 0u);
}

/// One consumed record, copied out of its batch.
struct Consumed {
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

inline std::optional<std::string> copy(const weir::Batch& b, weir::Slice s) {
  if (s.is_null())
    return std::nullopt;
  return std::string(b.bytes(s));
}

inline void append_all(const weir::Batch& b, std::vector<Consumed>& out) {
  for (const auto& r : b.records()) {
    Consumed c{std::string(b.topic(r)), r.partition, r.offset, copy(b, r.key), copy(b, r.value), {}};
    for (const auto& h : b.headers(r))
      c.headers.emplace_back(std::string(b.bytes(h.key)), copy(b, h.value));
    out.push_back(std::move(c));
  }
}

/// Polls until `pred()` holds or `limit` passes; returns pred().
template <class Pred>
bool poll_until(Consumer& consumer, std::vector<Consumed>& got, Pred pred,
                std::chrono::milliseconds limit = 30s, size_t max_records = 500,
                size_t max_bytes = 1 << 20) {
  auto deadline = Clock::now() + limit;
  weir::Batch batch;
  while (!pred() && Clock::now() < deadline) {
    batch.clear();
    consumer.poll(batch, max_records, max_bytes, 100ms);
    append_all(batch, got);
  }
  return pred();
}

} // namespace weir::runtime::kafka::test
