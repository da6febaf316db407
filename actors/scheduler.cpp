#include "actors/scheduler.hpp"

#include <pthread.h>
#include <unistd.h>

#include <string>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/policy/work_stealing.hpp>
#include <caf/scheduler/coordinator.hpp>

namespace weir::actors {

namespace {

using runtime::metrics::SchedulerMeter;

SchedulerMeter& meter_of(caf::scheduler::abstract_coordinator* coordinator);

/// CAF's work stealing, metered. A worker's loop is dequeue → resume → dequeue:
/// the time from taking a job to coming back for the next is its busy time.
/// Every enqueue counts one job ready and every dequeue one taken (a central
/// enqueue goes through a worker's external_enqueue, so it is counted there).
class MeteredStealing : public caf::policy::work_stealing {
public:
  template <class Worker>
  void external_enqueue(Worker* self, caf::resumable* job) {
    meter_of(self->parent()).on_ready();
    work_stealing::external_enqueue(self, job);
  }

  template <class Worker>
  void internal_enqueue(Worker* self, caf::resumable* job) {
    meter_of(self->parent()).on_ready();
    work_stealing::internal_enqueue(self, job);
  }

  template <class Worker>
  void resume_job_later(Worker* self, caf::resumable* job) {
    meter_of(self->parent()).on_ready();
    work_stealing::resume_job_later(self, job);
  }

  template <class Worker>
  caf::resumable* dequeue(Worker* self) {
    auto& meter = meter_of(self->parent());
    if (!started_) {
      started_ = true;
      auto name = "weir-sched-" + std::to_string(self->id());
      pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
      meter.on_start(self->id(), static_cast<int>(gettid()));
    }
    meter.on_return(self->id(), SchedulerMeter::now_ns(), SchedulerMeter::thread_cpu_ns());
    auto* job = work_stealing::dequeue(self);
    meter.on_taken();
    meter.on_take(self->id(), SchedulerMeter::now_ns(), SchedulerMeter::thread_cpu_ns());
    return job;
  }

private:
  bool started_ = false; // one policy object per worker thread
};

class MeteredCoordinator : public caf::scheduler::coordinator<MeteredStealing> {
public:
  using coordinator::coordinator;
  SchedulerMeter meter;
};

SchedulerMeter& meter_of(caf::scheduler::abstract_coordinator* coordinator) {
  return static_cast<MeteredCoordinator*>(coordinator)->meter;
}

} // namespace

void tune_scheduler(caf::actor_system_config& cfg, size_t threads) {
  cfg.set("work-stealing.moderate-poll-attempts", size_t{10});
  if (threads > 0)
    cfg.set("scheduler.max-threads", threads);
  // A scheduler module given by the config replaces the one CAF would make.
  cfg.module_factories.push_back(
    [](caf::actor_system& sys) -> caf::actor_system::module* { return new MeteredCoordinator(sys); });
}

runtime::metrics::SchedulerMeter* scheduler_meter(caf::actor_system& sys) {
  auto* metered = dynamic_cast<MeteredCoordinator*>(&sys.scheduler());
  return metered ? &metered->meter : nullptr;
}

} // namespace weir::actors
