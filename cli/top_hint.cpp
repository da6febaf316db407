#include "cli/top_hint.hpp"

namespace weir::cli::shell {

namespace {

bool is_reader(std::string_view role) { return role == "sink_reader" || role == "source_reader"; }

bool full(uint64_t used, uint64_t granted) { return granted > 0 && used >= granted; }

} // namespace

bool has_upstream(std::string_view role) { return !is_reader(role); }

bool has_downstream(std::string_view role) { return is_reader(role) || role == "transform"; }

std::string_view waiting_on(const StageFigures& stage) {
  if (stage.state != "RUNNING") return "-";
  // Sending comes first: a stage whose sends are all in flight waits on the next
  // one, whatever else it holds; unless it is a reader with messages unread, whose
  // credit came back during its polls (see the header).
  bool blocked = has_downstream(stage.role) && full(stage.in_flight, stage.out_granted);
  if (is_reader(stage.role)) {
    if (stage.partitions == 0) return "no partition";
    return blocked && stage.mailbox == 0 ? "next stage" : "poll";
  }
  if (blocked) return "next stage";
  if (full(stage.held, stage.granted)) return stage.role == "source_writer" ? "Kafka acks" : "its work";
  return "previous stage";
}

} // namespace weir::cli::shell
