// Helpers shared by the cluster's unit tests.
#pragma once

#include <map>
#include <string>

#include "runtime/cluster/assignor.hpp"

namespace weir::runtime::cluster::test {

/// Tasks (not connector instances) per node.
inline std::map<std::string, int> tasks_per_node(const Assignment& a) {
  std::map<std::string, int> out;
  for (const auto& [w, n] : a)
    if (!w.is_connector())
      ++out[n];
  return out;
}

} // namespace weir::runtime::cluster::test
