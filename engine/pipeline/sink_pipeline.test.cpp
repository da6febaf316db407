// SinkWriterLogic's retries: a failed write asks for the same batch again after
// RetryBackoff's wait (the stage actor waits with a delayed message), within
// errors.retry.timeout; past it the task fails with the writer's error.
#include "engine/pipeline/sink_pipeline.hpp"

#include <boost/test/unit_test.hpp>

using namespace weir;
using namespace weir::engine::pipeline;
using weir::runtime::connector_api::SinkWriter;

namespace {

/// Fails its first `failures` writes; counts the ones that succeed.
class FlakyWriter : public SinkWriter {
public:
  FlakyWriter(int failures, int& written) : failures_(failures), written_(&written) {}
  void write(runtime::data::DecodedBatch&) override {
    if (failures_ > 0 && failures_-- > 0)
      throw std::runtime_error("database unreachable");
    ++*written_;
  }

private:
  int failures_;
  int* written_;
};

std::shared_ptr<ErrorPolicy> policy(std::map<std::string, std::string> config) {
  ConfigDef def;
  ErrorPolicy::define(def);
  return std::make_shared<ErrorPolicy>(def.parse(config), "c", 0, std::map<std::string, std::string>{});
}

runtime::data::DecodedBatch one_record() {
  Batch raw;
  raw.append("t", 0, 0, -1, std::string_view{"k"}, std::string_view{"v"});
  return runtime::data::DecodedBatch{std::move(raw)};
}

} // namespace

BOOST_AUTO_TEST_SUITE(sink_writer_logic)

BOOST_AUTO_TEST_CASE(a_failed_write_asks_for_a_retry_with_growing_waits) {
  int written = 0;
  SinkWriterLogic logic{std::make_unique<FlakyWriter>(2, written), policy({{"errors.retry.timeout", "-1"}})};
  auto batch = one_record();
  auto first = logic.process(batch);
  BOOST_REQUIRE(first.has_value());
  auto second = logic.process(batch);
  BOOST_REQUIRE(second.has_value());
  BOOST_TEST(second->count() == 2 * first->count());
  BOOST_TEST(!logic.process(batch).has_value());
  BOOST_TEST(written == 1);
  // The next batch starts its own backoff.
  auto next = one_record();
  BOOST_TEST(!logic.process(next).has_value());
  BOOST_TEST(written == 2);
}

BOOST_AUTO_TEST_CASE(without_retry_timeout_the_first_failure_fails_the_task) {
  int written = 0;
  SinkWriterLogic logic{std::make_unique<FlakyWriter>(1, written), policy({})};
  auto batch = one_record();
  BOOST_CHECK_EXCEPTION(logic.process(batch), TaskFailure, [](const TaskFailure& e) {
    return std::string{e.what()} == "Exception in sink writer: database unreachable";
  });
}

BOOST_AUTO_TEST_SUITE_END()
