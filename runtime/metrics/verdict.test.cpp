#include <boost/test/unit_test.hpp>

#include "runtime/metrics/verdict.hpp"

using namespace weir::runtime::metrics;

namespace {

StageFigures stage(std::string name, std::string kind, StageRole role, double busy, double ns_per_record,
                   double credit_wait, double idle = 0, double in_per_sec = 1000, int64_t lag = -1) {
  StageFigures s{std::move(name), std::move(kind), role, {}, lag};
  s.rates.busy = busy;
  s.rates.ns_per_record = ns_per_record;
  s.rates.credit_wait = credit_wait;
  s.rates.idle = idle;
  s.rates.records_in_per_sec = in_per_sec;
  s.rates.cpu_per_sec = busy;
  return s;
}

StageFigures consumer(double busy, double credit_wait, double idle, int64_t lag, double in_per_sec = 1000) {
  return stage("consumer", "Kafka", StageRole::sink_reader, busy, 300, credit_wait, idle, in_per_sec, lag);
}

} // namespace

BOOST_AUTO_TEST_SUITE(metrics_verdict)

// Synthetic figures of one task → the stage its verdict names and how the text starts.
struct Case {
  const char* what;
  std::vector<StageFigures> task;
  std::string stage, text;
};

const std::vector<Case> cases = {
  {"an expensive SMT is named with its cost",
   {consumer(0.2, 0.74, 0, 5000), stage("mask", "MaskField", StageRole::transform, 0.97, 2100, 0.05),
    stage("sink", "FileStreamSink", StageRole::sink_writer, 0.1, 200, 0)},
   "mask", "bottleneck: mask (MaskField): 97% busy, 2.1 µs/record; the consumer waited for credit 74% of the time"},
  {"a chain of SMTs names the dearest after the first stage not held back, and the chain's cost",
   {consumer(0.1, 0.9, 0, 100), stage("a", "Cast", StageRole::transform, 0.6, 1000, 0.8),
    stage("b", "ReplaceField", StageRole::transform, 0.7, 3000, 0.1),
    stage("c", "Cast", StageRole::transform, 0.5, 1000, 0.0),
    stage("sink", "JDBC, SQLite", StageRole::sink_writer, 0.2, 100, 0)},
   "b", "bottleneck: b (ReplaceField): 70% busy, 3.0 µs/record (the 3 SMTs together 5.0 µs/record)"},
  {"a slow destination names the sink",
   {consumer(0.05, 0.95, 0, 90000), stage("cast", "Cast", StageRole::transform, 0.01, 500, 0.93),
    stage("sink", "JDBC, SQLite", StageRole::sink_writer, 0.91, 800, 0)},
   "sink", "bottleneck: sink (JDBC, SQLite): 91% of its time writing, 0.8 µs/record CPU; "
           "the consumer waited for credit 95% of the time"},
  {"a caught-up task has none",
   {consumer(0.02, 0, 0.88, 0, 50), stage("sink", "JDBC, SQLite", StageRole::sink_writer, 0.01, 800, 0)},
   "", "bottleneck: none (Kafka): the consumer is idle 88%, lag 0"},
  {"nothing moved and nothing waits: none, whatever the idle figure says",
   {consumer(0, 0, 0, 0, 0), stage("sink", "JDBC, SQLite", StageRole::sink_writer, 0, 0, 0)},
   "", "bottleneck: none (Kafka): the consumer is idle 0%, lag 0"},
  {"a reader less than a second behind keeps up",
   {consumer(0.9, 0.1, 0.05, 800, 1000), stage("sink", "File", StageRole::sink_writer, 0.2, 100, 0)},
   "", "bottleneck: none (Kafka): the consumer keeps up (idle 5%), lag 800"},
  {"a writer waiting for acknowledgements is named",
   {stage("poller", "DatagenConnector", StageRole::source_reader, 0.3, 500, 0.75),
    stage("producer", "Kafka", StageRole::source_writer, 0.0, 0, 0)},
   "producer", "bottleneck: producer (Kafka): waiting for acknowledgements (busy 0%); "
               "the poller waited for credit 75% of the time"},
  {"SMTs that got no batch through (their threads busy elsewhere) are named without a cost",
   {consumer(0.1, 1.0, 0, 5000), stage("cast", "Cast", StageRole::transform, 0, 0, 0, 0, 0),
    stage("sink", "File", StageRole::sink_writer, 0, 0, 0, 0, 0)},
   "cast", "bottleneck: cast (Cast): no batch got through the SMTs this interval; the consumer waited for credit 100%"},
  {"a busy reader that nobody holds back is named",
   {consumer(0.8, 0.1, 0.05, 700000), stage("sink", "File", StageRole::sink_writer, 0.2, 100, 0)},
   "consumer", "bottleneck: consumer (Kafka): the consumer is busy 80% reading, lag 700000"},
};

BOOST_AUTO_TEST_CASE(each_kind_of_task_gets_its_verdict) {
  for (const auto& c : cases) {
    auto v = task_verdict(c.task, "");
    BOOST_TEST(v.stage == c.stage, c.what);
    BOOST_TEST(v.text.starts_with(c.text), c.what << ": " << v.text);
  }
}

BOOST_AUTO_TEST_CASE(a_saturated_scheduler_is_added_to_the_verdict) {
  BOOST_TEST(scheduler_verdict({}) == "");
  BOOST_TEST(scheduler_verdict({0.99, 0.85}) == "");
  auto sched = scheduler_verdict({0.995, 0.99});
  BOOST_TEST(sched == "scheduler saturated: 2 of 2 threads 99% busy; more tasks will not help: add nodes");
  // A stage named keeps its name, the saturation added.
  std::vector<StageFigures> task{consumer(0.1, 0.9, 0, 100000),
                                 stage("cast", "Cast", StageRole::transform, 0.4, 5000, 0)};
  auto v = task_verdict(task, sched);
  BOOST_TEST(v.stage == "cast");
  BOOST_TEST(v.text == "bottleneck: cast (Cast): 40% busy, 5.0 µs/record; the consumer waited for credit 90% of the "
                       "time; " + sched);
  // Nothing named: the saturation, with the busiest stage.
  task[0] = consumer(0.1, 0, 0.9, 0);
  v = task_verdict(task, sched);
  BOOST_TEST(v.stage == "cast");
  BOOST_TEST(v.text == sched + " (busiest cast (Cast), 5.0 µs/record)");
}

BOOST_AUTO_TEST_CASE(no_reader_no_verdict) {
  BOOST_TEST(task_verdict({}, "").text == "");
  BOOST_TEST(task_verdict({stage("cast", "Cast", StageRole::transform, 1, 1, 0)}, "").text == "");
  BOOST_TEST(percent(0.974) == "97%");
  BOOST_TEST(percent(1.7) == "100%");
}

BOOST_AUTO_TEST_SUITE_END()
