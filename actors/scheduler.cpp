#include "actors/scheduler.hpp"

#include <caf/actor_system_config.hpp>

namespace weir::actors {

void tune_scheduler(caf::actor_system_config& cfg) {
  cfg.set("work-stealing.moderate-poll-attempts", size_t{10});
}

} // namespace weir::actors
