#include <boost/test/unit_test.hpp>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "actors/messages.hpp"
#include "actors/stage.hpp"
#include "engine/pipeline/sink_pipeline.hpp"
#include "runtime/convert/string_converter.hpp"
#include "tests/support/process.hpp"
#include "tests/support/test_stages.hpp"
#include "tests/support/actor_system.hpp"

using namespace weir;
using namespace weir::actors;
using namespace std::chrono_literals;

namespace {

using testing::System;

/// Runs generator -> tagger -> sink and returns the sink's final stats.
StageStats run_pipeline(caf::actor_system& sys, std::shared_ptr<testing::CheckingSink> sink,
                        uint64_t records, Credit capacity, caf::actor* tagger_out = nullptr) {
  caf::scoped_actor self{sys};
  auto sink_actor = spawn_stage(sys, {"sink", sink, {}, capacity, self});
  auto tagger = spawn_stage(sys, {"tagger", std::make_shared<testing::Tagger>(), sink_actor,
                                  capacity, {}});
  if (tagger_out)
    *tagger_out = tagger;
  spawn_feed(sys, {"gen", std::make_shared<testing::Generator>(records, 50), tagger});
  StageStats result;
  bool done = false;
  self->receive([&](done_atom, const StageStats& s) { result = s; done = true; },
                caf::after(60s) >> [] {});
  BOOST_REQUIRE_MESSAGE(done, "pipeline did not finish within 60 s");
  return result;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(stage, System)

BOOST_AUTO_TEST_CASE(every_record_arrives_once_in_order_and_transformed) {
  auto sink = std::make_shared<testing::CheckingSink>();
  auto stats = run_pipeline(*sys, sink, 20000, {4, 64u << 10});
  BOOST_TEST(sink->received() == 20000u);
  BOOST_TEST(sink->out_of_order() == 0u);
  BOOST_TEST(sink->untransformed() == 0u);
  BOOST_TEST(stats.records_in == 20000u);
  BOOST_TEST(stats.state == "FINISHED");
}

BOOST_AUTO_TEST_CASE(a_slow_sink_holds_no_more_than_its_credit) {
  auto sink = std::make_shared<testing::CheckingSink>(5ms);
  caf::actor tagger;
  Credit capacity{2, 64u << 10};
  caf::scoped_actor self{*sys};
  auto sink_actor = spawn_stage(*sys, {"sink", sink, {}, capacity, self});
  tagger = spawn_stage(*sys, {"tagger", std::make_shared<testing::Tagger>(), sink_actor,
                              capacity, {}});
  auto source = spawn_feed(*sys, {"gen", std::make_shared<testing::Generator>(3000, 50),
                                    tagger});
  // Sample the tagger while the slow sink works: its in-flight credit never exceeds
  // what the sink granted, and the sink's held batches never exceed its capacity.
  uint64_t samples = 0;
  uint32_t most_in_flight = 0;
  bool done = false;
  while (!done) {
    self->request(tagger, 1s, stats_atom::value).receive(
      [&](const StageStats& s) {
        ++samples;
        BOOST_REQUIRE(s.out_in_flight.batches <= capacity.batches);
        BOOST_REQUIRE(s.out_in_flight.bytes <= capacity.bytes);
        BOOST_REQUIRE(s.held.batches <= capacity.batches);
        most_in_flight = std::max(most_in_flight, s.out_max_in_flight.batches);
      },
      [&](const caf::error&) {}); // the tagger finishes before the sink
    self->receive([&](done_atom, const StageStats&) { done = true; }, caf::after(2ms) >> [] {});
  }
  // The slow sink really did push back: the tagger used all of its credit.
  BOOST_TEST(most_in_flight == capacity.batches);
  BOOST_TEST(samples > 0u);
  BOOST_TEST(sink->received() == 3000u);
  BOOST_TEST(sink->out_of_order() == 0u);
}

BOOST_AUTO_TEST_CASE(a_failing_stage_stops_the_flow_and_ends_with_its_trace) {
  struct Failing : runtime::StageLogic {
    int seen = 0;
    runtime::RetryAfter process(Batch&) override {
      if (++seen == 3)
        throw std::runtime_error("boom at batch 3");
      return {};
    }
    std::string_view kind() const noexcept override { return "transform"; }
  };
  runtime::metrics::MetricsRegistry registry;
  caf::scoped_actor self{*sys};
  auto sink = std::make_shared<testing::CheckingSink>();
  auto sink_actor = spawn_stage(*sys, {"sink", sink, {}, {2, 1u << 20}, self});
  StageSpec failing_spec{"failing", std::make_shared<Failing>(), sink_actor, {2, 1u << 20}, {}};
  failing_spec.cell = registry.cell({"c", 0, "failing"}, runtime::metrics::StageRole::transform);
  auto failing = spawn_stage(*sys, std::move(failing_spec));
  self->monitor(failing);
  spawn_feed(*sys, {"gen", std::make_shared<testing::Generator>(10000, 10), failing});
  // Its end carries the trace, for whoever monitors it (its task actor).
  caf::error reason;
  self->receive([&](caf::down_msg& down) { reason = std::move(down.reason); }, caf::after(10s) >> [] {});
  BOOST_REQUIRE(reason);
  BOOST_REQUIRE(reason.context().match_elements<std::string>());
  BOOST_TEST(reason.context().get_as<std::string>(0) == "boom at batch 3");
  // Its last figures were published first.
  auto s = registry.snapshot().at(0).stats;
  BOOST_TEST(s.state == "FAILED");
  BOOST_TEST(s.last_error == "boom at batch 3");
  BOOST_TEST(s.records_in <= 40u); // at most its credit more arrived, and stopped there
  // Batches 1 and 2 passed; the failed batch and everything after it did not.
  std::this_thread::sleep_for(100ms);
  BOOST_TEST(sink->received() == 20u);
}

/// A sink that asks for its third batch again, once, after `wait`.
struct RetryingSink : runtime::StageLogic {
  explicit RetryingSink(std::chrono::milliseconds w) : wait(w) {}
  std::chrono::milliseconds wait;
  testing::CheckingSink inner;
  int batches = 0;
  runtime::RetryAfter process(Batch& b) override {
    if (++batches == 3)
      return wait;
    return inner.process(b);
  }
  std::string_view kind() const noexcept override { return "sink"; }
};

BOOST_AUTO_TEST_CASE(a_sink_waiting_for_a_retry_keeps_answering_and_keeps_order) {
  caf::scoped_actor self{*sys};
  // A retry an hour away: meanwhile the sink answers, holding the batch.
  auto stuck = std::make_shared<RetryingSink>(1h);
  auto stuck_actor = spawn_stage(*sys, {"stuck", stuck, {}, {2, 1u << 20}, self});
  auto stuck_feed = spawn_feed(*sys, {"gen", std::make_shared<testing::Generator>(1000, 10), stuck_actor});
  bool holding = testing::wait_until(10s, 10ms, [&] {
    StageStats s;
    self->request(stuck_actor, 1s, stats_atom::value).receive([&](const StageStats& x) { s = x; },
                                                              [](const caf::error&) {});
    return s.held.batches > 0 && s.records_in >= 30u;
  });
  BOOST_TEST(holding);
  BOOST_TEST(stuck->inner.received() == 20u);
  self->send_exit(stuck_feed, caf::exit_reason::user_shutdown);
  self->send_exit(stuck_actor, caf::exit_reason::user_shutdown);

  // A retry due soon: every record arrives, in order.
  auto sink = std::make_shared<RetryingSink>(10ms);
  auto sink_actor = spawn_stage(*sys, {"sink", sink, {}, {2, 1u << 20}, self});
  spawn_feed(*sys, {"gen", std::make_shared<testing::Generator>(1000, 10), sink_actor});
  StageStats done;
  self->receive([&](done_atom, const StageStats& s) { done = s; }, caf::after(60s) >> [] {});
  BOOST_TEST(done.state == "FINISHED");
  BOOST_TEST(sink->inner.received() == 1000u);
  BOOST_TEST(sink->inner.out_of_order() == 0u);
}

/// A schema registry that goes down once 25 values were read, until `back`.
struct Outage {
  std::atomic<int> decoded{0};
  std::atomic<int> failures{0};
  std::atomic<bool> back{false};
};

/// Reads values as strings while the Outage allows it.
class OutageDecoder : public runtime::convert::Converter {
public:
  explicit OutageDecoder(std::shared_ptr<Outage> outage) : outage_(std::move(outage)) {}
  std::string_view class_name() const noexcept override { return "org.example.Registry"; }
  void to_connect(const std::optional<std::string_view>& bytes, runtime::data::DecodedBatch&,
                  runtime::data::Value& out, const runtime::data::Schema*& schema) override {
    if (outage_->decoded >= 25 && !outage_->back) {
      ++outage_->failures;
      throw runtime::data::RetriableError("registry unreachable");
    }
    ++outage_->decoded;
    out = bytes ? runtime::data::Value::string(*bytes) : runtime::data::Value{};
    schema = nullptr;
  }
  bool from_connect(const runtime::data::Value&, const runtime::data::Schema*, std::string&) override {
    return false;
  }

private:
  std::shared_ptr<Outage> outage_;
};

/// Counts decoded records, checking that offsets come in order and each value is its record's.
struct DecodedCheckingSink : runtime::DecodedStageLogic {
  std::atomic<uint64_t> received{0};
  std::atomic<uint64_t> wrong{0};
  int64_t expected = 0;
  runtime::RetryAfter process(runtime::data::DecodedBatch& b) override {
    for (const auto& r : b.records()) {
      if (r.offset != expected++ || !r.value.as_string().starts_with("record-" + std::to_string(r.offset) + ":"))
        ++wrong;
    }
    received += b.size();
    return {};
  }
  std::string_view kind() const noexcept override { return "sink"; }
};

/// A sink task's consumer as the task spawns it (detached, converters included), its
/// registry down from the third batch on; retried forever.
caf::actor spawn_consumer(caf::actor_system& sys, std::shared_ptr<Outage> outage, caf::actor sink) {
  ConfigDef def;
  engine::pipeline::ErrorPolicy::define(def);
  auto policy = std::make_shared<engine::pipeline::ErrorPolicy>(
    def.parse({{"errors.retry.timeout", "-1"}}), "c", 0, std::map<std::string, std::string>{});
  auto reader = std::make_shared<engine::pipeline::ConvertingReader>(
    std::make_shared<testing::Generator>(1000, 10, 10),
    runtime::convert::RecordCodec{std::make_unique<runtime::convert::StringConverter>(),
                                  std::make_unique<OutageDecoder>(std::move(outage))},
    std::move(policy));
  DecodedFeedSpec spec{"consumer", std::move(reader), std::move(sink)};
  spec.detached = true;
  return spawn_feed(sys, std::move(spec));
}

/// Waits until the consumer has tried its converter again, then asks it for its
/// figures: a consumer sleeping between retries (or retrying inside one fill)
/// would not answer within the second.
bool answers_while_retrying(caf::scoped_actor& self, const caf::actor& consumer, const Outage& outage) {
  if (!testing::wait_until(10s, 10ms, [&] { return outage.failures >= 2; }))
    return false;
  bool answered = false;
  self->request(consumer, 1s, stats_atom::value).receive([&](const StageStats& s) { answered = s.state == "RUNNING"; },
                                                         [](const caf::error&) {});
  return answered;
}

BOOST_AUTO_TEST_CASE(a_consumer_retrying_its_converter_keeps_answering_then_delivers_each_record_once) {
  caf::scoped_actor self{*sys};
  auto outage = std::make_shared<Outage>();
  auto sink = std::make_shared<DecodedCheckingSink>();
  auto sink_actor = spawn_stage(*sys, DecodedStageSpec{"sink", sink, {}, {2, 1u << 20}, self});
  auto consumer = spawn_consumer(*sys, outage, sink_actor);
  // Its thread does not sleep through the retries: it answers, holding the third batch.
  BOOST_TEST(answers_while_retrying(self, consumer, *outage));
  BOOST_TEST(testing::wait_until(10s, 10ms, [&] { return sink->received == 20u; }));
  outage->back = true;
  StageStats done;
  self->receive([&](done_atom, const StageStats& s) { done = s; }, caf::after(60s) >> [] {});
  BOOST_TEST(done.state == "FINISHED");
  BOOST_TEST(sink->received == 1000u);
  BOOST_TEST(sink->wrong == 0u);
}

BOOST_AUTO_TEST_CASE(a_consumer_retrying_its_converter_stops_when_asked) {
  caf::scoped_actor self{*sys};
  auto sink = std::make_shared<DecodedCheckingSink>();
  auto sink_actor = spawn_stage(*sys, DecodedStageSpec{"sink", sink, {}, {2, 1u << 20}, self});
  auto outage = std::make_shared<Outage>();
  auto consumer = spawn_consumer(*sys, outage, sink_actor);
  BOOST_TEST(answers_while_retrying(self, consumer, *outage));
  // The registry never comes back (errors.retry.timeout=-1); a stop still ends the
  // pipeline, with what was delivered before the outage.
  self->send(consumer, stop_atom::value);
  StageStats done;
  self->receive([&](done_atom, const StageStats& s) { done = s; }, caf::after(10s) >> [] {});
  BOOST_TEST(done.state == "FINISHED");
  BOOST_TEST(sink->received == 20u);
  BOOST_TEST(sink->wrong == 0u);
}

BOOST_AUTO_TEST_CASE(a_failing_source_is_logged_as_what_it_is) {
  // A sink task's consumer is a feed stage: its failure must not read "feed ...".
  struct Failing : runtime::BatchFeed {
    Status fill(Batch&, uint64_t) override { throw std::runtime_error("broker gone"); }
    std::string_view kind() const noexcept override { return "consumer"; }
  };
  std::ostringstream log;
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>(
    "captured", std::make_shared<spdlog::sinks::ostream_sink_mt>(log)));
  caf::scoped_actor self{*sys};
  auto sink = std::make_shared<testing::CheckingSink>();
  auto sink_actor = spawn_stage(*sys, {"sink", sink, {}, {2, 1u << 20}, self});
  FeedSpec consumer{"orders-1/consumer", std::make_shared<Failing>(), sink_actor};
  consumer.role = "the consumer of sink task orders-1";
  auto source = spawn_feed(*sys, std::move(consumer));
  self->monitor(source);
  // The actor logs before it ends with the trace.
  caf::error reason;
  self->receive([&](caf::down_msg& down) { reason = std::move(down.reason); }, caf::after(10s) >> [] {});
  spdlog::set_default_logger(previous);
  BOOST_TEST(bool{reason});
  BOOST_TEST(log.str().find("the consumer of sink task orders-1 failed: broker gone") != std::string::npos,
             log.str());
  BOOST_TEST(log.str().find("feed orders-1/consumer") == std::string::npos, log.str());
}

BOOST_AUTO_TEST_CASE(a_busy_sink_s_figures_are_readable_without_asking_it) {
  // The sink takes 200 ms per batch: a stats request would queue behind batches,
  // while its cell shows what it wrote so far at any moment.
  runtime::metrics::MetricsRegistry registry;
  using runtime::metrics::StageRole;
  auto sink = std::make_shared<testing::CheckingSink>(200ms);
  caf::scoped_actor self{*sys};
  StageSpec sink_spec{"sink", sink, {}, {2, 64u << 10}, self};
  sink_spec.cell = registry.cell({"c", 0, "sink"}, StageRole::sink_writer);
  auto sink_actor = spawn_stage(*sys, std::move(sink_spec));
  FeedSpec gen{"gen", std::make_shared<testing::Generator>(1000, 50), sink_actor};
  gen.cell = registry.cell({"c", 0, "gen"}, StageRole::sink_reader);
  spawn_feed(*sys, std::move(gen));
  bool seen_progress = testing::wait_until(10s, 10ms, [&] {
    for (const auto& s : registry.snapshot())
      if (s.key.stage == "sink" && s.stats.records_out > 0 && s.stats.records_out < 1000)
        return true;
    return false;
  });
  BOOST_TEST(seen_progress, "the sink's cell never showed partial progress");
  self->receive([&](done_atom, const StageStats&) {}, caf::after(60s) >> [] {});
  auto final = registry.snapshot();
  BOOST_REQUIRE(final.size() == 2u);
  BOOST_TEST(final[1].stats.records_out == 1000u); // "sink" sorts after "gen"
  BOOST_TEST(final[1].stats.state == "FINISHED");
  BOOST_TEST(final[0].stats.records_out == 1000u);
  // A feed's "in" is what its fills returned (a consumer's: what it polled).
  BOOST_TEST(final[0].stats.records_in == 1000u);
  BOOST_TEST(final[0].stats.batches_in > 0u);
}

BOOST_AUTO_TEST_CASE(a_new_run_of_a_task_shows_running_before_its_actors_do_anything) {
  // The cells are the task's: a drained run leaves FINISHED in them, which the next
  // run replaces when it is spawned, not when its actors first run or see a batch.
  runtime::metrics::MetricsRegistry registry;
  using runtime::metrics::StageRole;
  auto sink_cell = registry.cell({"c", 0, "sink"}, StageRole::sink_writer);
  auto gen_cell = registry.cell({"c", 0, "gen"}, StageRole::sink_reader);
  StageStats drained;
  drained.state = "FINISHED";
  drained.records_in = 7;
  sink_cell->publish(drained);
  gen_cell->publish(drained);
  caf::scoped_actor self{*sys};
  StageSpec sink_spec{"sink", std::make_shared<testing::CheckingSink>(), {}, {2, 64u << 10}, self};
  sink_spec.cell = sink_cell;
  auto sink_actor = spawn_stage(*sys, std::move(sink_spec));
  FeedSpec gen{"gen", std::make_shared<testing::Generator>(0, 50), sink_actor};
  gen.cell = gen_cell;
  spawn_feed(*sys, std::move(gen));
  // Read at once, racing the actors' start: this run's figures (its names, nothing
  // counted), whether its actors have run yet or not.
  for (const auto& s : registry.snapshot()) {
    BOOST_TEST(s.stats.records_in == 0u, s.key.stage);
    BOOST_TEST(s.stats.name == s.key.stage);
  }
  self->receive([&](done_atom, const StageStats&) {}, caf::after(60s) >> [] {});
}

BOOST_AUTO_TEST_SUITE_END()
