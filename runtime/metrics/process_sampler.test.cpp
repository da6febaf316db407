#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include "runtime/metrics/process_sampler.hpp"

using namespace weir::runtime::metrics;

BOOST_AUTO_TEST_SUITE(metrics_process_sampler)

BOOST_AUTO_TEST_CASE(stat_lines_with_odd_names_parse) {
  auto t = parse_stat_line("4711 (rdk:broker (1) x) S 1 2 3 4 5 6 7 8 9 10 250 50 0 0 20 0 1 0");
  BOOST_REQUIRE(t);
  BOOST_TEST(t->tid == 4711);
  BOOST_TEST(t->comm == "rdk:broker (1) x");
  BOOST_TEST(t->cpu_ticks == 300u);
  BOOST_TEST(!parse_stat_line(""));
  BOOST_TEST(!parse_stat_line("12 (short) S 1 2"));
  BOOST_TEST(!parse_stat_line("x (name) S 1 2 3 4 5 6 7 8 9 10 1 1"));
}

BOOST_AUTO_TEST_CASE(threads_are_grouped_by_name) {
  BOOST_TEST(thread_group("weir-sched-3") == "scheduler");
  BOOST_TEST(thread_group("rdk:main") == "kafka");
  BOOST_TEST(thread_group("caf.actor") == "blocking");
  BOOST_TEST(thread_group("weir-rest-h") == "rest");
  BOOST_TEST(thread_group("caf.clock") == "other");
}

BOOST_AUTO_TEST_CASE(figures_between_two_readings) {
  ProcessReading then, now;
  then.at_ns = 1'000'000'000;
  now.at_ns = 3'000'000'000;
  double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  auto ticks = [&](double seconds) { return static_cast<uint64_t>(seconds * hz); };
  then.threads = {{10, "weir-sched-0", 0}, {11, "rdk:main", ticks(1)}};
  now.threads = {{10, "weir-sched-0", ticks(2)}, {11, "rdk:main", ticks(1.5)}, {12, "caf.actor", ticks(0.5)}};
  then.process_ticks = ticks(1);
  now.process_ticks = ticks(4);
  now.rss_bytes = 1 << 20;
  auto f = process_between(then, now);
  BOOST_TEST(f.cpu == 1.5, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(f.groups.size() == 5u);
  BOOST_TEST(f.groups[0].group == "scheduler");
  BOOST_TEST(f.groups[0].cpu == 1.0, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(f.groups[1].cpu == 0.25, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(f.groups[2].count == 1);
  BOOST_TEST(f.rss_bytes == 1u << 20);
  BOOST_TEST(threads_cpu_between(then, now, {10, 12}) == 1.25, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(this_process_can_be_read) {
  auto r = read_process();
  BOOST_TEST(!r.threads.empty());
  BOOST_TEST(r.rss_bytes > 0u);
  BOOST_TEST(r.fds > 0u);
}

BOOST_AUTO_TEST_SUITE_END()
