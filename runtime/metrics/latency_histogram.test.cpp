#include <boost/test/unit_test.hpp>

#include "runtime/metrics/latency_histogram.hpp"

using namespace weir::runtime::metrics;

BOOST_AUTO_TEST_SUITE(metrics_latency_histogram)

BOOST_AUTO_TEST_CASE(quantiles_weighted_by_records_within_a_bucket_width) {
  LatencyHistogram h;
  BOOST_TEST(h.quantile_seconds(0.5) == 0.0);
  h.record(2'000'000, 98);  // 2 ms for 98 records
  h.record(150'000'000, 2); // 150 ms for 2
  BOOST_TEST(h.total() == 100u);
  BOOST_CHECK_CLOSE(h.quantile_seconds(0.5), 0.002, 10.0);
  BOOST_CHECK_CLOSE(h.quantile_seconds(0.98), 0.002, 10.0);
  BOOST_CHECK_CLOSE(h.quantile_seconds(0.99), 0.150, 10.0);
  BOOST_CHECK_CLOSE(h.quantile_seconds(1.0), 0.150, 10.0);
}

BOOST_AUTO_TEST_CASE(extremes_land_in_the_open_buckets) {
  LatencyHistogram h;
  h.record(0);
  h.record(uint64_t{1} << 60);
  BOOST_TEST(h.quantile_seconds(0.5) < 1e-6);
  BOOST_TEST(h.quantile_seconds(1.0) > 3600.0);
}

BOOST_AUTO_TEST_CASE(an_interval_is_the_difference_of_two_copies) {
  LatencyHistogram h;
  h.record(1'000'000'000, 10); // 1 s, before the interval
  auto then = h;
  h.record(5'000'000, 10);
  auto interval = h.since(then);
  BOOST_TEST(interval.total() == 10u);
  BOOST_CHECK_CLOSE(interval.quantile_seconds(0.99), 0.005, 10.0);
  BOOST_TEST(LatencyHistogram{}.since(then).total() == 0u);
  // A histogram that went back (a restarted task) counts from zero.
  LatencyHistogram fresh;
  fresh.record(5'000'000, 3);
  BOOST_TEST(fresh.since(then).total() == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
