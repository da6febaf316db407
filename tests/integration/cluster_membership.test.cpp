// Cluster membership across processes (issue 6): nodes join through a seed, agree on
// the members and the leader, refuse a wrong secret, and detect kill -9 (connection
// loss) and SIGSTOP (application heartbeat) within bounded times, then take a
// resumed node back. Each member is a `cluster_member` process on loopback.
#include "tests/support/process.hpp"

#include <boost/test/unit_test.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

using namespace weir::testing;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

constexpr const char* heartbeat_ms = "250";
constexpr auto unreachable_after = 1500ms;

/// A free loopback port (bound then released; the member binds it right after).
int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

struct Node {
  std::string address;
  std::unique_ptr<ChildProcess> process;

  /// The last VIEW line ("" before the first).
  std::string view() const {
    auto out = process->output();
    auto at = out.rfind("VIEW ");
    if (at == std::string::npos)
      return "";
    return out.substr(at, out.find('\n', at) - at);
  }
  std::string field(const std::string& name) const {
    auto v = view();
    auto at = v.find(name + "=");
    if (at == std::string::npos)
      return "";
    at += name.size() + 1;
    return v.substr(at, v.find(' ', at) - at);
  }
  /// Up members this node can reach.
  int live() const {
    int n = 0;
    auto members = field("members"), unreachable = field("unreachable");
    for (size_t at = members.find("/Up"); at != std::string::npos; at = members.find("/Up", at + 1)) {
      auto start = members.rfind(',', at);
      auto id = members.substr(start == std::string::npos ? 0 : start + 1,
                               at - (start == std::string::npos ? 0 : start + 1));
      n += unreachable.find(id) == std::string::npos ? 1 : 0;
    }
    return n;
  }
  bool sees_unreachable(const Node& other) const {
    return field("unreachable").find(other.address + "#") != std::string::npos;
  }
  bool leads_is(const Node& other) const {
    return field("leader").rfind(other.address + "#", 0) == 0;
  }
};

struct Cluster {
  TempDir dir{"weir-cluster"};
  std::string member_bin = std::getenv("WEIR_CLUSTER_MEMBER") ? std::getenv("WEIR_CLUSTER_MEMBER")
                                                               : "cluster_member";

  Node start(const std::string& seeds, const std::string& secret = "s3cret",
             std::string address = "") {
    if (address.empty())
      address = "127.0.0.1:" + std::to_string(free_port());
    Node n{address, nullptr};
    auto log = dir / ("member-" + address.substr(address.rfind(':') + 1) + ".log");
    n.process = std::make_unique<ChildProcess>(
      std::vector<std::string>{member_bin, address, seeds.empty() ? address : seeds, "weir-test",
                               secret, heartbeat_ms, std::to_string(unreachable_after.count())},
      log);
    return n;
  }
};

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

} // namespace

BOOST_AUTO_TEST_SUITE(cluster_membership)

BOOST_AUTO_TEST_CASE(join_refuse_detect_and_rejoin) {
  Cluster c;
  auto a = c.start("");
  BOOST_REQUIRE(wait_until(10s, 20ms, [&] { return a.live() == 1; }));
  auto b = c.start(a.address);
  auto d = c.start(a.address);
  std::vector<Node*> all{&a, &b, &d};
  bool agreed = wait_until(20s, 50ms, [&] {
    for (auto* n : all)
      if (n->live() != 3 || !n->leads_is(a))
        return false;
    return true;
  });
  BOOST_REQUIRE_MESSAGE(agreed, "no agreement on 3 members led by a:\n a: " << a.view() << "\n b: "
                                  << b.view() << "\n d: " << d.view());

  // A node with the wrong secret is refused, and both sides say why.
  auto intruder = c.start(a.address, "wrong");
  auto refused = intruder.process->wait(15s);
  BOOST_REQUIRE_MESSAGE(refused.has_value(), "the intruder was not refused: " << intruder.process->output());
  BOOST_TEST(refused->code == 3);
  BOOST_TEST(intruder.process->output().find("REFUSED wrong cluster.secret") != std::string::npos);
  BOOST_TEST(a.process->output().find("wrong cluster.secret") != std::string::npos);
  BOOST_TEST(a.live() == 3, "the intruder got in: " << a.view());

  // kill -9: the connection breaks, the others notice within a second or two.
  d.process->signal(SIGKILL);
  auto t0 = Clock::now();
  bool noticed = wait_until(10s, 20ms, [&] { return a.sees_unreachable(d) && b.sees_unreachable(d); });
  BOOST_TEST_MESSAGE("kill -9: unreachable after " << seconds_since(t0) << " s");
  BOOST_REQUIRE_MESSAGE(noticed, "kill -9 not noticed: " << a.view());
  BOOST_TEST(seconds_since(t0) < 5.0);

  // SIGSTOP: the process keeps its sockets; the application heartbeat notices.
  b.process->signal(SIGSTOP);
  t0 = Clock::now();
  noticed = wait_until(15s, 20ms, [&] { return a.sees_unreachable(b); });
  double stop_detect = seconds_since(t0);
  BOOST_TEST_MESSAGE("SIGSTOP: unreachable after " << stop_detect << " s (configured "
                                                   << unreachable_after.count() << " ms)");
  BOOST_REQUIRE_MESSAGE(noticed, "SIGSTOP not noticed: " << a.view());
  BOOST_TEST(stop_detect < std::chrono::duration<double>(unreachable_after).count() + 2.0);

  // SIGCONT: it speaks again and is taken back.
  b.process->signal(SIGCONT);
  t0 = Clock::now();
  bool back = wait_until(20s, 50ms, [&] { return !a.sees_unreachable(b) && b.live() >= 2; });
  BOOST_TEST_MESSAGE("SIGCONT: reachable again after " << seconds_since(t0) << " s");
  BOOST_TEST(back, "b did not come back:\n a: " << a.view() << "\n b: " << b.view()
                                                << "\n--- a's log:\n" << a.process->output()
                                                << "\n--- b's log:\n" << b.process->output());

  // A longer freeze: CAF drops the connection meanwhile (connection-timeout), and
  // the resumed node must notice it was frozen and dial everyone again.
  b.process->signal(SIGSTOP);
  BOOST_REQUIRE(wait_until(15s, 20ms, [&] { return a.sees_unreachable(b); }));
  std::this_thread::sleep_for(4s);
  b.process->signal(SIGCONT);
  t0 = Clock::now();
  back = wait_until(20s, 50ms, [&] { return !a.sees_unreachable(b) && b.live() >= 2; });
  BOOST_TEST_MESSAGE("SIGCONT after a long stop: reachable again after " << seconds_since(t0) << " s");
  BOOST_TEST(back, "b did not come back after a long stop:\n a: " << a.view() << "\n b: " << b.view());

  // The leader dies: the next oldest leads.
  a.process->signal(SIGKILL);
  bool new_leader = wait_until(10s, 20ms, [&] { return b.leads_is(b); });
  BOOST_TEST(new_leader, "b does not lead after a died: " << b.view());

  b.process->signal(SIGTERM);
  auto ended = b.process->wait(10s);
  BOOST_TEST((ended.has_value() && ended->clean()), "b did not stop cleanly");
}

BOOST_AUTO_TEST_SUITE_END()
