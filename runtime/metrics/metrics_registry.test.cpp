#include <boost/test/unit_test.hpp>

#include <thread>

#include "runtime/metrics/metrics_registry.hpp"

using namespace weir::runtime;
using namespace weir::runtime::metrics;

namespace {

StageStats stats(uint64_t in, uint64_t out, const char* state = "RUNNING") {
  StageStats s;
  s.records_in = in;
  s.records_out = out;
  s.state = state;
  return s;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find(line + "\n") != std::string::npos;
}

} // namespace

BOOST_AUTO_TEST_SUITE(metrics_registry)

BOOST_AUTO_TEST_CASE(cells_are_shared_and_snapshots_are_ordered) {
  MetricsRegistry reg;
  auto sink = reg.cell({"b", 0, "sink"}, StageRole::sink_writer);
  auto consumer = reg.cell({"a", 1, "consumer"}, StageRole::sink_reader);
  BOOST_TEST(reg.cell({"b", 0, "sink"}, StageRole::sink_writer) == sink, "same key, same cell");
  sink->publish(stats(10, 9));
  consumer->publish(stats(0, 12));
  auto all = reg.snapshot();
  BOOST_REQUIRE(all.size() == 2u);
  BOOST_TEST(all[0].key.connector == "a");
  BOOST_TEST(all[1].stats.records_out == 9u);
  BOOST_TEST(reg.snapshot("b").size() == 1u);
  auto sinks = reg.snapshot_if([](const StageKey& k) { return k.stage == "sink"; });
  BOOST_REQUIRE(sinks.size() == 1u);
  BOOST_TEST(sinks[0].stats.records_out == 9u);
  reg.remove_connector("a");
  BOOST_TEST(reg.snapshot().size() == 1u);
}

BOOST_AUTO_TEST_CASE(readers_never_wait_for_the_writer_to_finish_a_batch) {
  MetricsRegistry reg;
  auto cell = reg.cell({"c", 0, "sink"}, StageRole::sink_writer);
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (uint64_t i = 0; !stop; ++i)
      cell->publish(stats(i, i));
  });
  for (int i = 0; i < 10000; ++i) {
    auto s = reg.snapshot()[0].stats;
    BOOST_REQUIRE(s.records_in == s.records_out); // never half-written
  }
  stop = true;
  writer.join();
}

BOOST_AUTO_TEST_CASE(prometheus_text_has_stage_and_task_series) {
  MetricsRegistry reg;
  auto consumer = stats(0, 1000);
  consumer.lag = 42;
  consumer.partitions = 3;
  consumer.partition_lags = {{"orders", 0, 40}, {"orders", 1, 2}, {"orders", 2, -1}};
  reg.cell({"orders", 0, "consumer"}, StageRole::sink_reader)->publish(consumer);
  auto mask = stats(1000, 990);
  mask.errors = 10;
  reg.cell({"orders", 0, "mask"}, StageRole::transform)->publish(mask);
  auto sink = stats(990, 990);
  sink.dead_lettered = 4;
  sink.batches_in = 2;
  sink.cpu_ns = 3'000'000;
  reg.cell({"orders", 0, "sink"}, StageRole::sink_writer)->publish(sink);
  reg.cell({"we\"ird", 1, "poller"}, StageRole::source_reader)->publish(stats(0, 5, "FAILED"));
  auto cdc = stats(0, 7);
  cdc.source_lag_bytes = 8192;
  reg.cell({"inventory", 0, "poller"}, StageRole::source_reader)->publish(cdc);

  auto text = render_prometheus(reg.snapshot());
  BOOST_TEST(has_line(text, "# TYPE weir_stage_records_in_total counter"));
  BOOST_TEST(has_line(text, R"(weir_stage_records_out_total{connector="orders",task="0",stage="mask"} 990)"));
  BOOST_TEST(has_line(text, R"(weir_consumer_lag_records{connector="orders",task="0",stage="consumer"} 42)"));
  BOOST_TEST(text.find(R"(weir_consumer_lag_records{connector="orders",task="0",stage="mask"})") == std::string::npos,
             "lag only for consumers");
  BOOST_TEST(has_line(text, R"(weir_consumer_records_lag{connector="orders",task="0",stage="consumer",topic="orders",partition="0"} 40)"));
  BOOST_TEST(has_line(text, R"(weir_consumer_records_lag{connector="orders",task="0",stage="consumer",topic="orders",partition="1"} 2)"));
  BOOST_TEST(text.find(R"(partition="2")") == std::string::npos, "a lag not known yet is left out");
  BOOST_TEST(has_line(text, R"(weir_stage_state{connector="we\"ird",task="1",stage="poller",state="FAILED"} 1)"));
  BOOST_TEST(has_line(text, R"(weir_source_lag_bytes{connector="inventory",task="0",stage="poller"} 8192)"));
  BOOST_TEST(text.find(R"(weir_source_lag_bytes{connector="we\"ird")") == std::string::npos,
             "lag bytes only for sources that know them");
  BOOST_TEST(has_line(text, R"(kafka_connect_sink_task_sink_record_read_total{connector="orders",task="0"} 1000)"));
  BOOST_TEST(has_line(text, R"(kafka_connect_sink_task_sink_record_send_total{connector="orders",task="0"} 990)"));
  BOOST_TEST(has_line(text, R"(kafka_connect_sink_task_put_batch_avg_time_ms{connector="orders",task="0"} 1.5)"));
  BOOST_TEST(has_line(text, R"(kafka_connect_task_error_total_record_errors{connector="orders",task="0"} 10)"));
  BOOST_TEST(has_line(text, R"(kafka_connect_task_error_deadletterqueue_produce_requests{connector="orders",task="0"} 4)"));
  BOOST_TEST(has_line(text, R"(kafka_connect_source_task_source_record_poll_total{connector="we\"ird",task="1"} 5)"));
  BOOST_TEST(text.find(R"(kafka_connect_sink_task_sink_record_read_total{connector="we\"ird")") == std::string::npos,
             "a source task has no sink metrics");
  size_t helps = 0;
  for (size_t at = text.find("# HELP weir_stage_records_in_total"); at != std::string::npos;
       at = text.find("# HELP weir_stage_records_in_total", at + 1))
    ++helps;
  BOOST_TEST(helps == 1u);
}

BOOST_AUTO_TEST_CASE(interval_metrics_name_the_stage_and_node_figures) {
  StageSnapshot mask{{"orders", 0, "mask"}, StageRole::transform, stats(10, 10)};
  StageSnapshot fresh{{"orders", 0, "sink"}, StageRole::sink_writer, stats(0, 0)};
  StageRates r;
  r.busy = 0.97;
  r.ns_per_record = 2100;
  r.credit_wait = 0.25;
  NodeFigures node;
  node.scheduler = {{0, 11, 0.5}, {1, 12, 1.0}};
  node.run_queue = 3;
  node.process.groups = {{"kafka", 4, 0.125}};
  node.process.cpu = 1.5;
  node.process.rss_bytes = 1024;
  StageSnapshot consumer{{"orders", 0, "consumer"}, StageRole::sink_reader, stats(10, 10)};
  consumer.stats.poll_to_ack.record(5'000'000, 10);
  StageRates acked;
  acked.poll_to_ack_p50 = 0.005;
  acked.poll_to_ack_p99 = 0.25;
  auto text = render_interval_metrics({consumer, mask, fresh}, {{mask.key, r}, {consumer.key, acked}}, node);
  BOOST_TEST(has_line(text, R"(weir_task_poll_to_ack_seconds{connector="orders",task="0",quantile="0.5"} 0.005)"));
  BOOST_TEST(has_line(text, R"(weir_task_poll_to_ack_seconds{connector="orders",task="0",quantile="0.99"} 0.25)"));
  BOOST_TEST(has_line(text, R"(weir_stage_busy_ratio{connector="orders",task="0",stage="mask"} 0.97)"));
  BOOST_TEST(has_line(text, R"(weir_stage_ns_per_record{connector="orders",task="0",stage="mask"} 2100)"));
  BOOST_TEST(has_line(text, R"(weir_stage_credit_wait_ratio{connector="orders",task="0",stage="mask"} 0.25)"));
  BOOST_TEST(has_line(text, R"(weir_stage_busy_ratio{connector="orders",task="0",stage="sink"} 0)"), "no rates yet: 0");
  BOOST_TEST(has_line(text, R"(weir_scheduler_thread_busy_ratio{thread="0"} 0.5)"));
  BOOST_TEST(has_line(text, R"(weir_scheduler_thread_busy_ratio{thread="1"} 1)"));
  BOOST_TEST(has_line(text, "weir_scheduler_threads 2"));
  BOOST_TEST(has_line(text, "weir_scheduler_run_queue 3"));
  BOOST_TEST(has_line(text, R"(weir_threads_cpu_ratio{group="kafka"} 0.125)"));
  BOOST_TEST(has_line(text, R"(weir_threads{group="kafka"} 4)"));
  BOOST_TEST(has_line(text, "weir_process_cpu_ratio 1.5"));
  BOOST_TEST(has_line(text, "weir_process_resident_memory_bytes 1024"));
  BOOST_TEST(text.find("# TYPE weir_scheduler_thread_busy_ratio gauge\n") != std::string::npos);
  acked.records_out_per_sec = 120;
  text = render_interval_metrics({consumer, fresh}, {{consumer.key, acked}}, node);
  BOOST_TEST(has_line(text, R"(kafka_connect_sink_task_sink_record_read_rate{connector="orders",task="0"} 120)"));
  BOOST_TEST(has_line(text, R"(kafka_connect_sink_task_sink_record_send_rate{connector="orders",task="0"} 0)"));
}

BOOST_AUTO_TEST_CASE(rates_come_from_intervals_of_a_second_at_least) {
  RateSampler sampler;
  auto t0 = std::chrono::steady_clock::now();
  StageSnapshot mask{{"orders", 0, "mask"}, StageRole::transform, stats(10, 10)};
  sampler.sample({mask}, t0, 0);
  BOOST_TEST(sampler.of(mask.key).records_in_per_sec == 0.0); // one sample: no interval yet
  BOOST_TEST(sampler.due({"orders", 0, "sink"}, t0)); // never sampled
  BOOST_TEST(!sampler.due(mask.key, t0 + std::chrono::milliseconds{999}));
  BOOST_TEST(sampler.due(mask.key, t0 + std::chrono::seconds{1}));
  mask.stats = stats(210, 210);
  sampler.sample({mask}, t0 + std::chrono::milliseconds{500}, 0);
  BOOST_TEST(sampler.of(mask.key).records_in_per_sec == 0.0); // half a second: too short
  sampler.sample({mask}, t0 + std::chrono::seconds{2}, 0);
  BOOST_TEST(sampler.of(mask.key).records_in_per_sec == 100.0);
  BOOST_TEST(sampler.all().size() == 1u);
  sampler.forget("orders");
  BOOST_TEST(sampler.all().empty());
}

BOOST_AUTO_TEST_CASE(worker_metrics_are_kafka_connects) {
  auto text = render_worker_metrics({3, 5, 7, 2, 1500});
  BOOST_TEST(has_line(text, "kafka_connect_worker_connector_count 3"));
  BOOST_TEST(has_line(text, "kafka_connect_worker_task_count 5"));
  BOOST_TEST(has_line(text, "kafka_connect_worker_rebalance_epoch 7"));
  BOOST_TEST(has_line(text, "kafka_connect_worker_rebalance_completed_rebalances_total 2"));
  BOOST_TEST(has_line(text, "kafka_connect_worker_rebalance_time_since_last_rebalance_ms 1500"));
}

BOOST_AUTO_TEST_SUITE_END()
