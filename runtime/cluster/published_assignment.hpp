// The assignment as the leader publishes it: one record in config.storage.topic,
// written inside the leader's transaction (runtime/cluster/leadership), read by
// every node with read_committed. A node runs exactly what the newest committed
// record gives its address, so it never runs work the current (fenced) leader did
// not assign, whatever membership says.
//
// Record: key "weir-assignment" (compaction keeps the newest), value
//   {"generation":7,"leader":"MEMBER-ID",
//    "nodes":[{"address":"h:p","worker_id":"h:p","work":[["conn",-1],["conn",0]]}]}
// (task -1: the connector instance). Kafka Connect's readers skip the key.
// CAF-free.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cluster/assignor.hpp"

namespace weir::runtime::cluster {

/// The config topic's key of the assignment record.
inline constexpr std::string_view assignment_key = "weir-assignment";

struct PublishedAssignment {
  struct Node {
    std::string worker_id; ///< its REST host:port, as statuses name it (may be empty)
    std::vector<Work> work;
    bool operator==(const Node&) const = default;
  };
  /// Grows with every round; a node applies no record older than one it applied.
  uint64_t generation = 0;
  std::string leader; ///< the member id of the leader that wrote it
  std::map<std::string, Node> nodes; ///< by cluster.listen address

  /// What `address` runs (empty when it has nothing).
  std::vector<Work> work_of(const std::string& address) const;
  /// The node (address) whose work holds `w`; empty when nobody has it.
  std::string owner_of(const Work& w) const;
  /// Work -> address, for the supervisor to adopt.
  Assignment placement() const;
  bool operator==(const PublishedAssignment&) const = default;
};

/// The record's JSON value.
std::string encode(const PublishedAssignment& a);
/// Parses a record's value; throws std::invalid_argument naming what is wrong.
PublishedAssignment decode_assignment(std::string_view value);

} // namespace weir::runtime::cluster
