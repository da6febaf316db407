// A pipeline split across two actor systems connected through CAF's middleman
// over loopback: generator -> tagger on node A, a deliberately slow sink on node
// B. Credit crosses the network like any other message, so the first stage never
// has more batches or bytes in flight than it was granted.
#include <boost/test/unit_test.hpp>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/messages.hpp"
#include "actors/stage.hpp"
#include "tests/support/test_stages.hpp"

using namespace weir;
using namespace weir::actors;
using namespace std::chrono_literals;

namespace {

struct Node {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  Node() {
    announce_types(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(remote_pipeline)

BOOST_AUTO_TEST_CASE(credit_bounds_in_flight_across_two_actor_systems) {
  Node a, b;
  const Credit tagger_capacity{3, 96u << 10};
  const Credit sink_capacity{2, 64u << 10};
  const uint64_t records = 4000;

  // Node B: the slow sink, published on an ephemeral loopback port.
  caf::scoped_actor watcher{*b.sys};
  auto sink = std::make_shared<testing::CheckingSink>(4ms);
  auto sink_actor = spawn_stage(*b.sys, {"sink@B", sink, {}, sink_capacity, watcher});
  auto port = b.sys->middleman().publish(sink_actor, 0, "127.0.0.1");
  if (!port)
    BOOST_FAIL("publish failed: " << b.sys->render(port.error()));

  // Node A: the generator and a transform whose downstream is the remote sink.
  auto remote_sink = a.sys->middleman().remote_actor("127.0.0.1", *port);
  if (!remote_sink)
    BOOST_FAIL("remote_actor failed: " << a.sys->render(remote_sink.error()));
  auto tagger = spawn_stage(*a.sys, {"tagger@A", std::make_shared<testing::Tagger>(),
                                     *remote_sink, tagger_capacity, {}});
  auto source = spawn_feed(*a.sys, {"gen@A", std::make_shared<testing::Generator>(records, 40),
                                      tagger, 32u << 10});

  // Sample both senders until the sink reports the end of the stream.
  caf::scoped_actor probe{*a.sys};
  StageStats source_last, tagger_last, sink_final;
  uint64_t samples = 0;
  bool done = false;
  auto deadline = std::chrono::steady_clock::now() + 120s;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    for (auto* who : {&source, &tagger}) {
      probe->request(*who, 1s, stats_atom::value).receive(
        [&](const StageStats& s) {
          ++samples;
          auto cap = who == &source ? tagger_capacity : sink_capacity;
          BOOST_REQUIRE_LE(s.out_in_flight.batches, cap.batches);
          BOOST_REQUIRE_LE(s.out_in_flight.bytes, cap.bytes);
          BOOST_REQUIRE_LE(s.out_max_in_flight.batches, cap.batches);
          BOOST_REQUIRE_LE(s.out_max_in_flight.bytes, cap.bytes);
          (who == &source ? source_last : tagger_last) = s;
        },
        [](const caf::error&) {}); // finished stages are gone
    }
    watcher->receive([&](done_atom, const StageStats& s) { sink_final = s; done = true; },
                     caf::after(5ms) >> [] {});
  }
  BOOST_REQUIRE_MESSAGE(done, "the remote sink did not finish within 120 s");

  BOOST_TEST(sink->received() == records);
  BOOST_TEST(sink->out_of_order() == 0u);
  BOOST_TEST(sink->untransformed() == 0u);
  BOOST_TEST(sink_final.records_in == records);
  BOOST_TEST(samples > 10u);
  // The capacity the senders saw is exactly what their receivers granted, across
  // the network for the tagger.
  BOOST_TEST((source_last.out_capacity == tagger_capacity));
  BOOST_TEST((tagger_last.out_capacity == sink_capacity));
  // The slow sink pushed back all the way: the tagger filled its remote credit and
  // the generator filled the tagger's.
  BOOST_TEST(tagger_last.out_max_in_flight.batches == sink_capacity.batches);
  BOOST_TEST(source_last.out_max_in_flight.batches == tagger_capacity.batches);
  BOOST_TEST_MESSAGE("peak in flight: generator " << source_last.out_max_in_flight.batches
                     << " batches / " << source_last.out_max_in_flight.bytes << " bytes; tagger "
                     << tagger_last.out_max_in_flight.batches << " batches / "
                     << tagger_last.out_max_in_flight.bytes << " bytes");
}

BOOST_AUTO_TEST_SUITE_END()
