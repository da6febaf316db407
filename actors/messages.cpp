#include "actors/messages.hpp"

#include <caf/actor_system_config.hpp>
#include <caf/io/middleman.hpp>

#include "actors/cluster/membership_actor.hpp"

namespace weir::actors {

void announce_types(caf::actor_system_config& cfg) {
  cfg.load<caf::io::middleman>();
  cfg.add_message_type<Batch>("weir::Batch");
  cfg.add_message_type<DecodedBatchMsg>("weir::DecodedBatch");
  cfg.add_message_type<Credit>("weir::Credit");
  cfg.add_message_type<StageStats>("weir::StageStats");
  cfg.add_message_type<OffsetList>("weir::OffsetList");
  // What the members of a cluster send each other.
  using namespace cluster;
  cfg.add_message_type<runtime::cluster::Member>("weir::Member");
  cfg.add_message_type<std::vector<runtime::cluster::Member>>("weir::MemberList");
  cfg.add_message_type<MemberEntries>("weir::MemberEntries");
  cfg.add_message_type<MembershipSnapshot>("weir::MembershipSnapshot");
}

} // namespace weir::actors
