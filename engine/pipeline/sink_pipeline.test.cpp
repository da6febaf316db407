// The sink pipeline's retries: a failed write asks for the same batch again after
// RetryBackoff's wait (the stage actor waits with a delayed message), and a converter
// that finds its service down has the consumer's feed answer `again` (its actor waits
// the same way), within errors.retry.timeout; past it the task fails with the error.
#include "engine/pipeline/sink_pipeline.hpp"

#include <boost/test/unit_test.hpp>

#include "runtime/convert/string_converter.hpp"
#include "tests/support/test_stages.hpp"

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

/// Reads values as strings, except that its first `failures` calls for record 1's
/// value find its service down: a batch then stops after record 0.
class FlakyDecoder : public runtime::convert::Converter {
public:
  explicit FlakyDecoder(int failures) : failures_(failures) {}
  std::string_view class_name() const noexcept override { return "org.example.Flaky"; }
  void to_connect(const std::optional<std::string_view>& bytes, runtime::data::DecodedBatch&,
                  runtime::data::Value& out, const runtime::data::Schema*& schema) override {
    if (bytes && bytes->starts_with("record-1:") && failures_ > 0 && failures_-- > 0)
      throw runtime::data::RetriableError("registry unreachable");
    out = bytes ? runtime::data::Value::string(*bytes) : runtime::data::Value{};
    schema = nullptr;
  }
  bool from_connect(const runtime::data::Value&, const runtime::data::Schema*, std::string&) override {
    return false;
  }

private:
  int failures_;
};

/// Hands out 9 records in batches of 3, counting how often it was asked.
struct CountedFeed : runtime::BatchFeed {
  testing::Generator records{9, 3, 1};
  int fills = 0;
  Status fill(Batch& out, uint64_t max_bytes) override {
    ++fills;
    return records.fill(out, max_bytes);
  }
  std::string_view kind() const noexcept override { return "consumer"; }
};

ConvertingReader reader(std::shared_ptr<CountedFeed> feed, int failures, std::map<std::string, std::string> config) {
  return ConvertingReader{std::move(feed),
                          runtime::convert::RecordCodec{std::make_unique<runtime::convert::StringConverter>(),
                                                        std::make_unique<FlakyDecoder>(failures)},
                          policy(std::move(config))};
}

} // namespace

BOOST_AUTO_TEST_SUITE(converting_reader)

BOOST_AUTO_TEST_CASE(a_service_down_answers_again_and_the_same_records_come_once_it_is_back) {
  using std::chrono::milliseconds;
  auto feed = std::make_shared<CountedFeed>();
  auto r = reader(feed, 2, {{"errors.retry.timeout", "-1"}});
  runtime::data::DecodedBatch out;
  // No wait inside fill(): it says how long to wait, and keeps what it read.
  BOOST_TEST((r.fill(out, 1u << 20) == runtime::DecodedFeed::Status::again));
  BOOST_TEST(out.empty());
  BOOST_TEST(r.retry_after().count() == 300);
  BOOST_TEST((r.fill(out, 1u << 20) == runtime::DecodedFeed::Status::again));
  BOOST_TEST(r.retry_after().count() == 600);
  BOOST_TEST(feed->fills == 1); // nothing new was read meanwhile
  // Back: the same records, decoded once, in order; then the next ones.
  BOOST_TEST((r.fill(out, 1u << 20) == runtime::DecodedFeed::Status::ready));
  BOOST_TEST(feed->fills == 1);
  BOOST_REQUIRE(out.size() == 3u);
  for (uint32_t i = 0; i < 3; ++i) {
    BOOST_TEST(out[i].offset == i);
    BOOST_TEST(out[i].value.as_string().starts_with("record-" + std::to_string(i) + ":"));
  }
  BOOST_TEST(out.errors().size() == 0u);
  BOOST_TEST((r.fill(out, 1u << 20) == runtime::DecodedFeed::Status::ready));
  BOOST_TEST(feed->fills == 2);
  BOOST_REQUIRE(out.size() == 3u);
  BOOST_TEST(out[0].offset == 3);
}

BOOST_AUTO_TEST_CASE(without_retry_timeout_a_service_down_fails_the_task) {
  auto r = reader(std::make_shared<CountedFeed>(), 1, {});
  runtime::data::DecodedBatch out;
  BOOST_CHECK_EXCEPTION(r.fill(out, 1u << 20), TaskFailure, [](const TaskFailure& e) {
    return std::string{e.what()} == "Exception in converter: registry unreachable";
  });
}

BOOST_AUTO_TEST_SUITE_END()

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
