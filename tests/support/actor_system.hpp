// An actor system with weir's message types announced, for unit tests of actors.
#pragma once

#include <memory>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "actors/messages.hpp"

namespace weir::testing {

struct System {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  System() {
    actors::announce_types(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
  }
};

} // namespace weir::testing
