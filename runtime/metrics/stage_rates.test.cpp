#include <boost/test/unit_test.hpp>

#include "runtime/metrics/stage_rates.hpp"

using namespace weir::runtime;
using namespace weir::runtime::metrics;

BOOST_AUTO_TEST_SUITE(metrics_stage_rates)

BOOST_AUTO_TEST_CASE(fractions_and_per_record_cost_over_an_interval) {
  StageStats then, now;
  then.records_in = 1000;
  then.cpu_ns = 1'000'000;
  then.busy_ns = 5'000'000;
  now.records_in = 3000;
  now.records_out = 1500;
  now.bytes_in = 200'000;
  now.cpu_ns = 1'000'000 + 4'200'000; // 2.1 µs for each of 2000 records
  now.busy_ns = 5'000'000 + 1'455'000'000;
  now.credit_wait_ns = 740'000'000;
  now.idle_ns = 300'000'000;
  auto r = rates_between(then, now, 1.5);
  BOOST_CHECK_CLOSE(r.records_in_per_sec, 2000 / 1.5, 1e-9);
  BOOST_CHECK_CLOSE(r.records_out_per_sec, 1000.0, 1e-9);
  BOOST_CHECK_CLOSE(r.bytes_in_per_sec, 200'000 / 1.5, 1e-9);
  BOOST_CHECK_CLOSE(r.ns_per_record, 2100.0, 1e-9);
  BOOST_CHECK_CLOSE(r.busy, 0.97, 1e-9);
  BOOST_CHECK_CLOSE(r.credit_wait, 0.74 / 1.5, 1e-9);
  BOOST_CHECK_CLOSE(r.idle, 0.2, 1e-9);
}

BOOST_AUTO_TEST_CASE(counters_that_went_back_count_as_zero_and_fractions_stay_in_range) {
  StageStats then, now;
  then.records_in = 500;
  then.busy_ns = 9'000'000'000;
  now.records_in = 10;       // a restarted stage
  now.busy_ns = 9'000'000'000 + 3'000'000'000; // a batch that straddled the sample
  auto r = rates_between(then, now, 1.0);
  BOOST_CHECK_EQUAL(r.records_in_per_sec, 0.0);
  BOOST_CHECK_EQUAL(r.ns_per_record, 0.0);
  BOOST_CHECK_EQUAL(r.busy, 1.0);
  auto none = rates_between(then, now, 0.0);
  BOOST_CHECK_EQUAL(none.busy, 0.0);
}

BOOST_AUTO_TEST_CASE(poll_to_ack_quantiles_are_of_the_records_acked_in_the_interval) {
  StageStats then, now;
  then.poll_to_ack.record(2'000'000'000, 100); // 2 s, before the interval
  now = then;
  now.poll_to_ack.record(4'000'000, 99); // 4 ms
  now.poll_to_ack.record(300'000'000, 1);  // 300 ms
  auto r = rates_between(then, now, 1.0);
  BOOST_CHECK_CLOSE(r.poll_to_ack_p50, 0.004, 10.0);
  BOOST_CHECK_CLOSE(r.poll_to_ack_p99, 0.004, 10.0);
  now.poll_to_ack.record(300'000'000, 1);
  r = rates_between(then, now, 1.0);
  BOOST_CHECK_CLOSE(r.poll_to_ack_p99, 0.3, 10.0);
  BOOST_CHECK_EQUAL(rates_between(now, now, 1.0).poll_to_ack_p99, 0.0); // nothing acked
}

BOOST_AUTO_TEST_SUITE_END()
