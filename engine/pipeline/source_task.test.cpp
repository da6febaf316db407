#include "runtime/connector_api/source_task.hpp"

#include <boost/test/unit_test.hpp>

#include "runtime/data/decoded_batch.hpp"
#include "engine/pipeline/error_policy.hpp"
#include "engine/pipeline/source_offsets_topic.hpp"
#include "engine/pipeline/source_pipeline.hpp"

using namespace weir;
using namespace weir::engine::pipeline;
using namespace weir::runtime::connector_api;

BOOST_AUTO_TEST_SUITE(source_offsets)

BOOST_AUTO_TEST_CASE(offsets_commit_only_the_delivered_prefix) {
  SourceOffsets offsets{{{"p", "0"}}};
  offsets.emitted(1, {{"p", "10"}});
  offsets.emitted(2, {{"p", "20"}, {"q", "5"}});
  offsets.emitted(3, {{"p", "30"}});
  // Batch 2 is delivered before batch 1: nothing may be committed yet.
  offsets.delivered(2);
  BOOST_TEST(offsets.committed().at("p") == "0");
  BOOST_TEST(offsets.take_changes().empty());
  offsets.delivered(1);
  auto c = offsets.committed();
  BOOST_TEST(c.at("p") == "20");
  BOOST_TEST(c.at("q") == "5");
  BOOST_TEST(offsets.committed_batches() == 2u);
  BOOST_TEST(offsets.pending_batches() == 1u);
  auto changes = offsets.take_changes();
  BOOST_TEST(changes.size() == 2u);
  BOOST_TEST(offsets.take_changes().empty()); // taken once
  offsets.delivered(3);
  BOOST_TEST(offsets.take_changes().at("p") == "30");
  offsets.delivered(3); // a repeated report changes nothing
  BOOST_TEST(offsets.take_changes().empty());
}

BOOST_AUTO_TEST_CASE(poll_to_ack_counts_each_delivered_batch_by_its_records) {
  SourceOffsets offsets;
  BOOST_TEST(offsets.poll_to_ack().total() == 0u);
  offsets.emitted(1, {{"p", "10"}}, 10);
  offsets.emitted(2, {{"p", "20"}}, 5);
  offsets.delivered(2);
  BOOST_TEST(offsets.poll_to_ack().total() == 5u);
  offsets.delivered(1);
  offsets.delivered(1); // already committed: not counted again
  auto latency = offsets.poll_to_ack();
  BOOST_TEST(latency.total() == 15u);
  BOOST_TEST(latency.quantile_seconds(0.99) >= latency.quantile_seconds(0.5));
  BOOST_TEST(latency.quantile_seconds(0.5) > 0.0);
}

BOOST_AUTO_TEST_CASE(through_gives_what_a_transaction_reaches) {
  SourceOffsets offsets;
  offsets.emitted(1, {{"p", "1"}});
  offsets.emitted(2, {{"q", "2"}});
  offsets.emitted(3, {{"p", "3"}});
  auto t = offsets.through(2);
  BOOST_TEST(t.size() == 2u);
  BOOST_TEST(t.at("p") == "1");
  BOOST_TEST(offsets.through(3).at("p") == "3");
  BOOST_CHECK_THROW(offsets.emitted(3, {}), std::logic_error);
}

BOOST_AUTO_TEST_CASE(records_stay_within_their_budget) {
  Batch raw;
  SourceRecords out{raw, 1000, 3};
  BOOST_TEST(out.has_room(5000)); // one record always fits an empty batch
  out.add("t", std::nullopt, std::string_view{"a"});
  BOOST_TEST(!out.has_room(5000));
  out.add("t", std::string_view{"k"}, std::string_view{"b"});
  out.add("t", std::nullopt, std::string_view{"c"});
  BOOST_TEST(!out.has_room(1)); // max_records
  out.set_offset("p", "1");
  out.set_offset("p", "3");
  BOOST_TEST(out.offsets().size() == 1u);
  BOOST_TEST(out.offsets()[0].second == "3");
  BOOST_TEST(raw.size() == 3u);
  BOOST_TEST(raw[0].key.is_null());
}

BOOST_AUTO_TEST_CASE(offset_keys_are_kafka_connects) {
  auto key = offset_record_key("my \"src\"", R"({"filename":"/tmp/a"})");
  BOOST_TEST(key == R"(["my \"src\"",{"filename":"/tmp/a"}])");
  BOOST_TEST(partition_of_key(key, "my \"src\"") == R"({"filename":"/tmp/a"})");
  BOOST_TEST(partition_of_key(key, "other").empty());
  BOOST_TEST(partition_of_key("garbage", "my \"src\"").empty());
}

namespace {

/// One line a poll, offset N after line N; remembers what commit() was told.
class CountingTask : public SourceTask {
public:
  explicit CountingTask(std::vector<OffsetMap>& commits) : commits_(commits) {}
  void start(const OffsetMap&) override {}
  Status poll(SourceRecords& out) override {
    out.add("t", std::nullopt, std::string_view{"line"});
    out.set_offset("p", std::to_string(++n_));
    return Status::ready;
  }
  Form value_form() const noexcept override { return Form::String; }
  void commit(const OffsetMap& committed) override { commits_.push_back(committed); }
  std::string_view kind() const noexcept override { return "counting"; }

private:
  std::vector<OffsetMap>& commits_;
  int n_ = 0;
};

} // namespace

BOOST_AUTO_TEST_CASE(the_task_hears_only_what_was_delivered) {
  std::vector<OffsetMap> commits;
  auto offsets = std::make_shared<SourceOffsets>();
  ConfigDef errors;
  ErrorPolicy::define(errors);
  SourcePoller poller(std::make_unique<CountingTask>(commits), offsets,
                      std::make_shared<ErrorPolicy>(errors.parse({}), "c", 0, std::map<std::string, std::string>{}));
  runtime::data::DecodedBatch batch;
  poller.fill(batch, 1 << 20); // batch 1, offset 1
  poller.fill(batch, 1 << 20); // batch 2, offset 2
  BOOST_TEST(commits.empty()); // nothing delivered yet
  offsets->delivered(2);
  poller.fill(batch, 1 << 20);
  BOOST_TEST(commits.empty()); // batch 2 waits for batch 1
  offsets->delivered(1);
  poller.fill(batch, 1 << 20);
  BOOST_REQUIRE(commits.size() == 1u);
  BOOST_TEST(commits[0].at("p") == "2");
  poller.fill(batch, 1 << 20);
  BOOST_TEST(commits.size() == 1u); // told again only when it changes
}

BOOST_AUTO_TEST_SUITE_END()
