#include "runtime/cluster/published_assignment.hpp"

#include <simdjson.h>

#include <stdexcept>

#include "runtime/convert/json_text.hpp"

namespace weir::runtime::cluster {

std::vector<Work> PublishedAssignment::work_of(const std::string& address) const {
  auto it = nodes.find(address);
  return it == nodes.end() ? std::vector<Work>{} : it->second.work;
}

std::string PublishedAssignment::owner_of(const Work& w) const {
  for (const auto& [address, node] : nodes)
    for (const auto& mine : node.work)
      if (mine == w)
        return address;
  return {};
}

Assignment PublishedAssignment::placement() const {
  Assignment out;
  for (const auto& [address, node] : nodes)
    for (const auto& w : node.work)
      out[w] = address;
  return out;
}

std::string encode(const PublishedAssignment& a) {
  using convert::append_json_string;
  std::string out = "{\"generation\":" + std::to_string(a.generation) + ",\"leader\":";
  append_json_string(a.leader, out);
  out += ",\"nodes\":[";
  bool first_node = true;
  for (const auto& [address, node] : a.nodes) {
    out += first_node ? "{\"address\":" : ",{\"address\":";
    first_node = false;
    append_json_string(address, out);
    out += ",\"worker_id\":";
    append_json_string(node.worker_id, out);
    out += ",\"work\":[";
    bool first = true;
    for (const auto& w : node.work) {
      out += first ? "[" : ",[";
      first = false;
      append_json_string(w.connector, out);
      out += "," + std::to_string(w.task) + "]";
    }
    out += "]}";
  }
  return out + "]}";
}

namespace {

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("assignment record: " + what);
}

std::string text(simdjson::dom::element e, const std::string& what) {
  std::string_view s;
  if (e.get(s))
    bad(what + " is not a string");
  return std::string{s};
}

} // namespace

PublishedAssignment decode_assignment(std::string_view value) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto error = parser.parse(value.data(), value.size()).get(doc))
    bad(std::string{"not JSON: "} + simdjson::error_message(error));
  PublishedAssignment a;
  int64_t generation = -1;
  if (doc["generation"].get(generation) || generation < 0)
    bad("'generation' is missing or not a non-negative integer");
  a.generation = static_cast<uint64_t>(generation);
  simdjson::dom::element leader;
  if (doc["leader"].get(leader))
    bad("'leader' is missing");
  a.leader = text(leader, "'leader'");
  simdjson::dom::array nodes;
  if (doc["nodes"].get(nodes))
    bad("'nodes' is missing or not an array");
  for (auto n : nodes) {
    simdjson::dom::element address, worker_id;
    simdjson::dom::array work;
    if (n["address"].get(address) || n["work"].get(work))
      bad("a node without 'address' or 'work'");
    auto name = text(address, "a node's 'address'");
    auto& node = a.nodes[name];
    if (!n["worker_id"].get(worker_id))
      node.worker_id = text(worker_id, "the 'worker_id' of node " + name);
    for (auto item : work) {
      simdjson::dom::array pair;
      int64_t task = 0;
      if (item.get(pair) || pair.size() != 2 || pair.at(1).get(task) || task < Work::connector_instance)
        bad("node " + name + ": a unit of work is not [\"connector\", task]");
      node.work.push_back({text(pair.at(0), "node " + name + ": a connector name"), static_cast<int>(task)});
    }
  }
  return a;
}

} // namespace weir::runtime::cluster
