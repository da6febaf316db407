// weir's own REST entities as JSON (GET /weir/tree): the live actor tree with each
// stage's statistics. The field names are documented in docs/rest.md; they are
// weir's, not Kafka Connect's, except the state fields of connectors and tasks.
#pragma once

#include <string>

#include "runtime/rest/connect_herder.hpp"

namespace weir::runtime::rest {

/// `{"batches":N,"bytes":N}`.
void append_credit(const Credit& credit, std::string& out);
/// One stage: name, role, kind, state, mailbox, credit, out_credit, counters,
/// per-second rates, errors, CPU, lag and partitions (null where not a consumer).
void append_tree_stage(const TreeStage& stage, std::string& out);
/// `{"nodes":[{"id","leader","connectors":[{"name","type","state","worker_id"
/// [,"trace"],"tasks":[{"id","state","worker_id"[,"trace"],"stages":[…]}]}]}]}`.
void append_actor_tree(const ActorTree& tree, std::string& out);
/// The inverse of append_actor_tree (a cluster node gathers the others' trees).
/// Throws RestError(500) naming what is malformed.
ActorTree parse_actor_tree(std::string_view json);

} // namespace weir::runtime::rest
