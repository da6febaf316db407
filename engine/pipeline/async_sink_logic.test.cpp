#include "engine/pipeline/async_sink_logic.hpp"

#include <boost/test/unit_test.hpp>

using namespace weir;
using namespace weir::engine::pipeline;
using namespace weir::runtime::connector_api;

namespace {

/// Keeps every start()'s completion for the test to call, in any order.
class ManualWriter : public AsyncSinkWriter {
public:
  std::vector<std::function<void(WriteOutcome)>>* started;
  explicit ManualWriter(std::vector<std::function<void(WriteOutcome)>>& s) : started(&s) {}
  uint32_t max_in_flight() const noexcept override { return 4; }
  void start(const runtime::data::DecodedBatch&, std::function<void(WriteOutcome)> done) override {
    started->push_back(std::move(done));
  }
  std::string_view class_name() const noexcept override { return "org.example.Manual"; }
  void write(runtime::data::DecodedBatch&) override {}
};

std::shared_ptr<runtime::data::DecodedBatch> batch_at(int64_t offset, size_t records = 1) {
  Batch raw;
  for (size_t i = 0; i < records; ++i)
    raw.append("t", 0, offset + static_cast<int64_t>(i), -1, std::string_view{"k"}, std::string_view{"v"});
  return std::make_shared<runtime::data::DecodedBatch>(std::move(raw));
}

std::shared_ptr<ErrorPolicy> policy(std::map<std::string, std::string> config) {
  ConfigDef def;
  ErrorPolicy::define(def);
  return std::make_shared<ErrorPolicy>(def.parse(config), "c", 0, std::map<std::string, std::string>{});
}

struct Fixture {
  std::vector<std::function<void(WriteOutcome)>> started;
  int wakes = 0;
  std::unique_ptr<AsyncSinkLogic> logic;
  explicit Fixture(std::map<std::string, std::string> config = {}) {
    logic = std::make_unique<AsyncSinkLogic>(std::make_unique<ManualWriter>(started), policy(std::move(config)));
    logic->set_wake([this] { ++wakes; });
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(async_sink_logic)

// Batches written out of order are acked in order: a partition's offsets never pass
// a batch that is still being written.
BOOST_AUTO_TEST_CASE(acks_follow_arrival_order_whatever_the_completion_order) {
  Fixture f;
  for (int64_t i = 0; i < 3; ++i)
    f.logic->submit(batch_at(i), 100);
  BOOST_TEST(f.started.size() == 3u);
  BOOST_TEST(f.logic->writing() == 3u);
  f.started[2]({});
  f.started[1]({});
  BOOST_TEST(f.wakes == 2);
  BOOST_TEST(f.logic->on_completed().empty());
  BOOST_TEST(!f.logic->pop_acked(), "acked past the batch still being written");
  f.started[0]({});
  f.logic->on_completed();
  for (int64_t i = 0; i < 3; ++i) {
    auto a = f.logic->pop_acked();
    BOOST_REQUIRE(a);
    BOOST_TEST(a->offsets.at(0).offset == i + 1);
    BOOST_TEST(a->charged == 100u);
  }
  BOOST_TEST(f.logic->held() == 0u);
}

// A failed batch is started again after RetryBackoff's first wait, and acked once written.
BOOST_AUTO_TEST_CASE(a_failed_batch_is_retried_within_the_retry_timeout) {
  Fixture f{{{"errors.retry.timeout", "10000"}}};
  f.logic->submit(batch_at(0), 1);
  WriteOutcome failed;
  failed.error = "HTTP 503";
  f.started[0](failed);
  auto retries = f.logic->on_completed();
  BOOST_REQUIRE_EQUAL(retries.size(), 1u);
  BOOST_TEST(retries[0].delay.count() == 300);
  BOOST_TEST(!f.logic->pop_acked());
  f.logic->restart(retries[0].id);
  BOOST_REQUIRE_EQUAL(f.started.size(), 2u);
  f.started[1]({});
  BOOST_TEST(f.logic->on_completed().empty());
  BOOST_TEST(f.logic->pop_acked().has_value());
}

BOOST_AUTO_TEST_CASE(a_failed_batch_fails_the_task_without_a_retry_timeout) {
  Fixture f;
  f.logic->submit(batch_at(0), 1);
  WriteOutcome failed;
  failed.error = "HTTP 503";
  f.started[0](failed);
  BOOST_CHECK_THROW(f.logic->on_completed(), TaskFailure);
}

// Rejected records are TaskPut errors: tolerated under errors.tolerance=all (the
// batch is acked with them counted), fatal under none.
BOOST_AUTO_TEST_CASE(rejected_records_follow_errors_tolerance) {
  WriteOutcome rejected;
  rejected.failures.push_back({1, "bad"});
  {
    Fixture f{{{"errors.tolerance", "all"}}};
    f.logic->submit(batch_at(0, 3), 1);
    f.started[0](rejected);
    f.logic->on_completed();
    auto a = f.logic->pop_acked();
    BOOST_REQUIRE(a);
    BOOST_TEST(a->written == 2u);
    BOOST_TEST(a->errors == 1u);
    BOOST_TEST(a->offsets.at(0).offset == 3);
  }
  Fixture f;
  f.logic->submit(batch_at(0, 3), 1);
  f.started[0](rejected);
  BOOST_CHECK_THROW(f.logic->on_completed(), TaskFailure);
}

BOOST_AUTO_TEST_SUITE_END()
