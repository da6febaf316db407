#include "runtime/cluster/published_assignment.hpp"

#include <boost/test/unit_test.hpp>

using namespace weir::runtime::cluster;

BOOST_AUTO_TEST_SUITE(published_assignment)

BOOST_AUTO_TEST_CASE(round_trips_and_answers_who_runs_what) {
  PublishedAssignment a;
  a.generation = 7;
  a.leader = "127.0.0.1:1#5";
  a.nodes["127.0.0.1:1"] = {"127.0.0.1:8083", {{"c", Work::connector_instance}, {"c", 0}}};
  a.nodes["127.0.0.1:2"] = {"127.0.0.1:8084", {{"odd \"name\"", 1}}};
  a.nodes["127.0.0.1:3"] = {"", {}};
  auto back = decode_assignment(encode(a));
  BOOST_TEST((back == a));
  BOOST_TEST(back.owner_of({"c", 0}) == "127.0.0.1:1");
  BOOST_TEST(back.owner_of({"c", 1}).empty());
  BOOST_TEST(back.work_of("127.0.0.1:2").size() == 1u);
  BOOST_TEST(back.work_of("nowhere").empty());
  BOOST_TEST(back.placement().size() == 3u);
  BOOST_TEST(back.placement().at({"odd \"name\"", 1}) == "127.0.0.1:2");
}

BOOST_AUTO_TEST_CASE(a_bad_record_is_refused_naming_the_problem) {
  auto refused = [](const std::string& value, const std::string& expected) {
    try {
      decode_assignment(value);
    } catch (const std::invalid_argument& e) {
      BOOST_TEST(std::string{e.what()}.find(expected) != std::string::npos, e.what());
      return;
    }
    BOOST_FAIL("accepted: " << value);
  };
  refused("{", "not JSON");
  refused(R"({"leader":"x","nodes":[]})", "'generation'");
  refused(R"({"generation":-1,"leader":"x","nodes":[]})", "'generation'");
  refused(R"({"generation":1,"nodes":[]})", "'leader'");
  refused(R"({"generation":1,"leader":"x"})", "'nodes'");
  refused(R"({"generation":1,"leader":"x","nodes":[{"address":"a"}]})", "without 'address' or 'work'");
  refused(R"({"generation":1,"leader":"x","nodes":[{"address":"a","work":[["c"]]}]})",
          "node a: a unit of work");
  refused(R"({"generation":1,"leader":"x","nodes":[{"address":"a","work":[["c",-2]]}]})",
          "node a: a unit of work");
  refused(R"({"generation":1,"leader":"x","nodes":[{"address":"a","work":[[3,0]]}]})",
          "a connector name");
}

BOOST_AUTO_TEST_SUITE_END()
