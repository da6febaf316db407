// Every type that crosses nodes must survive CAF's binary serializer: CAF 0.17
// silently drops what it cannot serialize between nodes.
#include <boost/test/unit_test.hpp>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/message.hpp>

#include "actors/cluster/membership_actor.hpp"
#include "actors/cluster/node.hpp"
#include "actors/messages.hpp"
#include "runtime/convert/converter.hpp"

using namespace weir;
using namespace weir::actors;

namespace {

struct Fixture {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  Fixture() {
    announce_types(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
  }

  /// Serializes a whole message (as the middleman does) and reads it back.
  caf::message round_trip(const caf::message& in) {
    std::vector<char> buf;
    caf::binary_serializer sink{*sys, buf};
    auto copy = in;
    BOOST_REQUIRE(!sink(copy));
    caf::message out;
    caf::binary_deserializer source{*sys, buf};
    BOOST_REQUIRE(!source(out));
    return out;
  }
};

Batch sample_batch() {
  Batch b;
  b.sequence = 77;
  b.append("users", 2, 10, 1700000000123, std::string_view{"key"}, std::string_view{R"({"x":1})"});
  b.add_header("trace", std::string_view{"abc"});
  b.add_header("empty", std::nullopt);
  b.append("orders", 0, 11, -1, std::nullopt, std::nullopt);
  b.set_value(0, std::string_view{R"({"x":2})"});
  return b;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(messages, Fixture)

BOOST_AUTO_TEST_CASE(batch_round_trips) {
  auto in = sample_batch();
  auto out = round_trip(caf::make_message(batch_atom::value, in));
  BOOST_REQUIRE((out.match_elements<batch_atom, Batch>()));
  const auto& got = out.get_as<Batch>(1);
  BOOST_TEST((got == in));
  BOOST_TEST(got.bytes(got[0].value) == R"({"x":2})");
  BOOST_TEST(got.headers(got[0]).size() == 2u);
  BOOST_TEST(got[1].value.is_null());
  BOOST_TEST(got.byte_size() == in.byte_size()); // credit is charged identically on both nodes
}

BOOST_AUTO_TEST_CASE(credit_round_trips) {
  auto out = round_trip(caf::make_message(credit_atom::value, Credit{3, 12345678901ull}));
  BOOST_REQUIRE((out.match_elements<credit_atom, Credit>()));
  BOOST_TEST((out.get_as<Credit>(1) == Credit{3, 12345678901ull}));
}

BOOST_AUTO_TEST_CASE(stage_stats_round_trip) {
  StageStats s;
  s.name = "task-0/mask";
  s.kind = "transform";
  s.state = "RUNNING";
  s.records_in = 10;
  s.records_out = 9;
  s.errors = 1;
  s.last_error = "bad field";
  s.cpu_ns = 42;
  s.capacity = {4, 1000};
  s.out_max_in_flight = {2, 500};
  s.partitions = 0;
  s.idle_reason = "topic orders does not exist";
  s.source_lag_bytes = 4096;
  s.partition_lags = {{"orders", 0, 12}, {"orders", 1, -1}};
  s.poll_to_ack.record(3'000'000, 7);
  auto out = round_trip(caf::make_message(s));
  BOOST_REQUIRE(out.match_elements<StageStats>());
  const auto& got = out.get_as<StageStats>(0);
  BOOST_TEST(got.name == s.name);
  BOOST_TEST(got.last_error == s.last_error);
  BOOST_TEST(got.records_out == 9u);
  BOOST_TEST((got.capacity == s.capacity));
  BOOST_TEST((got.out_max_in_flight == s.out_max_in_flight));
  BOOST_TEST(got.partitions == 0);
  BOOST_TEST(got.idle_reason == s.idle_reason);
  BOOST_TEST(got.source_lag_bytes == 4096);
  BOOST_TEST((got.partition_lags == s.partition_lags));
  BOOST_TEST((got.poll_to_ack == s.poll_to_ack));
  BOOST_TEST(got.poll_to_ack.total() == 7u);
}

BOOST_AUTO_TEST_CASE(offset_list_round_trips) {
  OffsetList in{{"users", 0, 42}, {"orders", 7, 1000000000000}};
  auto out = round_trip(caf::make_message(durable_atom::value, in));
  BOOST_REQUIRE((out.match_elements<durable_atom, OffsetList>()));
  BOOST_TEST((out.get_as<OffsetList>(1) == in));
}

BOOST_AUTO_TEST_CASE(membership_messages_round_trip) {
  using runtime::cluster::Member;
  using runtime::cluster::MemberStatus;
  Member a{"10.0.0.1:7000#1", "10.0.0.1:7000", 1700000000000, MemberStatus::leaving, 4, "http://10.0.0.1:8083"};
  // A live handle, as gossip carries: CAF 0.17 reads a message holding a null actor
  // handle back as an empty message.
  auto someone = sys->spawn([]() -> caf::behavior { return {[](int) {}}; });
  cluster::MemberEntries entries{{a, someone}};
  auto out = round_trip(caf::make_message(entries));
  BOOST_REQUIRE(out.match_elements<cluster::MemberEntries>());
  const auto& got = out.get_as<cluster::MemberEntries>(0);
  BOOST_REQUIRE(got.size() == 1u);
  BOOST_TEST((got[0].member == a));
  BOOST_TEST((got[0].handle == someone));
  caf::anon_send_exit(someone, caf::exit_reason::user_shutdown);

  cluster::MembershipSnapshot snapshot;
  snapshot.members = {a};
  snapshot.unreachable = {a.id};
  snapshot.leader = a.id;
  snapshot.refused = "wrong cluster.secret";
  snapshot.freezes = 2;
  auto back = round_trip(caf::make_message(snapshot));
  BOOST_REQUIRE(back.match_elements<cluster::MembershipSnapshot>());
  const auto& s = back.get_as<cluster::MembershipSnapshot>(0);
  BOOST_TEST((s.members == snapshot.members));
  BOOST_TEST((s.unreachable == snapshot.unreachable));
  BOOST_TEST(s.leader == a.id);
  BOOST_TEST(s.refused == snapshot.refused);
  BOOST_TEST(s.freezes == 2u);
}

// A node's task configs on their way to the leader, inside the forward the leader's
// membership actor passes on; and a connector restart for the node of its instance.
BOOST_AUTO_TEST_CASE(task_config_offers_and_restarts_round_trip) {
  using StringMap = std::map<std::string, std::string>;
  StringMap config{{"connector.class", "JdbcSourceConnector"}, {"tasks.max", "2"}};
  auto tasks = caf::make_message(StringMap{{"tables", "t1"}}, StringMap{{"tables", "t2"}});
  auto offer = caf::make_message(cluster::task_configs_atom::value, std::string{"src"}, config, tasks,
                                 std::string{"127.0.0.1:7001"}, uint64_t{5});
  auto out = round_trip(caf::make_message(cluster::forward_atom::value, offer));
  BOOST_REQUIRE((out.match_elements<cluster::forward_atom, caf::message>()));
  const auto& inner = out.get_as<caf::message>(1);
  BOOST_REQUIRE((inner.match_elements<cluster::task_configs_atom, std::string, StringMap, caf::message, std::string,
                                      uint64_t>()));
  BOOST_TEST(inner.get_as<std::string>(1) == "src");
  BOOST_TEST((inner.get_as<StringMap>(2) == config));
  const auto& list = inner.get_as<caf::message>(3);
  BOOST_REQUIRE(list.size() == 2u);
  BOOST_TEST(list.get_as<StringMap>(1).at("tables") == "t2");
  BOOST_TEST(inner.get_as<std::string>(4) == "127.0.0.1:7001");
  BOOST_TEST(inner.get_as<uint64_t>(5) == 5u);
  auto restart = round_trip(caf::make_message(cluster::restart_atom::value, std::string{"src"}));
  BOOST_REQUIRE((restart.match_elements<cluster::restart_atom, std::string>()));
}

BOOST_AUTO_TEST_CASE(decoded_batch_round_trips_with_values_and_states) {
  using namespace weir::runtime;
  convert::RecordCodec codec{
    convert::make_converter("StringConverter", {}, true),
    convert::make_converter("JsonConverter", {{"schemas.enable", "false"}}, false)};
  Batch raw;
  raw.append("users", 1, 5, 1700000000000, std::string_view{"k"},
             std::string_view{R"({"name":"ada","age":36})"});
  raw.add_header("trace", std::string_view{"t-1"});
  raw.append("users", 1, 6, 1700000000001, std::nullopt, std::nullopt);
  DecodedBatchMsg msg{std::make_shared<runtime::data::DecodedBatch>(codec.decode(std::move(raw)))};
  (*msg.batch)[1].state = runtime::data::RecordState::Dropped;
  auto out = round_trip(caf::make_message(batch_atom::value, msg, uint64_t{123}));
  BOOST_REQUIRE((out.match_elements<batch_atom, DecodedBatchMsg, uint64_t>()));
  const auto& got = *out.get_as<DecodedBatchMsg>(1).batch;
  BOOST_REQUIRE(got.size() == 2u);
  BOOST_TEST(got[0].topic == "users");
  BOOST_TEST(got[0].offset == 5);
  BOOST_TEST(got[0].key.as_string() == "k");
  auto* name = got[0].value.find("name");
  BOOST_REQUIRE(name != nullptr);
  BOOST_TEST(name->as_string() == "ada");
  BOOST_REQUIRE(got[0].headers.size() == 1u);
  BOOST_TEST(got[0].headers[0].key == "trace");
  BOOST_TEST((got[1].state == runtime::data::RecordState::Dropped));
  BOOST_TEST(out.get_as<uint64_t>(2) == 123u); // the charged credit travels unchanged
}

BOOST_AUTO_TEST_CASE(control_atoms_round_trip) {
  for (auto m : {caf::make_message(attach_atom::value), caf::make_message(eos_atom::value),
                 caf::make_message(stats_atom::value)}) {
    auto out = round_trip(m);
    BOOST_TEST(out.size() == 1u);
    BOOST_TEST(out.type_token() == m.type_token());
  }
}

BOOST_AUTO_TEST_SUITE_END()
