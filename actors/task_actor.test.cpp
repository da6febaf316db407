#include <boost/test/unit_test.hpp>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/connector_supervisor.hpp"
#include "actors/messages.hpp"
#include "actors/stage.hpp"
#include "actors/task_actor.hpp"
#include "tests/support/test_stages.hpp"
#include "tests/support/actor_system.hpp"

using namespace weir;
using namespace weir::actors;
using namespace std::chrono_literals;

namespace {

using testing::System;

/// Passes batches on, and throws at the `fail_at`th (never when 0).
struct Failing : runtime::StageLogic {
  explicit Failing(int fail_at) : fail_at(fail_at) {}
  int fail_at;
  int seen = 0;
  runtime::RetryAfter process(Batch&) override {
    if (++seen == fail_at)
      throw std::runtime_error("boom at batch " + std::to_string(seen));
    return {};
  }
  std::string_view kind() const noexcept override { return "transform"; }
};

/// gen -> middle -> sink, reader first; the sink reports done to `observer`.
std::vector<caf::actor> pipeline(caf::actor_system& sys, uint64_t records, int fail_at, caf::actor observer) {
  auto sink = spawn_stage(sys, {"sink", std::make_shared<testing::CheckingSink>(), {}, {2, 1u << 20}, observer});
  auto middle = spawn_stage(sys, {"middle", std::make_shared<Failing>(fail_at), sink, {2, 1u << 20}, {}});
  auto gen = spawn_feed(sys, {"gen", std::make_shared<testing::Generator>(records, 10), middle});
  return {gen, middle, sink};
}

/// Waits for the down messages of `actors`; returns their reasons.
std::vector<caf::error> downs(caf::scoped_actor& self, const std::vector<caf::actor>& actors) {
  for (const auto& a : actors)
    self->monitor(a);
  std::vector<caf::error> reasons;
  for (size_t i = 0; i < actors.size(); ++i)
    self->receive([&](caf::down_msg& down) { reasons.push_back(std::move(down.reason)); },
                  caf::after(10s) >> [] {});
  return reasons;
}

/// Whether a task_failed message arrives within 100 ms.
bool told_of_a_failure(caf::scoped_actor& self) {
  bool told = false;
  self->receive([&](task_failed_atom, const std::string&, int32_t, const std::string&) { told = true; },
                caf::after(100ms) >> [] {});
  return told;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(task_actor, System)

BOOST_AUTO_TEST_CASE(a_stage_failure_reaches_the_parent_with_its_trace_and_ends_the_task) {
  caf::scoped_actor self{*sys};
  auto stages = pipeline(*sys, 1000000, 3, {});
  auto task = spawn_task_actor(*sys, "orders", 2, stages, self);
  std::string connector, trace;
  int32_t id = -1;
  caf::strong_actor_ptr from;
  self->receive(
    [&](task_failed_atom, const std::string& c, int32_t t, const std::string& tr) {
      connector = c;
      id = t;
      trace = tr;
      from = self->current_sender();
    },
    caf::after(10s) >> [] {});
  BOOST_TEST(connector == "orders");
  BOOST_TEST(id == 2);
  BOOST_TEST(trace == "boom at batch 3");
  BOOST_TEST((from == caf::actor_cast<caf::strong_actor_ptr>(task)), "not from the task actor");
  // The task and every stage end (the reader would otherwise read on).
  stages.push_back(task);
  auto reasons = downs(self, stages);
  BOOST_TEST(reasons.size() == 4u);
  for (const auto& r : reasons)
    BOOST_TEST(bool{r});
  BOOST_TEST(!told_of_a_failure(self)); // told once
}

BOOST_AUTO_TEST_CASE(a_drained_task_ends_normally_after_its_stages) {
  caf::scoped_actor self{*sys};
  auto stages = pipeline(*sys, 1000000, 0, self);
  auto task = spawn_task_actor(*sys, "orders", 0, stages, self);
  self->send(task, stop_atom::value);
  bool done = false;
  self->receive([&](done_atom, const StageStats& s) { done = s.state == "FINISHED"; }, caf::after(10s) >> [] {});
  BOOST_TEST(done);
  stages.push_back(task);
  auto reasons = downs(self, stages);
  BOOST_TEST(reasons.size() == 4u);
  for (const auto& r : reasons)
    BOOST_TEST(!r, "ended with " << sys->render(r));
  BOOST_TEST(!told_of_a_failure(self));
}

BOOST_AUTO_TEST_CASE(ending_a_task_ends_its_stages_and_is_no_failure) {
  caf::scoped_actor self{*sys};
  auto stages = pipeline(*sys, 1000000, 0, self);
  auto task = spawn_task_actor(*sys, "orders", 0, stages, self);
  for (auto reason : {caf::exit_reason::user_shutdown, caf::exit_reason::kill}) {
    if (reason == caf::exit_reason::kill) { // a task abandoned at once: a kill, which no handler sees
      stages = pipeline(*sys, 1000000, 0, self);
      task = spawn_task_actor(*sys, "orders", 1, stages, self);
    }
    self->send_exit(task, reason);
    stages.push_back(task);
    BOOST_TEST(downs(self, stages).size() == stages.size());
    BOOST_TEST(!told_of_a_failure(self));
  }
}

// --- the connector's supervisor: the parent of its task actors on a node

namespace {

/// What a supervisor handed on: (task, the failed task actor, trace), as a message
/// to the test's actor.
TaskFailed tell(caf::scoped_actor& self) {
  return [to = caf::actor{self}](int32_t task, const caf::actor_addr& from, const std::string& trace) {
    caf::anon_send(to, task, from, trace);
  };
}

struct Failure {
  int32_t task = -1;
  caf::actor_addr from;
  std::string trace;
};

/// The failures handed on within `wait`.
std::vector<Failure> failures(caf::scoped_actor& self, std::chrono::milliseconds wait) {
  std::vector<Failure> out;
  bool more = true;
  while (more)
    self->receive([&](int32_t task, caf::actor_addr& from, std::string& trace) {
                    out.push_back({task, std::move(from), std::move(trace)});
                  },
                  caf::after(wait) >> [&] { more = false; });
  return out;
}

} // namespace

BOOST_AUTO_TEST_CASE(a_supervisor_spawns_its_task_actors_and_hands_on_each_failure_once) {
  caf::scoped_actor self{*sys};
  auto supervisor = spawn_connector_supervisor(*sys, "orders", tell(self));
  auto healthy_stages = pipeline(*sys, 100000000, 0, {});
  auto healthy = spawn_child_task(*sys, supervisor, 0, healthy_stages);
  auto failing_stages = pipeline(*sys, 1000000, 3, {});
  auto failing = spawn_child_task(*sys, supervisor, 1, failing_stages);
  auto seen = failures(self, 2000ms);
  BOOST_TEST_REQUIRE(seen.size() == 1u);
  BOOST_TEST(seen[0].task == 1);
  BOOST_TEST((seen[0].from == failing.address()), "not the failed task actor");
  BOOST_TEST(seen[0].trace == "boom at batch 3");
  // The other task runs on; ending the supervisor ends it, and that is no failure.
  self->monitor(healthy);
  self->send_exit(supervisor, caf::exit_reason::user_shutdown);
  bool ended = false;
  self->receive([&](caf::down_msg& down) { ended = down.source == healthy.address(); }, caf::after(10s) >> [] {});
  BOOST_TEST(ended);
  BOOST_TEST(failures(self, 200ms).empty());
}

BOOST_AUTO_TEST_CASE(a_task_actor_that_dies_without_a_word_is_a_failure_and_an_ended_one_is_not) {
  caf::scoped_actor self{*sys};
  auto supervisor = spawn_connector_supervisor(*sys, "orders", tell(self));
  auto ended = spawn_child_task(*sys, supervisor, 0, pipeline(*sys, 100000000, 0, {}));
  auto lost = spawn_child_task(*sys, supervisor, 1, pipeline(*sys, 100000000, 0, {}));
  self->send_exit(ended, caf::exit_reason::user_shutdown); // what the runner does when it stops a task
  self->send_exit(lost, caf::make_error(caf::sec::runtime_error, std::string{"node lost"}));
  auto seen = failures(self, 2000ms);
  BOOST_TEST_REQUIRE(seen.size() == 1u);
  BOOST_TEST(seen[0].task == 1);
  BOOST_TEST((seen[0].from == lost.address()));
  BOOST_TEST(seen[0].trace.find("node lost") != std::string::npos, seen[0].trace);
  self->send_exit(supervisor, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_SUITE_END()
