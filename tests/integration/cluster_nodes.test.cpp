// `weir node` end to end (issue 6, "What it must show"): three node processes on
// loopback form a cluster through cluster.seeds, share their state in fresh Kafka
// topics and serve Kafka Connect's REST API each; one JDBC sink connector (SQLite,
// upsert keyed by id, tasks.max=6) reads a 6-partition topic.
//
//  1. its six tasks run two per node, as every node's status says;
//  2. under load, kill -9 of a node (scheduled.rebalance.max.delay.ms=0): its two
//     tasks run on the others within 5 s, the other four are never restarted, and
//     the table has every record exactly once;
//  3. the killed node comes back with the same config: two per node again, by
//     moving exactly two tasks;
//  4. SIGSTOP of a node: marked unreachable, its tasks move; SIGCONT: it rejoins and
//     its stale tasks stop without committing (`abandoned`), every record once.
//
// What the nodes do is read from the REST API (task states and worker_id, the
// REST host:port of the node running a task) and from each node's log: a node logs
// `task NAME-N started (generation G)`, `task NAME-N stopped (generation G)` (after
// committing) and `task NAME-N abandoned` (a stale task stopped without committing).
// Times are printed (BOOST_TEST_LOG_LEVEL=message shows them under meson test); only
// the 5 s failover bound is asserted, because the issue states it.
#include "tests/integration/node_cluster.hpp"

using namespace weir::testing;
using namespace weir::testing::nodes;
using namespace std::chrono_literals;


BOOST_AUTO_TEST_SUITE(cluster_nodes)

// Kafka Connect's default replication factor of its topics is 3; on one broker a node
// left at the default stops at start with an error that names the key (issue 21).
BOOST_AUTO_TEST_CASE(the_default_replication_factor_on_one_broker_names_its_key) {
  TempDir dir{"weir-rf"};
  auto config = worker_config(dir / "n.db");
  auto group = unique_name("weir-itest-rf");
  config["group.id"] = group;
  config["cluster.listen"] = "127.0.0.1:" + std::to_string(free_ports(1)[0]);
  config["config.storage.topic"] = group + "-configs";
  write_properties(dir / "n.properties", config);
  ChildProcess p{{weir_binary(), "node", "--config", dir / "n.properties"}, dir / "n.log"};
  auto status = p.wait(60s);
  BOOST_REQUIRE(status.has_value());
  BOOST_TEST(status->exited);
  BOOST_TEST(status->code == 1);
  BOOST_TEST(p.output().find("config.storage.replication.factor") != std::string::npos, p.output());
}

// Must-show 1: tasks.max=6 on a 6-partition topic over three nodes -> 2/2/2, as
// every node's REST API reports it; each node started exactly the tasks its
// worker_id shows, once; the sink writes every record once; SIGTERM drains (each
// task stops, committed) and every node exits 0.
BOOST_AUTO_TEST_CASE(six_tasks_run_two_per_node) {
  const int64_t n = 30000;
  Cluster c(3);
  auto s = c.deploy("spread", static_cast<size_t>(n), 2); // created through a node that does not lead
  const auto& name = c.name;

  c.wait_for_rows(n);
  auto events = events_of(c, name);
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    BOOST_TEST_CONTEXT("node " << c[i].name << " (" << c[i].worker_id << ")") {
      for (int task : running_on(s, c[i].worker_id))
        BOOST_TEST(count_events(events[i], task, "started") == 1u, "task " << task);
      BOOST_TEST(count_events(events[i], -1, "started") == 2u);
    }
  }
  BOOST_TEST(describe(c[0].statuses(name)) == describe(s)); // still so, nothing moved
  c.check_exactly_once(n);

  auto before_stop = log_sizes(c);
  c.stop_all();
  auto drained = events_of(c, name, before_stop);
  for (size_t i = 0; i < c.nodes.size(); ++i)
    for (int task : running_on(s, c[i].worker_id))
      BOOST_TEST(count_events(drained[i], task, "stopped") == 1u,
                 "node " << c[i].name << " did not log task " << task << " stopped after SIGTERM");
}

// Must-show 2: records keep coming; kill -9 of node b with
// scheduled.rebalance.max.delay.ms=0. Its two tasks run on a and c within 5 s of the
// kill (status polled every 100 ms); the four others never restart; 3/3 after; the
// table has every record exactly once (the sink stores offsets with the rows, so
// what b wrote but had not committed to the group is skipped on replay).
BOOST_AUTO_TEST_CASE(kill_9_under_load_moves_only_the_dead_nodes_tasks_within_5_s) {
  const size_t initial = 20000;
  Cluster c(3, {{"scheduled.rebalance.max.delay.ms", "0"}});
  auto s = c.deploy("kill", initial, 0);
  const auto& topic = c.topic;
  const auto& name = c.name;
  auto b_tasks = running_on(s, c[1].worker_id);

  Load load(topic, initial, 500, 100ms); // ~5,000 records/s
  BOOST_REQUIRE_MESSAGE(wait_until(120s, 100ms, [&] { return c.rows() >= static_cast<int64_t>(initial); }),
                        "the sink did not write the first " << initial << " records: " << c.rows());
  std::this_thread::sleep_for(1s); // the load flows through every task
  auto rows_at_kill = c.rows();
  c[1].process->signal(SIGKILL);
  auto killed_at = Clock::now();
  const auto sent_at_kill = static_cast<int64_t>(load.next_id());
  auto killed = c[1].process->wait(10s);
  BOOST_REQUIRE_MESSAGE((killed && killed->signaled && killed->signal == SIGKILL),
                        "node b was not killed: " << (killed ? killed->describe() : "still running"));
  BOOST_TEST_MESSAGE("killed node b (tasks " << list_of(b_tasks) << ") with " << rows_at_kill << " rows written, "
                                             << load.next_id() << " records sent");

  // Failover: every task RUNNING, none on b, as node a reports it.
  std::vector<const Node*> survivors{&c[0], &c[2]};
  std::optional<Statuses> seen;
  bool moved = wait_until(30s, 100ms, [&] {
    seen = c[0].statuses(name);
    if (!seen || seen->size() != static_cast<size_t>(tasks))
      return false;
    return running_on(*seen, c[0].worker_id).size() + running_on(*seen, c[2].worker_id).size()
           == static_cast<size_t>(tasks);
  });
  double failover = seconds_since(killed_at);
  BOOST_REQUIRE_MESSAGE(moved, "b's tasks did not move within 30 s: " << describe(seen) << c.workers());
  BOOST_TEST_MESSAGE("kill -9 -> b's tasks RUNNING on a and c after " << failover << " s");
  BOOST_TEST(failover < 5.0, "failover took " << failover << " s (the issue says within 5 s)");

  // Printed only: when every record sent before the kill is in the table. Until the
  // moved partitions are consumed again (the group's session timeout for b's
  // consumers), their records wait.
  bool caught_up = wait_until(60s, 200ms, [&] {
    Sqlite sql(c.db);
    return sql.scalar("SELECT count(*) FROM " + std::string{table} + " WHERE id < "
                      + std::to_string(sent_at_kill)) == sent_at_kill;
  });
  BOOST_TEST_MESSAGE("kill -9 -> every record sent before it in the table after "
                     << (caught_up ? std::to_string(seconds_since(killed_at)) + " s" : std::string{"(not within 60 s)"}));
  std::this_thread::sleep_for(3s); // more load on the new placement
  auto sent = load.stop();
  BOOST_REQUIRE_MESSAGE(sent.failed == 0 && sent.error.empty(),
                        sent.failed << " records not delivered: " << sent.error);
  BOOST_REQUIRE_EQUAL(sent.delivered, sent.sent);
  const auto total = static_cast<int64_t>(initial + sent.delivered);
  c.wait_for_rows(total);

  auto after = c.wait_balanced(survivors, 3, 30s);
  auto events = events_of(c, name);
  for (int task = 0; task < tasks; ++task) {
    BOOST_TEST_CONTEXT("task " << task << (b_tasks.count(task) ? " (was on b)" : " (was on a or c)")) {
      if (b_tasks.count(task)) {
        BOOST_TEST(count_all(events, task, "started") == 2u); // on b, then on a or c
        BOOST_TEST(count_events(events[0], task, "started") + count_events(events[2], task, "started") == 1u);
      } else {
        BOOST_TEST(count_all(events, task, "started") == 1u);
        BOOST_TEST(count_all(events, task, "stopped") == 0u);
        BOOST_TEST(count_all(events, task, "abandoned") == 0u);
        BOOST_TEST(after.at(task).worker_id == s.at(task).worker_id, "a task that was not on b moved");
      }
    }
  }
  c.check_exactly_once(total);
  c.stop_all();
}

// Must-show 3: node c is killed (its tasks go to a and b, 3/3), then started again
// with the same config: 2/2/2 again by moving exactly two tasks, one from a and one
// from b (each logs one `stopped`), and c logs two `started`.
BOOST_AUTO_TEST_CASE(the_killed_node_returns_and_takes_back_exactly_two_tasks) {
  const size_t first = 10000, second = 10000;
  Cluster c(3, {{"scheduled.rebalance.max.delay.ms", "0"}});
  c.deploy("return", first, 1);
  const auto& topic = c.topic;
  const auto& name = c.name;
  c.wait_for_rows(static_cast<int64_t>(first));

  c[2].process->signal(SIGKILL);
  BOOST_REQUIRE(c[2].process->wait(10s).has_value());
  auto t0 = Clock::now();
  auto three_each = c.wait_balanced({&c[0], &c[1]}, 3, 30s);
  BOOST_TEST_MESSAGE("kill -9 of c -> 3/3 on a and b after " << seconds_since(t0) << " s");

  auto since = log_sizes(c);
  t0 = Clock::now();
  c.start(c[2]); // same config: same addresses, same worker_id
  auto back = c.wait_balanced(c.all_of(), 2, 60s);
  BOOST_TEST_MESSAGE("c restarted -> 2/2/2 after " << seconds_since(t0) << " s");
  std::this_thread::sleep_for(2s); // a further, wrong move would show now
  BOOST_TEST(describe(c[0].statuses(name)) == describe(back));

  std::set<int> moved;
  for (int task = 0; task < tasks; ++task)
    if (back.at(task).worker_id != three_each.at(task).worker_id)
      moved.insert(task);
  BOOST_TEST_MESSAGE("moved back to c: tasks " << list_of(moved));
  BOOST_TEST(moved.size() == 2u);
  BOOST_TEST((moved == running_on(back, c[2].worker_id)));
  auto events = events_of(c, name, since);
  BOOST_TEST(count_events(events[2], -1, "started") == 2u, "c's task starts after its restart");
  for (size_t i : {size_t{0}, size_t{1}}) {
    BOOST_TEST_CONTEXT("node " << c[i].name) {
      for (const auto& e : events[i])
        if (e.kind == "stopped")
          BOOST_TEST(moved.count(e.task) == 1u, "stopped task " << e.task << ", which did not move");
      BOOST_TEST(count_events(events[i], -1, "stopped") == 1u);
      BOOST_TEST(count_events(events[i], -1, "started") == 0u);
      BOOST_TEST(count_events(events[i], -1, "abandoned") == 0u);
    }
  }

  // The returned node's tasks write: more records, each once.
  produce(topic, second, [&](size_t i) { return user_record(first + i); });
  c.wait_for_rows(static_cast<int64_t>(first + second));
  c.check_exactly_once(static_cast<int64_t>(first + second));
  c.stop_all();
}

// Must-show 4: SIGSTOP of node c (it keeps its sockets; only the heartbeat tells):
// the others mark it unreachable and run its tasks; records produced meanwhile are
// written by them. SIGCONT: c rejoins, stops its stale tasks without committing
// (`abandoned`, never `stopped` for their old generation), the cluster is 2/2/2
// again, and the table has every record exactly once.
//
// c is stopped while idle (everything written): a SQLite writer frozen inside its
// transaction would hold the database's write lock and stall the other nodes' writes
// for as long as it is frozen, which is SQLite's single-writer lock, not fencing.
BOOST_AUTO_TEST_CASE(sigstop_moves_the_tasks_sigcont_abandons_the_stale_ones) {
  const size_t first = 20000, during = 20000, after = 5000;
  Cluster c(3, {{"scheduled.rebalance.max.delay.ms", "0"}});
  auto s = c.deploy("stop", first, 0);
  const auto& topic = c.topic;
  const auto& name = c.name;
  c.wait_for_rows(static_cast<int64_t>(first));
  auto c_tasks = running_on(s, c[2].worker_id);
  std::map<int, int64_t> old_generation;
  auto c_events = task_events(c[2].output(), name);
  for (int task : c_tasks)
    old_generation[task] = started_generation(c_events, task);

  auto since_stop = log_sizes(c);
  c[2].process->signal(SIGSTOP);
  auto stopped_at = Clock::now();
  // membership_actor's line; the member id starts with its address.
  const std::regex unreachable("cluster: member " + std::regex_replace(c[2].listen, std::regex(R"(\.)"), R"(\.)")
                               + R"([^0-9]\S* unreachable)");
  std::optional<double> noticed;
  std::optional<Statuses> on_a, on_b;
  bool moved = wait_until(30s, 100ms, [&] {
    for (size_t i : {size_t{0}, size_t{1}})
      if (!noticed && std::regex_search(c[i].output_since(since_stop[i]), unreachable))
        noticed = seconds_since(stopped_at);
    on_a = c[0].statuses(name);
    on_b = c[1].statuses(name);
    return Cluster::balanced(on_a, {&c[0], &c[1]}, 3) && Cluster::balanced(on_b, {&c[0], &c[1]}, 3);
  });
  double move_time = seconds_since(stopped_at);
  BOOST_TEST_MESSAGE("SIGSTOP -> c marked unreachable after "
                     << (noticed ? std::to_string(*noticed) + " s" : std::string{"(no log line seen)"})
                     << " (cluster.unreachable.timeout.ms=" << unreachable_ms << ")");
  BOOST_REQUIRE_MESSAGE(moved, "c's tasks did not move within 30 s of SIGSTOP; a says: "
                                 << describe(on_a) << "; b says: " << describe(on_b) << c.workers());
  BOOST_TEST_MESSAGE("SIGSTOP -> c's tasks " << list_of(c_tasks) << " RUNNING on a and b after " << move_time << " s");
  BOOST_TEST(noticed.has_value(), "neither a nor b logged 'cluster: member " << c[2].listen << "... unreachable'");

  // Written by a and b while c is frozen.
  produce(topic, during, [&](size_t i) { return user_record(first + i); });
  c.wait_for_rows(static_cast<int64_t>(first + during));

  auto since_cont = log_sizes(c);
  c[2].process->signal(SIGCONT);
  auto resumed_at = Clock::now();
  bool abandoned = wait_until(60s, 100ms, [&] {
    auto events = task_events(c[2].output_since(since_cont[2]), name);
    for (int task : c_tasks)
      if (count_events(events, task, "abandoned") == 0)
        return false;
    return true;
  });
  BOOST_TEST_MESSAGE("SIGCONT -> c's stale tasks abandoned after " << seconds_since(resumed_at) << " s");
  BOOST_TEST(abandoned, "c did not log its stale tasks " << list_of(c_tasks) << " abandoned within 60 s:\n"
                                                         << tail_lines(c[2].output_since(since_cont[2])));
  auto back = c.wait_balanced(c.all_of(), 2, 60s);
  BOOST_TEST_MESSAGE("SIGCONT -> 2/2/2 again after " << seconds_since(resumed_at) << " s");

  auto events = task_events(c[2].output_since(since_cont[2]), name);
  for (int task : c_tasks) {
    BOOST_TEST(count_events(events, task, "abandoned") == 1u, "task " << task);
    for (const auto& e : events)
      BOOST_TEST(!(e.task == task && e.kind == "stopped" && e.generation == old_generation[task]),
                 "c committed stale task " << task << " of generation " << e.generation);
  }
  for (size_t i : {size_t{0}, size_t{1}})
    BOOST_TEST(count_events(task_events(c[i].output_since(since_stop[i]), name), -1, "abandoned") == 0u);

  c.check_exactly_once(static_cast<int64_t>(first + during));
  produce(topic, after, [&](size_t i) { return user_record(first + during + i); });
  c.wait_for_rows(static_cast<int64_t>(first + during + after));
  c.check_exactly_once(static_cast<int64_t>(first + during + after));
  BOOST_TEST(running_on(back, c[2].worker_id).size() == 2u);
  c.stop_all();
}

BOOST_AUTO_TEST_SUITE_END()
