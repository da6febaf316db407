#include "runtime/kafka/consumer.hpp"

#include "runtime/kafka/embedded_cluster.hpp"
#include "tests/support/kafka_unit.hpp"

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <sys/prctl.h>

using namespace weir::runtime::kafka;
using namespace weir::runtime::kafka::test;

namespace {

// Record i of a mixed workload: explicit partition, null and empty keys/values,
// headers (some with null values), varying sizes.
TestRecord mixed_record(int i, int partitions) {
  TestRecord r;
  r.partition = i % partitions;
  if (i % 7 != 0)
    r.key = "key-" + std::to_string(i);
  if (i % 13 == 0)
    r.value = "";
  else if (i % 11 != 0)
    r.value = "value-" + std::to_string(i) + std::string(static_cast<size_t>(i % 97), 'x');
  if (i % 2 == 0)
    r.headers = {{"seq", std::to_string(i)}, {"nullable", std::nullopt}};
  if (i % 3 == 0)
    r.headers.push_back({"empty", ""});
  return r;
}

std::string show(const std::optional<std::string>& s) { return s ? "'" + *s + "'" : "null"; }

void check_same(const Consumed& c, const TestRecord& r) {
  BOOST_CHECK_MESSAGE(c.key == r.key, "key " << show(c.key) << " != " << show(r.key));
  BOOST_CHECK_MESSAGE(c.value == r.value, "value " << show(c.value) << " != " << show(r.value));
  BOOST_CHECK_MESSAGE(c.headers == r.headers, "headers differ at offset " << c.offset);
}

// Per partition, the consumed records equal the produced ones, in order, once.
void check_exactly_once(const std::vector<Consumed>& got, const std::vector<TestRecord>& sent,
                        int partitions) {
  std::map<int32_t, std::vector<const TestRecord*>> expected;
  for (const auto& r : sent)
    expected[r.partition].push_back(&r);
  std::map<int32_t, std::vector<const Consumed*>> actual;
  for (const auto& c : got)
    actual[c.partition].push_back(&c);
  BOOST_REQUIRE_EQUAL(got.size(), sent.size());
  for (int32_t p = 0; p < partitions; ++p) {
    const auto& e = expected[p];
    const auto& a = actual[p];
    BOOST_REQUIRE_EQUAL(a.size(), e.size());
    for (size_t k = 0; k < a.size(); ++k) {
      BOOST_REQUIRE_EQUAL(a[k]->offset, static_cast<int64_t>(k)); // contiguous, no gap, no repeat
      check_same(*a[k], *e[k]);
    }
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(kafka_consumer)

BOOST_AUTO_TEST_CASE(every_record_once_in_order_with_small_byte_budgets) {
  const int partitions = 3, n = 3000;
  auto topic = unique_name("roundtrip");
  create_topics(embedded(), {{topic, partitions}});
  std::vector<TestRecord> sent;
  for (int i = 0; i < n; ++i)
    sent.push_back(mixed_record(i, partitions));
  produce_all(topic, sent);

  Consumer consumer(consumer_props(unique_name("g")));
  consumer.subscribe({topic});
  const size_t max_bytes = 2000;
  std::vector<Consumed> got;
  weir::Batch batch;
  size_t polls = 0;
  auto deadline = Clock::now() + 60s;
  while (got.size() < sent.size() && Clock::now() < deadline) {
    batch.clear();
    size_t k = consumer.poll(batch, 50, max_bytes, 100ms);
    BOOST_REQUIRE_EQUAL(k, batch.size());
    BOOST_REQUIRE(k <= 50);
    // The budget holds, except for a single record that alone exceeds it.
    BOOST_REQUIRE(batch.byte_size() <= max_bytes || batch.size() == 1);
    append_all(batch, got);
    polls += k > 0;
  }
  BOOST_TEST_MESSAGE("consumed " << got.size() << " records in " << polls << " non-empty polls");
  // No duplicates trail in later polls.
  poll_until(consumer, got, [] { return false; }, 500ms);
  check_exactly_once(got, sent, partitions);
  BOOST_TEST(polls > n * 50 / max_bytes); // the budget really split the stream
  BOOST_TEST(consumer.assignment().size() == static_cast<size_t>(partitions));
  BOOST_TEST(consumer.rebalance_protocol() == "COOPERATIVE");
  for (const auto& l : consumer.lag())
    BOOST_TEST(l.lag == 0);
}

BOOST_AUTO_TEST_CASE(a_record_that_does_not_fit_is_carried_over) {
  auto topic = unique_name("carry");
  create_topics(embedded(), {{topic, 1}});
  std::vector<TestRecord> sent;
  for (int i = 0; i < 3; ++i)
    sent.push_back({0, "k" + std::to_string(i), std::string(300, char('a' + i)), {}});
  produce_all(topic, sent);

  Consumer consumer(consumer_props(unique_name("g")));
  consumer.subscribe({topic});
  // A batch that already holds a record takes nothing over budget: every fetched
  // record is carried over, none is dropped.
  weir::Batch prefilled;
  prefilled.append("other", 0, 0, -1, std::nullopt, "x");
  auto deadline = Clock::now() + 30s;
  while (consumer.carried_over() < 3 && Clock::now() < deadline)
    BOOST_REQUIRE_EQUAL(consumer.poll(prefilled, 10, 100, 100ms), 0u);
  BOOST_REQUIRE_EQUAL(consumer.carried_over(), 3u);
  BOOST_TEST(prefilled.size() == 1u);

  // An empty batch takes one over-budget record; the rest stay carried over.
  weir::Batch batch;
  BOOST_REQUIRE_EQUAL(consumer.poll(batch, 10, 100, 0ms), 1u);
  BOOST_TEST(batch[0].offset == 0);
  BOOST_TEST(consumer.carried_over() == 2u);
  batch.clear();
  BOOST_REQUIRE_EQUAL(consumer.poll(batch, 10, 10000, 0ms), 2u);
  BOOST_TEST(batch[0].offset == 1);
  BOOST_TEST(batch[1].offset == 2);
  BOOST_TEST(batch.bytes(batch[1].value) == sent[2].value.value());
  BOOST_TEST(consumer.carried_over() == 0u);
}

BOOST_AUTO_TEST_CASE(byte_budget_splits_mixed_sizes) {
  auto topic = unique_name("budget");
  create_topics(embedded(), {{topic, 1}});
  std::vector<TestRecord> sent;
  for (size_t size : {100, 100, 5000, 100, 100, 100})
    sent.push_back({0, std::nullopt, std::string(size, 'v'), {}});
  produce_all(topic, sent);

  Consumer consumer(consumer_props(unique_name("g")));
  consumer.subscribe({topic});
  const size_t max_bytes = 2 * (100 + sizeof(weir::RecordRef)) + 10;
  std::vector<Consumed> got;
  weir::Batch batch;
  auto deadline = Clock::now() + 30s;
  while (got.size() < sent.size() && Clock::now() < deadline) {
    batch.clear();
    consumer.poll(batch, 100, max_bytes, 100ms);
    BOOST_REQUIRE(batch.size() <= 2);
    BOOST_REQUIRE(batch.byte_size() <= max_bytes || batch.size() == 1);
    for (const auto& r : batch.records())
      if (r.value.size == 5000)
        BOOST_TEST(batch.size() == 1u); // the big one travels alone
    append_all(batch, got);
  }
  BOOST_REQUIRE_EQUAL(got.size(), sent.size());
  for (size_t i = 0; i < got.size(); ++i) {
    BOOST_TEST(got[i].offset == static_cast<int64_t>(i));
    BOOST_TEST((got[i].value == sent[i].value));
  }
}

BOOST_AUTO_TEST_CASE(pause_stops_records_and_resume_loses_none) {
  const int partitions = 2;
  auto topic = unique_name("pause");
  create_topics(embedded(), {{topic, partitions}});
  std::vector<TestRecord> sent;
  for (int i = 0; i < 1000; ++i)
    sent.push_back(mixed_record(i, partitions));
  produce_all(topic, sent);

  Consumer consumer(consumer_props(unique_name("g")));
  consumer.subscribe({topic});
  std::vector<Consumed> got;
  BOOST_REQUIRE(poll_until(consumer, got, [&] { return got.size() >= 100; }, 30s, 50));

  consumer.pause();
  BOOST_TEST(consumer.paused());
  std::vector<TestRecord> more;
  for (int i = 1000; i < 1500; ++i)
    more.push_back(mixed_record(i, partitions));
  produce_all(topic, more);
  // Absence can only be observed over a window: two seconds of polls, no records.
  weir::Batch batch;
  auto until = Clock::now() + 2s;
  while (Clock::now() < until) {
    BOOST_REQUIRE_EQUAL(consumer.poll(batch, 500, 1 << 20, 50ms), 0u);
    BOOST_REQUIRE(batch.empty());
  }

  consumer.resume();
  BOOST_TEST(!consumer.paused());
  sent.insert(sent.end(), more.begin(), more.end());
  BOOST_REQUIRE(poll_until(consumer, got, [&] { return got.size() >= sent.size(); }));
  poll_until(consumer, got, [] { return false; }, 300ms);
  check_exactly_once(got, sent, partitions);
}

BOOST_AUTO_TEST_CASE(a_new_member_resumes_from_the_committed_offset) {
  auto topic = unique_name("commit");
  auto group = unique_name("g");
  create_topics(embedded(), {{topic, 1}});
  std::vector<TestRecord> sent;
  for (int i = 0; i < 100; ++i)
    sent.push_back({0, std::nullopt, "v" + std::to_string(i), {}});
  produce_all(topic, sent);

  {
    Consumer first(consumer_props(group));
    first.subscribe({topic});
    std::vector<Consumed> got;
    weir::Batch batch;
    auto deadline = Clock::now() + 30s;
    while (got.size() < 60 && Clock::now() < deadline) {
      batch.clear();
      first.poll(batch, 60 - got.size(), 1 << 20, 100ms);
      append_all(batch, got);
    }
    BOOST_REQUIRE_EQUAL(got.size(), 60u);
    BOOST_TEST(got.back().offset == 59);
    auto lag = first.lag();
    BOOST_REQUIRE_EQUAL(lag.size(), 1u);
    BOOST_TEST(lag[0].lag == 40);
    first.commit({{topic, 0, 60}}, false);
    first.close();
    first.close(); // idempotent
  }

  Consumer second(consumer_props(group));
  second.subscribe({topic});
  std::vector<Consumed> got;
  BOOST_REQUIRE(poll_until(second, got, [&] { return got.size() >= 40; }));
  poll_until(second, got, [] { return false; }, 300ms);
  BOOST_REQUIRE_EQUAL(got.size(), 40u);
  BOOST_TEST(got.front().offset == 60);
  BOOST_TEST((got.front().value == sent[60].value));
  BOOST_TEST(got.back().offset == 99);
  // An asynchronous commit reports through poll(); it must not count an error.
  second.commit({{topic, 0, 100}}, true);
  poll_until(second, got, [] { return false; }, 500ms);
  BOOST_TEST(second.error_count() == 0u);
}

BOOST_AUTO_TEST_CASE(a_paused_member_serves_a_rebalance_and_hands_over_cleanly) {
  const int partitions = 4;
  auto topic = unique_name("rebalance");
  auto group = unique_name("g");
  create_topics(embedded(), {{topic, partitions}});
  std::vector<TestRecord> sent;
  for (int i = 0; i < 2000; ++i)
    sent.push_back(mixed_record(i, partitions));
  produce_all(topic, sent);

  // Each member commits what it handed out after every poll, so a partition's new
  // owner continues exactly there. (Committing from the revoke listener is what a
  // sink does against a real broker, see tests/integration/kafka_clients; the mock
  // refuses commits while the group is rebalancing, which real Kafka accepts.)
  struct Member {
    std::unique_ptr<Consumer> consumer;
    std::vector<RebalanceEvent> events;
  };
  auto make = [&](Member& m) {
    m.consumer = std::make_unique<Consumer>(consumer_props(group),
                                            [&m](const RebalanceEvent& e) { m.events.push_back(e); });
    m.consumer->subscribe({topic});
  };
  std::vector<Consumed> got;
  auto drain = [&](Member& m, size_t max_records) {
    weir::Batch batch;
    m.consumer->poll(batch, max_records, 1 << 20, 50ms);
    std::map<TopicPartition, int64_t> next;
    for (const auto& r : batch.records())
      next[{std::string(batch.topic(r)), r.partition}] = r.offset + 1;
    std::vector<TopicPartitionOffset> offsets;
    for (const auto& [tp, offset] : next)
      offsets.push_back({tp.topic, tp.partition, offset});
    m.consumer->commit(offsets, false);
    append_all(batch, got);
  };

  Member a, b;
  make(a);
  auto deadline = Clock::now() + 30s;
  while (got.size() < 200 && Clock::now() < deadline)
    drain(a, 20);
  BOOST_REQUIRE(got.size() >= 200);
  BOOST_REQUIRE_EQUAL(a.consumer->assignment().size(), static_cast<size_t>(partitions));

  // A paused member must still take part in the rebalance a new member starts.
  a.consumer->pause();
  make(b);
  deadline = Clock::now() + 60s;
  weir::Batch none;
  while ((b.consumer->assignment().empty() || a.consumer->assignment().size() == partitions)
         && Clock::now() < deadline) {
    BOOST_REQUIRE_EQUAL(a.consumer->poll(none, 100, 1 << 20, 50ms), 0u);
    BOOST_REQUIRE(none.empty());
    drain(b, 100);
  }
  auto in_a = a.consumer->assignment();
  auto in_b = b.consumer->assignment();
  BOOST_REQUIRE(!in_a.empty());
  BOOST_REQUIRE(!in_b.empty());
  std::set<TopicPartition> all(in_a.begin(), in_a.end());
  for (const auto& tp : in_b)
    BOOST_TEST(all.insert(tp).second); // no partition owned twice
  BOOST_TEST(all.size() == static_cast<size_t>(partitions));
  // Cooperative: the paused member only lost partitions, it never got a full revoke.
  for (const auto& e : a.events)
    BOOST_TEST(e.revoked.size() < static_cast<size_t>(partitions));

  a.consumer->resume();
  deadline = Clock::now() + 60s;
  while (got.size() < sent.size() && Clock::now() < deadline) {
    drain(a, 100);
    drain(b, 100);
  }
  for (int i = 0; i < 6; ++i) {
    drain(a, 100);
    drain(b, 100);
  }
  check_exactly_once(got, sent, partitions);
  a.consumer->close();
  b.consumer->close();
}

BOOST_AUTO_TEST_CASE(a_bad_prefetch_limit_is_named) {
  auto props = consumer_props(unique_name("g"));
  props["queued.min.messages"] = "many";
  BOOST_CHECK_EXCEPTION(Consumer{props}, KafkaError, [](const KafkaError& e) {
    return std::string(e.what()).find("queued.min.messages") != std::string::npos;
  });
}

namespace {

// The process's librdkafka threads (thread id -> timer slack in ns).
std::map<std::string, long> rdkafka_threads() {
  std::map<std::string, long> out;
  for (const auto& task : std::filesystem::directory_iterator{"/proc/self/task"}) {
    std::ifstream comm{task.path() / "comm"};
    std::string name;
    std::getline(comm, name);
    if (name.rfind("rdk:", 0) != 0)
      continue;
    auto tid = task.path().filename().string();
    std::ifstream slack{"/proc/" + tid + "/timerslack_ns"};
    long ns = -1;
    slack >> ns;
    out[tid] = ns;
  }
  return out;
}

} // namespace

// librdkafka 2.0 busy-polls up to each timer of its main thread (librdkafka#4684):
// a consumer's threads end their timed waits with 2 ms of slack instead, and the
// thread that made the consumer keeps its own.
BOOST_AUTO_TEST_CASE(a_consumers_threads_wait_with_slack_and_its_maker_keeps_its_own) {
  if (rd_kafka_version() >= 0x02040000) {
    BOOST_TEST_MESSAGE("librdkafka 2.4 or later: nothing to work around");
    return;
  }
  long mine = ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  Consumer first{consumer_props(unique_name("g"))}; // starts the embedded cluster's threads
  auto before = rdkafka_threads();
  Consumer consumer{consumer_props(unique_name("g"))};
  auto after = rdkafka_threads();
  size_t fresh = 0;
  for (const auto& [tid, ns] : after) {
    if (before.count(tid))
      continue;
    ++fresh;
    BOOST_CHECK_MESSAGE(ns == 2'000'000, "librdkafka thread " << tid << " has " << ns << " ns of slack");
  }
  BOOST_CHECK_GE(fresh, 2u); // its main thread and its broker threads
  BOOST_CHECK_EQUAL(::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0), mine);
}

BOOST_AUTO_TEST_CASE(a_bad_partition_fetch_size_is_named) {
  auto props = consumer_props(unique_name("g"));
  props["max.partition.fetch.bytes"] = "half a megabyte"; // fetch.max.bytes is made from it
  BOOST_CHECK_EXCEPTION(Consumer{props}, KafkaError, [](const KafkaError& e) {
    return std::string(e.what()).find("max.partition.fetch.bytes") != std::string::npos;
  });
}

// librdkafka stops fetching once its queue holds queued.min.messages, and the consumer
// wakes it when the queue is half drained.
BOOST_AUTO_TEST_CASE(polls_of_a_third_of_the_prefetch_queue_still_wake_the_fetchers) {
  PrefetchWatch watch{20000, size_t{64} << 20};
  // Polls of 3,000 records of 100 bytes from a queue that librdkafka stopped filling at
  // 20,000: every poll leaves less than 90% of it, and the fifth leaves 5,000.
  size_t queued = 20000;
  std::vector<bool> woke;
  for (int poll = 0; poll < 5; ++poll) {
    queued -= 3000;
    woke.push_back(watch.after_poll(3000, 300000, 3000, queued));
  }
  BOOST_TEST(woke == (std::vector<bool>{false, false, false, true, false}), boost::test_tools::per_element());
  BOOST_TEST(watch.wakes() == 1u);
  // Not again until the queue was full again.
  BOOST_TEST(!watch.after_poll(3000, 300000, 3000, 2000));
  BOOST_TEST(watch.after_poll(2000, 200000, 2000, 9000) == false); // refilled to 11,000: not full
}

BOOST_AUTO_TEST_CASE(a_queue_held_by_bytes_is_full_too) {
  PrefetchWatch watch{100000, 1000000}; // 1 MB: 1,000 messages of 1,000 bytes
  BOOST_TEST(!watch.after_poll(100, 100000, 100, 850)); // held 950 messages' bytes: full
  BOOST_TEST(watch.after_poll(400, 400000, 400, 450));  // half drained
}

// The same, through a consumer over the embedded cluster: its queue fills up to
// queued.min.messages, polls drain it, and it wakes the fetchers.
BOOST_AUTO_TEST_CASE(a_consumer_draining_its_full_queue_wakes_its_fetchers) {
  auto topic = unique_name("prefetch");
  create_topics(embedded(), {{topic, 1}});
  std::vector<TestRecord> sent;
  for (int i = 0; i < 6000; ++i)
    sent.push_back({0, std::nullopt, std::string(100, 'v'), {}});
  produce_all(topic, sent);

  auto props = consumer_props(unique_name("g"));
  props["queued.min.messages"] = "1000";
  Consumer consumer(props);
  consumer.subscribe({topic});
  std::vector<Consumed> got;
  // The first record (the group joined, fetching begun), then time for the queue to fill.
  BOOST_REQUIRE(poll_until(consumer, got, [&] { return !got.empty(); }, 30s, 1));
  std::this_thread::sleep_for(1s);
  BOOST_REQUIRE(poll_until(consumer, got, [&] { return got.size() >= sent.size(); }, 60s, 330));
  BOOST_TEST(consumer.fetcher_wakes() > 0u);
}

BOOST_AUTO_TEST_CASE(regex_subscription) {
  auto prefix = unique_name("rx");
  create_topics(embedded(), {{prefix + "-one", 1}, {prefix + "-two", 1}});
  produce_all(prefix + "-one", {{0, std::nullopt, "1", {}}});
  produce_all(prefix + "-two", {{0, std::nullopt, "2", {}}});
  Consumer consumer(consumer_props(unique_name("g")));
  consumer.subscribe({"^" + prefix + "-.*"});
  std::vector<Consumed> got;
  BOOST_REQUIRE(poll_until(consumer, got, [&] { return got.size() >= 2; }));
  std::set<std::string> topics;
  for (const auto& c : got)
    topics.insert(c.topic);
  BOOST_TEST(topics.size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
