#include "cli/top_hint.hpp"

#include <boost/test/unit_test.hpp>

using namespace weir::cli::shell;

namespace {

/// A running stage of `role` with 8 batches granted each way, nothing used.
StageFigures running(const std::string& role) {
  StageFigures s;
  s.role = role;
  s.state = "RUNNING";
  s.granted = has_upstream(role) ? 8 : 0;
  s.out_granted = has_downstream(role) ? 8 : 0;
  if (role == "sink_reader") s.partitions = 3;
  return s;
}

} // namespace

BOOST_AUTO_TEST_SUITE(top_hint)

BOOST_AUTO_TEST_CASE(which_credit_figures_each_role_has) {
  for (std::string reader : {"sink_reader", "source_reader"}) {
    BOOST_TEST(!has_upstream(reader));
    BOOST_TEST(has_downstream(reader));
  }
  BOOST_TEST(has_upstream("transform"));
  BOOST_TEST(has_downstream("transform"));
  for (std::string writer : {"sink_writer", "source_writer"}) {
    BOOST_TEST(has_upstream(writer));
    BOOST_TEST(!has_downstream(writer));
  }
}

BOOST_AUTO_TEST_CASE(a_reader_limited_by_its_poll_does_not_wait_on_the_next_stage) {
  auto consumer = running("sink_reader");
  BOOST_TEST(waiting_on(consumer) == "poll");
  // Every batch in flight as its window sees it, but the credit is back, unread in
  // its mailbox: it was polling.
  consumer.in_flight = 8;
  consumer.mailbox = 5;
  BOOST_TEST(waiting_on(consumer) == "poll");
  // Nothing unread: the next stage has not returned the credit.
  consumer.mailbox = 0;
  BOOST_TEST(waiting_on(consumer) == "next stage");
  consumer.partitions = 0;
  BOOST_TEST(waiting_on(consumer) == "no partition");

  auto poller = running("source_reader");
  poller.in_flight = 3;
  BOOST_TEST(waiting_on(poller) == "poll");
  poller.in_flight = 8;
  BOOST_TEST(waiting_on(poller) == "next stage");
}

BOOST_AUTO_TEST_CASE(a_transform_waits_on_its_neighbours_or_on_its_own_work) {
  auto smt = running("transform");
  BOOST_TEST(waiting_on(smt) == "previous stage");
  smt.held = 8; // every batch it may receive is at it
  BOOST_TEST(waiting_on(smt) == "its work");
  smt.in_flight = 8; // ...because it cannot send
  smt.mailbox = 4;
  BOOST_TEST(waiting_on(smt) == "next stage");
}

BOOST_AUTO_TEST_CASE(writers_wait_on_their_work_or_on_kafka) {
  auto sink = running("sink_writer");
  BOOST_TEST(waiting_on(sink) == "previous stage");
  sink.held = 8;
  BOOST_TEST(waiting_on(sink) == "its work");
  auto producer = running("source_writer");
  BOOST_TEST(waiting_on(producer) == "previous stage");
  producer.held = 8;
  BOOST_TEST(waiting_on(producer) == "Kafka acks");
}

BOOST_AUTO_TEST_CASE(a_stage_that_does_not_run_waits_on_nothing) {
  for (std::string state : {"FINISHED", "FAILED", ""}) {
    auto smt = running("transform");
    smt.state = state;
    smt.held = 8;
    BOOST_TEST(waiting_on(smt) == "-");
  }
}

BOOST_AUTO_TEST_SUITE_END()
