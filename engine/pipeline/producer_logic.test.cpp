// ProducerLogic on the embedded Kafka: credit comes back on delivery, the source
// offsets follow delivery (or, with exactly-once, the commit), and a converter that
// fails retriably holds its batch, and the ones behind it, until the retry.
#include "engine/pipeline/producer_logic.hpp"

#include <boost/test/unit_test.hpp>

#include <thread>

#include "runtime/convert/string_converter.hpp"
#include "runtime/kafka/embedded_cluster.hpp"
#include "tests/support/kafka_unit.hpp"

using namespace weir;
using namespace weir::engine::pipeline;
using weir::runtime::connector_api::SourceOffsets;
using namespace weir::runtime::kafka::test;

namespace {

std::shared_ptr<ErrorPolicy> policy(std::map<std::string, std::string> config = {}) {
  ConfigDef def;
  ErrorPolicy::define(def);
  return std::make_shared<ErrorPolicy>(def.parse(config), "c", 0, std::map<std::string, std::string>{});
}

/// Serializes every value as "v", except that its first `failures` calls find its
/// service down.
class FlakyConverter : public runtime::convert::Converter {
public:
  explicit FlakyConverter(int failures) : failures_(failures) {}
  std::string_view class_name() const noexcept override { return "org.example.Flaky"; }
  void to_connect(const std::optional<std::string_view>&, runtime::data::DecodedBatch&, runtime::data::Value& out,
                  const runtime::data::Schema*& schema) override {
    out = {};
    schema = nullptr;
  }
  bool from_connect(const runtime::data::Value&, const runtime::data::Schema*, std::string& out) override {
    if (failures_ > 0 && failures_-- > 0)
      throw runtime::data::RetriableError("registry unreachable");
    out += "v";
    return true;
  }

private:
  int failures_;
};

std::shared_ptr<SourceEncoder> encoder(std::shared_ptr<ErrorPolicy> p, int failures = 0) {
  return std::make_shared<SourceEncoder>(
    runtime::convert::RecordCodec{std::make_unique<runtime::convert::StringConverter>(),
                                  std::make_unique<FlakyConverter>(failures)},
    std::move(p));
}

/// Source batch `sequence`: `records` string records for `topic`, reaching position
/// `sequence` of partition "p".
std::shared_ptr<runtime::data::DecodedBatch> batch(SourceOffsets& offsets, const std::string& topic,
                                                   uint64_t sequence, size_t records = 3) {
  Batch raw;
  for (size_t i = 0; i < records; ++i)
    raw.append(topic, -1, -1, -1, std::string_view{"k"}, std::string_view{"v"});
  raw.sequence = sequence;
  offsets.emitted(sequence, {{"p", std::to_string(sequence)}}, records);
  auto decoded = std::make_shared<runtime::data::DecodedBatch>(std::move(raw));
  for (uint32_t i = 0; i < decoded->size(); ++i) {
    (*decoded)[i].key = runtime::data::Value::string("k");
    (*decoded)[i].value = runtime::data::Value::string("v");
  }
  return decoded;
}

/// Pumps until `done` or a bounded number of rounds (each waits a little for the broker).
template <class Done>
bool pump_until(ProducerLogic& logic, Done done) {
  for (int i = 0; i < 3000 && !done(); ++i) {
    logic.pump();
    std::this_thread::sleep_for(std::chrono::milliseconds{2});
  }
  return done();
}

/// Pumps until `n` batches were released; returns their credit, in release order.
std::vector<uint64_t> pump_until_released(ProducerLogic& logic, size_t n) {
  std::vector<uint64_t> released;
  pump_until(logic, [&] {
    while (auto c = logic.pop_released())
      released.push_back(*c);
    return released.size() >= n;
  });
  return released;
}

std::string new_topic() {
  auto topic = unique_name("weir-producer-logic");
  runtime::kafka::EmbeddedCluster::instance().create_topic(topic, 1);
  return topic;
}

} // namespace

BOOST_AUTO_TEST_SUITE(producer_logic)

BOOST_AUTO_TEST_CASE(credit_and_offsets_follow_delivery) {
  auto topic = new_topic();
  auto offsets = std::make_shared<SourceOffsets>();
  ProducerLogic logic{embedded(), encoder(policy()), offsets};
  logic.start();
  logic.submit(batch(*offsets, topic, 1), 100);
  logic.submit(batch(*offsets, topic, 2), 200);
  // Nothing is released before its delivery report.
  BOOST_TEST(!logic.pop_released());
  BOOST_TEST(pump_until_released(logic, 2) == (std::vector<uint64_t>{100, 200}));
  BOOST_TEST(logic.records_out() == 6u);
  BOOST_TEST(offsets->committed().at("p") == "2");
  logic.end_of_input();
  logic.pump();
  BOOST_TEST(logic.finished());
}

// Exactly-once: a delivered batch returns its credit, but its offset counts only once
// the transaction that carries it commits (here at the end of input).
BOOST_AUTO_TEST_CASE(with_transactions_only_the_commit_advances_offsets) {
  auto topic = new_topic();
  auto offsets_topic = new_topic();
  auto offsets = std::make_shared<SourceOffsets>();
  auto props = embedded();
  props["transactional.id"] = unique_name("txn");
  ProducerTransactions txn{true, offsets_topic, "c", std::chrono::hours{1}};
  ProducerLogic logic{props, encoder(policy()), offsets, txn};
  logic.start();
  logic.submit(batch(*offsets, topic, 1), 100);
  std::optional<uint64_t> released;
  BOOST_REQUIRE(pump_until(logic, [&] { return released || (released = logic.pop_released()); }));
  BOOST_TEST(*released == 100u);
  BOOST_TEST(logic.needs_polling()); // the transaction is open
  BOOST_TEST(offsets->committed().empty());
  logic.end_of_input();
  BOOST_REQUIRE(pump_until(logic, [&] { return logic.finished(); }));
  BOOST_TEST(offsets->committed().at("p") == "1");
}

// A converter that cannot reach its service: the batch waits for retry(), and the
// batch behind it does not pass it.
BOOST_AUTO_TEST_CASE(a_retriable_converter_failure_holds_the_batches_until_the_retry) {
  auto topic = new_topic();
  auto offsets = std::make_shared<SourceOffsets>();
  ProducerLogic logic{embedded(), encoder(policy({{"errors.retry.timeout", "-1"}}), 1), offsets};
  logic.start();
  logic.submit(batch(*offsets, topic, 1), 100);
  logic.submit(batch(*offsets, topic, 2), 200);
  auto wait = logic.pump();
  BOOST_REQUIRE(wait.has_value());
  BOOST_TEST(wait->count() > 0);
  BOOST_TEST(!logic.needs_polling()); // nothing was produced
  BOOST_TEST(!logic.pump().has_value()); // still waiting: no new attempt before retry()
  logic.retry();
  BOOST_TEST(pump_until_released(logic, 2) == (std::vector<uint64_t>{100, 200}));
  BOOST_TEST(offsets->committed().at("p") == "2");
}

// Without errors.retry.timeout the first retriable failure fails the task, naming it.
BOOST_AUTO_TEST_CASE(a_retriable_failure_past_the_timeout_fails) {
  auto topic = new_topic();
  auto offsets = std::make_shared<SourceOffsets>();
  ProducerLogic logic{embedded(), encoder(policy(), 1), offsets};
  logic.submit(batch(*offsets, topic, 1), 100);
  BOOST_CHECK_EXCEPTION(logic.pump(), TaskFailure, [](const TaskFailure& e) {
    return std::string{e.what()} == "Exception in converter: registry unreachable";
  });
}

BOOST_AUTO_TEST_SUITE_END()
