#include <boost/test/unit_test.hpp>

#include "runtime/metrics/scheduler_meter.hpp"

using namespace weir::runtime::metrics;

BOOST_AUTO_TEST_SUITE(metrics_scheduler_meter)

BOOST_AUTO_TEST_CASE(busy_time_counts_resumes_and_the_one_running_now) {
  SchedulerMeter meter;
  meter.on_start(0, 100);
  meter.on_start(1, 101);
  auto then = meter.read(0);
  meter.on_take(0, 1'000, 50);
  meter.on_return(0, 601'000, 400'050);  // 0.6 ms running an actor, 0.4 ms of it on a core
  meter.on_return(1, 700'000, 9);        // coming back without having taken a job: nothing
  meter.on_take(1, 500'000'000, 10);     // still running at the reading
  auto now = meter.read(1'000'000'000);
  BOOST_TEST(now.tids == (std::vector<int>{100, 101}));
  BOOST_TEST(now.busy_ns == (std::vector<uint64_t>{600'000, 500'000'000}));
  BOOST_TEST(now.cpu_ns == (std::vector<uint64_t>{400'000, 0})); // a running resume's CPU counts once it ends
  BOOST_TEST(fractions_between(then.cpu_ns, now.cpu_ns, 0.5)[0] == 0.0008, boost::test_tools::tolerance(1e-9));
  auto busy = fractions_between(then.busy_ns, now.busy_ns, 1.0);
  BOOST_TEST(busy.size() == 2u);
  BOOST_TEST(busy[0] == 0.0006, boost::test_tools::tolerance(1e-9));
  BOOST_TEST(busy[1] == 0.5, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(the_thread_cpu_clock_moves_with_work) {
  auto before = SchedulerMeter::thread_cpu_ns();
  volatile uint64_t sink = 0;
  for (uint64_t i = 0; i < 5'000'000; ++i) sink = sink + i;
  BOOST_TEST(SchedulerMeter::thread_cpu_ns() > before);
}

BOOST_AUTO_TEST_CASE(run_queue_is_ready_minus_taken_never_negative) {
  SchedulerMeter meter;
  meter.on_ready();
  meter.on_ready();
  meter.on_taken();
  BOOST_TEST(meter.read(1).run_queue == 1);
  meter.on_taken();
  meter.on_taken(); // a job enqueued before the meter existed
  BOOST_TEST(meter.read(1).run_queue == 0);
}

BOOST_AUTO_TEST_SUITE_END()
