#include <boost/test/unit_test.hpp>

#include "runtime/cluster/membership.hpp"

using namespace weir::runtime::cluster;
using namespace std::chrono_literals;

namespace {

Member member(const std::string& id, int64_t started, uint64_t version = 0,
              MemberStatus status = MemberStatus::up) {
  return {id, id + ":7000", started, status, version};
}

} // namespace

BOOST_AUTO_TEST_SUITE(membership)

BOOST_AUTO_TEST_CASE(gossip_adds_members_and_newer_versions_win) {
  MembershipView v{member("a", 100)};
  BOOST_TEST(v.merge({member("b", 200), member("c", 300)}));
  BOOST_TEST(v.members().size() == 3u);
  BOOST_TEST(!v.merge({member("b", 200)}), "the same gossip again changes nothing");
  BOOST_TEST(v.merge({member("b", 200, 1, MemberStatus::leaving)}));
  BOOST_TEST(!v.merge({member("b", 200, 0)}), "an older version does not win");
  for (const auto& m : v.members())
    if (m.id == "b")
      BOOST_TEST(to_string(m.status) == "Leaving");
}

BOOST_AUTO_TEST_CASE(nobody_else_speaks_for_this_node) {
  MembershipView v{member("a", 100)};
  BOOST_TEST(!v.merge({member("a", 100, 9, MemberStatus::down)}));
  BOOST_TEST(to_string(v.self().status) == "Up");
  v.set_self_status(MemberStatus::leaving);
  BOOST_TEST(v.self().version == 1u);
}

BOOST_AUTO_TEST_CASE(the_oldest_reachable_up_member_leads) {
  auto t0 = MembershipView::Clock::now();
  MembershipView v{member("b", 200)};
  v.merge({member("a", 100), member("c", 300)});
  BOOST_TEST(v.leader().value_or("") == "a");
  BOOST_TEST((v.live() == std::vector<std::string>{"a", "b", "c"}));
  v.heard_from("a", t0);
  v.heard_from("c", t0 + 2s);
  v.detect(t0 + 3s, 2s); // a went silent
  BOOST_TEST(v.leader().value_or("") == "b");
  v.merge({member("a", 100, 1, MemberStatus::leaving)});
  v.heard_from("a", t0 + 3s);
  BOOST_TEST(v.leader().value_or("") == "b", "a leaving member does not lead");
}

BOOST_AUTO_TEST_CASE(equal_start_times_are_ordered_by_id) {
  MembershipView v{member("n2", 100)};
  v.merge({member("n1", 100)});
  BOOST_TEST(v.leader().value_or("") == "n1");
}

BOOST_AUTO_TEST_CASE(silence_past_the_timeout_makes_a_member_unreachable) {
  auto t0 = MembershipView::Clock::now();
  MembershipView v{member("a", 100)};
  v.merge({member("b", 200), member("c", 300)});
  v.heard_from("b", t0);
  v.heard_from("c", t0);
  BOOST_TEST(v.detect(t0 + 1s, 2s).empty());
  v.heard_from("c", t0 + 2s);
  auto gone = v.detect(t0 + 3s, 2s);
  BOOST_TEST((gone == std::vector<std::string>{"b"}));
  BOOST_TEST(!v.reachable("b"));
  BOOST_TEST(v.detect(t0 + 3500ms, 2s).empty(), "reported once");
  v.heard_from("b", t0 + 4s); // SIGCONT: it speaks again
  BOOST_TEST(v.reachable("b"));
}

BOOST_AUTO_TEST_CASE(members_known_only_by_gossip_get_a_full_timeout) {
  auto t0 = MembershipView::Clock::now();
  MembershipView v{member("a", 100)};
  v.merge({member("b", 200)});
  BOOST_TEST(v.detect(t0, 2s).empty());
  BOOST_TEST(v.detect(t0 + 1s, 2s).empty());
  BOOST_TEST(v.detect(t0 + 3s, 2s).size() == 1u);
}

// A node cut from Kafka marks itself Leaving: it takes no work and does not lead,
// on every node its gossip reaches; Up again when Kafka answers.
BOOST_AUTO_TEST_CASE(a_leaving_member_neither_takes_work_nor_leads) {
  MembershipView a{member("a", 100)};
  MembershipView b{member("b", 200)};
  a.merge(b.members());
  b.merge(a.members());
  a.set_self_status(MemberStatus::leaving);
  BOOST_TEST(b.merge(a.members()));
  BOOST_TEST((b.live() == std::vector<std::string>{"b"}));
  BOOST_TEST(b.leader().value_or("") == "b");
  BOOST_TEST(a.leader().value_or("") == "b", "a knows it cannot lead either");
  a.set_self_status(MemberStatus::up);
  BOOST_TEST(b.merge(a.members()));
  BOOST_TEST(b.leader().value_or("") == "a");
}

BOOST_AUTO_TEST_CASE(a_member_marked_down_stays_down_and_spreads) {
  MembershipView v{member("a", 100)};
  v.merge({member("b", 200, 3)});
  v.mark_down("b");
  BOOST_TEST(v.live().size() == 1u);
  BOOST_TEST(v.detect(MembershipView::Clock::now(), 0s).empty(), "down members are not watched");
  BOOST_TEST(!v.merge({member("b", 200, 3)}), "older gossip does not revive it");
  MembershipView other{member("c", 300)};
  BOOST_TEST(other.merge(v.members()));
  for (const auto& m : other.members())
    if (m.id == "b")
      BOOST_TEST(to_string(m.status) == "Down");
}

BOOST_AUTO_TEST_SUITE_END()
