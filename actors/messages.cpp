#include "actors/messages.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>

namespace weir::actors {

void announce_types(caf::actor_system_config& cfg) {
  cfg.load<caf::io::middleman>();
  cfg.add_message_type<Batch>("weir::Batch");
  cfg.add_message_type<DecodedBatchMsg>("weir::DecodedBatch");
  cfg.add_message_type<Credit>("weir::Credit");
  cfg.add_message_type<StageStats>("weir::StageStats");
  cfg.add_message_type<OffsetList>("weir::OffsetList");
}

} // namespace weir::actors
