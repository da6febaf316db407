#include "engine/plugins/sink_adapter.hpp"

#include <boost/test/unit_test.hpp>

#include <thread>

#include "runtime/convert/converter.hpp"

using namespace weir;
namespace plugins = weir::engine::plugins;

namespace {

/// Two decoded records, {"id":1} and {"id":2}, with a dropped one between them.
runtime::data::DecodedBatch decoded() {
  runtime::convert::RecordCodec codec(
      runtime::convert::make_converter("org.apache.kafka.connect.storage.StringConverter", {}, true),
      runtime::convert::make_converter("org.apache.kafka.connect.json.JsonConverter", {{"schemas.enable", "false"}},
                                       false));
  Batch raw;
  raw.append("t", 0, 10, -1, std::string_view{"a"}, std::string_view{R"({"id":1})"});
  raw.append("t", 0, 11, -1, std::string_view{"x"}, std::string_view{R"({"id":99})"});
  raw.append("t", 0, 12, -1, std::string_view{"b"}, std::string_view{R"({"id":2})"});
  auto batch = codec.decode(std::move(raw));
  batch[1].state = RecordState::Dropped; // an SMT's filter
  return batch;
}

/// What a sink saw of each record: (text of the value or "-", the id read from the value).
std::vector<std::pair<std::string, int64_t>> seen;

void look(const SinkBatch& batch) {
  seen.clear();
  for (const auto& r : batch) {
    const auto* id = r.data->value.find("id");
    seen.emplace_back(r.value ? std::string{*r.value} : "-", id ? id->as_int() : -1);
  }
}

class LookingSink : public Sink {
public:
  void open(const Config&, const SinkContext&) override {}
  void put(SinkBatch& batch) override { look(batch); }
};

/// Completes as the test says: in put(), by throwing, or by dropping the handle.
enum class Then { succeed_rejecting_second, throw_, drop, keep };
Then then = Then::succeed_rejecting_second;
BatchCompletion kept;

class AsyncLookingSink : public AsyncSink {
public:
  void open(const Config&, const SinkContext&) override {}
  void put(const SinkBatch& batch, BatchCompletion done) override {
    look(batch);
    switch (then) {
      case Then::succeed_rejecting_second: done.fail(1, "no"); done.succeed(); break;
      case Then::throw_: throw std::runtime_error("destination down");
      case Then::drop: break;
      case Then::keep: kept = std::move(done); break;
    }
  }
};

plugins::LoadedSink sink(SinkInput input, bool async) {
  SinkDescriptor d{"org.example.Looking", {}, "1", [](ConfigDef&) {}, nullptr};
  if (async)
    d.make_async = [] { return std::unique_ptr<AsyncSink>(new AsyncLookingSink()); };
  else
    d.make = [] { return std::unique_ptr<Sink>(new LookingSink()); };
  d.input = input;
  plugins::LoadedSink loaded{std::move(d), ConfigDef{}, "(test)"};
  if (async)
    loaded.definition.define(std::string{plugins::in_flight_key}, ConfigType::Int, "4", Importance::Low, "");
  return loaded;
}

} // namespace

BOOST_AUTO_TEST_SUITE(sink_adapter)

// Both inputs see the decoded values; only JsonText pays for text.
BOOST_AUTO_TEST_CASE(a_values_sink_gets_values_and_no_text) {
  auto values = sink(SinkInput::Values, false);
  auto text = sink(SinkInput::JsonText, false);
  auto batch = decoded();
  plugins::make_sink_writer(values, {}, "c", 0)->write(batch);
  BOOST_TEST((seen == std::vector<std::pair<std::string, int64_t>>{{"-", 1}, {"-", 2}}));
  plugins::make_sink_writer(text, {}, "c", 0)->write(batch);
  BOOST_TEST((seen == std::vector<std::pair<std::string, int64_t>>{{R"({"id":1})", 1}, {R"({"id":2})", 2}}));
}

// A completion given inside put() arrives after it, its indexes mapped past the
// dropped record to the batch's own.
BOOST_AUTO_TEST_CASE(an_async_sinks_rejections_map_to_the_batchs_records) {
  auto plugin = sink(SinkInput::Values, true);
  auto writer = plugins::make_sink_writer(plugin, {}, "c", 0);
  auto* async = dynamic_cast<runtime::connector_api::AsyncSinkWriter*>(writer.get());
  BOOST_REQUIRE(async);
  BOOST_TEST(async->max_in_flight() == 4u);
  auto batch = decoded();
  std::optional<runtime::connector_api::WriteOutcome> got;
  then = Then::succeed_rejecting_second;
  async->start(batch, [&](runtime::connector_api::WriteOutcome o) { got = std::move(o); });
  BOOST_REQUIRE(got);
  BOOST_TEST(!got->error);
  BOOST_REQUIRE_EQUAL(got->failures.size(), 1u);
  BOOST_TEST(got->failures[0].index == 2u);
}

// A put() that throws, or a handle dropped, fails the batch (to be retried) once.
BOOST_AUTO_TEST_CASE(a_throwing_put_or_a_dropped_handle_fails_the_batch_once) {
  auto plugin = sink(SinkInput::Values, true);
  auto writer = plugins::make_sink_writer(plugin, {}, "c", 0);
  auto& async = dynamic_cast<runtime::connector_api::AsyncSinkWriter&>(*writer);
  auto batch = decoded();
  for (auto how : {Then::throw_, Then::drop}) {
    int calls = 0;
    std::string error;
    then = how;
    async.start(batch, [&](runtime::connector_api::WriteOutcome o) {
      ++calls;
      error = o.error.value_or("");
    });
    BOOST_TEST(calls == 1);
    BOOST_TEST(error == (how == Then::throw_ ? "destination down"
                                             : "the sink dropped the batch's completion without completing it"));
  }
  // Completed later, from another thread: the blocking write() waits for it.
  then = Then::keep;
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
    kept.fail(0, "bad");
    kept.succeed();
  });
  writer->write(batch);
  later.join();
  BOOST_TEST((batch[0].state == RecordState::Failed));
  BOOST_TEST(batch[2].live());
}

BOOST_AUTO_TEST_SUITE_END()
