// A source task's actors (poller -> SMT stage -> producer) on the embedded Kafka:
// every record arrives, transformed and serialized once; the offsets count only
// what was delivered; and a task that resumes from them continues the sequence.
#include "actors/source_task_actor.hpp"

#include <boost/test/unit_test.hpp>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/messages.hpp"
#include "runtime/kafka/embedded_cluster.hpp"
#include "tests/support/kafka_unit.hpp"
#include "tests/support/actor_system.hpp"
#include "runtime/connector_api/source_task.hpp"

using namespace weir;
using namespace weir::actors;
using namespace weir::runtime::kafka::test;
using namespace std::chrono_literals;

namespace {

using testing::System;

SourceTaskSpec datagen(const std::string& topic, uint64_t iterations) {
  SourceTaskSpec spec;
  spec.connector = "dg";
  spec.plugin = engine::find_source("DatagenConnector");
  spec.config = {{"name", "dg"},
                 {"connector.class", "DatagenConnector"},
                 {"kafka.topic", topic},
                 {"quickstart", "users"},
                 {"iterations", std::to_string(iterations)},
                 {"max.interval", "0"},
                 {"random.seed", "5"},
                 {"transforms", "tag"},
                 {"transforms.tag.type", "org.apache.kafka.connect.transforms.InsertField$Value"},
                 {"transforms.tag.static.field", "via"},
                 {"transforms.tag.static.value", "weir"}};
  spec.worker_config = {{"bootstrap.servers", "embedded"},
                        {"key.converter", "org.apache.kafka.connect.storage.StringConverter"},
                        {"value.converter", "org.apache.kafka.connect.json.JsonConverter"},
                        {"value.converter.schemas.enable", "false"}};
  spec.capacity = {2, 256u << 10}; // small credit: many batches, all in order
  return spec;
}

/// Runs a task to its end; returns the producer's final stats and the offsets.
StageStats run(caf::actor_system& sys, SourceTaskSpec spec, runtime::connector_api::OffsetMap& offsets) {
  caf::scoped_actor self{sys};
  spec.observer = self;
  auto task = spawn_source_task(sys, spec);
  StageStats result;
  bool done = false;
  self->receive([&](done_atom, const StageStats& s) { result = s; done = true; },
                caf::after(60s) >> [] {});
  BOOST_REQUIRE_MESSAGE(done, "the source task did not finish within 60 s");
  offsets = task.offsets->committed();
  BOOST_TEST(task.offsets->pending_batches() == 0u);
  return result;
}

} // namespace

BOOST_AUTO_TEST_SUITE(source_task)

BOOST_AUTO_TEST_CASE(records_arrive_transformed_and_offsets_follow_delivery) {
  System s;
  auto topic = unique_name("weir-source-task");
  runtime::kafka::EmbeddedCluster::instance().create_topic(topic, 1);

  runtime::connector_api::OffsetMap offsets;
  runtime::metrics::MetricsRegistry metrics;
  auto spec1 = datagen(topic, 3000);
  spec1.metrics = &metrics;
  auto first = run(*s.sys, spec1, offsets);
  BOOST_TEST(first.records_out == 3000u);
  BOOST_TEST(first.errors == 0u);
  BOOST_TEST(first.batches_in > 2u); // the credit split it into several batches
  BOOST_TEST(offsets.at(R"({"task.id":0})") == R"({"current.iteration":3000})");
  // Every stage published its figures: poller, the SMT, producer.
  auto stages = metrics.snapshot("dg");
  BOOST_REQUIRE(stages.size() == 3u);
  for (const auto& st : stages) {
    BOOST_TEST_CONTEXT(st.key.stage) { BOOST_TEST(st.stats.records_out == 3000u); }
  }

  // Resumed from its offsets with a higher limit, it sends only the rest.
  auto spec = datagen(topic, 4000);
  spec.stored_offsets = offsets;
  auto second = run(*s.sys, spec, offsets);
  BOOST_TEST(second.records_out == 1000u);
  BOOST_TEST(offsets.at(R"({"task.id":0})") == R"({"current.iteration":4000})");

  runtime::kafka::Consumer consumer(consumer_props(unique_name("g")));
  consumer.subscribe({topic});
  std::vector<Consumed> got;
  BOOST_REQUIRE(poll_until(consumer, got, [&] { return got.size() >= 4000; }));
  BOOST_TEST(got.size() == 4000u);
  BOOST_REQUIRE(got.front().value && got.front().key);
  BOOST_TEST(got.front().value->find(R"("via":"weir")") != std::string::npos);
  BOOST_TEST(got.front().key->starts_with("User_"));
}

BOOST_AUTO_TEST_CASE(a_task_that_cannot_start_says_why) {
  System s;
  auto spec = datagen("t", 10);
  spec.stored_offsets = {{R"({"task.id":0})", R"({"iteration":"x"})"}};
  BOOST_CHECK_EXCEPTION(spawn_source_task(*s.sys, spec), std::runtime_error,
                        [](const std::runtime_error& e) {
                          return std::string{e.what()}.find("current.iteration") != std::string::npos;
                        });
}

BOOST_AUTO_TEST_SUITE_END()
