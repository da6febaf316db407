// The network between cluster nodes misbehaves while every node still reaches the
// broker (issue 20, "What it must show" item 2, between cluster nodes). Three
// `weir node`s run the JDBC sink into SQLite (insert mode, no keys: a row written
// twice would show) with 6 tasks; each node is reached by the others only through a
// Toxiproxy proxy of its own (cluster.advertised.address names the proxy, the seeds
// are the proxies), so every connection between two nodes crosses one. In turn:
//  1. 500 ms of latency and 64 KB/s on every connection between nodes: the cluster
//     keeps its placement and records flow;
//  2. every connection between nodes reset 1 s after it carries data, for 10 s;
//  3. every proxy disabled for 20 s, ten times the unreachable timeout: each node is
//     alone, yet all of them reach Kafka. Only the fenced leader (a) may assign: it
//     takes every task, and b and c, which lead nothing, stop theirs as they read its
//     assignment from the config topic. Records produced meanwhile arrive;
//  4. the proxies back: the tasks spread over the three again.
// Throughout, no task runs on two nodes for longer than the unreachable timeout,
// and in the end the table holds every record exactly once.
#include "tests/integration/node_cluster.hpp"
#include "tests/support/ports.hpp"
#include "tests/support/process.hpp"
#include "tests/support/toxiproxy.hpp"

#include <boost/test/unit_test.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <thread>

using namespace weir::testing;
using namespace weir::testing::nodes;

namespace {

const size_t batch = 3000;

/// Adds `batch` more records after the first `done`, and waits for them in the table.
void one_more_batch(Cluster& c, size_t done) {
  produce(c.topic, batch, [&](size_t i) { return user_record(done + i); });
  c.wait_for_rows(static_cast<int64_t>(done + batch));
}

/// How many task starts the nodes logged since `since`.
size_t starts_since(const Cluster& c, const std::vector<size_t>& since) {
  return count_all(events_of(c, c.name, since), -1, "started");
}

} // namespace

BOOST_AUTO_TEST_SUITE(node_partition)

BOOST_AUTO_TEST_CASE(nodes_cut_from_each_other_keep_one_assignment_through_kafka) {
  TempDir dir{"weir-itest-node-partition"};
  Toxiproxy toxiproxy{dir / "toxiproxy.log"};
  Cluster c(3, {{"scheduled.rebalance.max.delay.ms", "0"}});
  c.insert_only = true;
  auto proxies = free_ports(c.nodes.size());
  std::string seeds;
  for (size_t i = 0; i < c.nodes.size(); ++i)
    seeds += (i ? "," : "") + std::string{"127.0.0.1:"} + std::to_string(proxies[i]);
  std::vector<std::string> links;
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    auto& n = c[i];
    auto listen_port = static_cast<uint16_t>(std::stoi(n.listen.substr(n.listen.rfind(':') + 1)));
    links.push_back("node-" + n.name);
    toxiproxy.create(links.back(), proxies[i], listen_port);
    std::ofstream out(n.config, std::ios::app); // a later key wins
    out << "cluster.advertised.address=127.0.0.1:" << proxies[i] << "\ncluster.seeds=" << seeds << '\n';
    BOOST_REQUIRE(out.good());
  }
  c.deploy("partition", batch, 1);
  c.wait_for_rows(static_cast<int64_t>(batch));
  BOOST_TEST(c[0].output().find("(reached at 127.0.0.1:" + std::to_string(proxies[0]) + ")") != std::string::npos,
             "node a does not say it is reached through its proxy");
  size_t done = batch;

  // 1. Latency and a narrow link: heartbeats arrive late but regularly, so nothing moves.
  auto since = log_sizes(c);
  for (const auto& link : links)
    for (const char* stream : {"upstream", "downstream"}) {
      toxiproxy.add_toxic(link, std::string{"slow-"} + stream, "latency", stream, R"({"latency":500})");
      toxiproxy.add_toxic(link, std::string{"narrow-"} + stream, "bandwidth", stream, R"({"rate":64})");
    }
  one_more_batch(c, done);
  done += batch;
  std::this_thread::sleep_for(5s);
  for (const auto& link : links)
    for (const char* stream : {"upstream", "downstream"}) {
      toxiproxy.remove_toxic(link, std::string{"slow-"} + stream);
      toxiproxy.remove_toxic(link, std::string{"narrow-"} + stream);
    }
  BOOST_TEST(starts_since(c, since) == 0u, "a task moved under 500 ms of latency and 64 KB/s between the nodes");
  c.wait_spread(c.all_of(), 30s);

  // 2. Resets: connections between nodes die one after the other; the nodes dial
  // again. Tasks may move; none may run twice.
  for (const auto& link : links)
    toxiproxy.add_toxic(link, "reset", "reset_peer", "upstream", R"({"timeout":1000})");
  produce(c.topic, batch, [&](size_t i) { return user_record(done + i); });
  std::this_thread::sleep_for(10s);
  for (const auto& link : links)
    toxiproxy.remove_toxic(link, "reset");
  c.wait_for_rows(static_cast<int64_t>(done + batch));
  done += batch;
  c.wait_spread(c.all_of(), 60s);

  // 3. The cut: every node alone, all of them reaching Kafka.
  since = log_sizes(c);
  for (const auto& link : links)
    toxiproxy.set_enabled(link, false);
  auto cut_at = Clock::now();
  std::optional<Statuses> seen;
  bool leader_took_all = wait_until(15s, 100ms, [&] {
    seen = c[0].statuses(c.name);
    return seen && running_on(*seen, c[0].worker_id).size() == static_cast<size_t>(tasks);
  });
  BOOST_TEST(leader_took_all, "the leader a does not run every task 15 s into the cut; it says "
                                << describe(seen) << c.workers());
  BOOST_TEST_MESSAGE("cut -> a runs every task after " << seconds_since(cut_at) << " s");
  for (size_t i = 1; i < c.nodes.size(); ++i) {
    BOOST_TEST_CONTEXT("node " << c[i].name) {
      bool stopped = wait_until(15s, 100ms, [&] {
        return count_events(task_events(c[i].output_since(since[i]), c.name), -1, "stopped") >= 2;
      });
      BOOST_TEST(stopped, "it did not stop its two tasks 15 s into the cut:\n"
                            << tail_lines(c[i].output_since(since[i])));
    }
  }
  one_more_batch(c, done);
  done += batch;
  std::this_thread::sleep_until(cut_at + 20s);
  for (size_t i = 1; i < c.nodes.size(); ++i)
    BOOST_TEST(c[i].output_since(since[i]).find("this node leads") == std::string::npos,
               "node " << c[i].name << " took the leadership while cut from the others");
  // a takes b's and c's four tasks. It finds b and c unreachable one heartbeat
  // apart, so its first assignment may still hand one of c's tasks to b: b and c
  // start only what a assigned (a generation a announced), never on their own.
  auto cut_events = events_of(c, c.name, since);
  std::set<int64_t> announced;
  {
    static const std::regex re(R"(cluster: generation ([0-9]+): node)");
    auto log = c[0].output_since(since[0]);
    for (std::sregex_iterator it(log.begin(), log.end(), re), end; it != end; ++it)
      announced.insert(std::stoll((*it)[1]));
  }
  BOOST_TEST(count_events(cut_events[0], -1, "started") == static_cast<size_t>(tasks - 2),
             "during the cut a should have started b's and c's four tasks");
  for (size_t i = 1; i < cut_events.size(); ++i)
    for (const auto& e : cut_events[i])
      BOOST_TEST((e.kind != "started" || announced.count(e.generation)),
                 "node " << c[i].name << " started task " << e.task << " in generation " << e.generation
                         << ", which a did not assign");

  // 4. Back: the tasks spread again.
  for (const auto& link : links)
    toxiproxy.set_enabled(link, true);
  auto back = Clock::now();
  c.wait_spread(c.all_of(), 60s);
  BOOST_TEST_MESSAGE("path back -> spread over the three nodes after " << seconds_since(back) << " s");
  one_more_batch(c, done);
  done += batch;
  c.check_exactly_once(static_cast<int64_t>(done));

  auto now = wall_ms();
  auto events = events_of(c, c.name);
  int64_t longest = 0;
  for (int task = 0; task < tasks; ++task) {
    auto twice = longest_double_run(events, task, {now, now, now}, {});
    BOOST_TEST_MESSAGE("task " << task << ": on two nodes at once for " << twice << " ms at most");
    longest = std::max(longest, twice);
  }
  BOOST_TEST(longest <= unreachable_ms, "a task ran on two nodes for " << longest
                                          << " ms, longer than cluster.unreachable.timeout.ms=" << unreachable_ms);
  c.stop_all();
  if (current_test_failing())
    dir.keep();
}

BOOST_AUTO_TEST_SUITE_END()
