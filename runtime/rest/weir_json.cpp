#include "runtime/rest/weir_json.hpp"

#include "runtime/convert/json_text.hpp"
#include "runtime/rest/connect_json.hpp"

namespace weir::runtime::rest {

namespace {

using convert::append_int;
using convert::append_json_double;
using convert::append_json_string;

// `,"key":` then the value; the first field of an object is written by its caller.
void key(std::string_view name, std::string& out) {
  out += ",\"";
  out += name;
  out += "\":";
}

void count(std::string_view name, uint64_t value, std::string& out) {
  key(name, out);
  out += std::to_string(value); // unsigned: a counter past 2^63 must not turn negative
}

void rate(std::string_view name, double value, std::string& out) {
  key(name, out);
  append_json_double(value, out);
}

// Consumers report lag and partitions; other stages -1, written as null.
void optional_count(std::string_view name, int64_t value, std::string& out) {
  key(name, out);
  if (value < 0) out += "null";
  else append_int(value, out);
}

template <class Item, class Append>
void append_array(const std::vector<Item>& items, Append append, std::string& out) {
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    append(items[i], out);
  }
  out += ']';
}

void append_task(const TreeTask& task, std::string& out) {
  out += "{\"id\":";
  append_int(task.id, out);
  out += ',';
  append_state_fields(task.state, out);
  out += ",\"stages\":";
  append_array(task.stages, append_tree_stage, out);
  out += '}';
}

void append_connector(const TreeConnector& connector, std::string& out) {
  out += "{\"name\":";
  append_json_string(connector.name, out);
  out += ",\"type\":";
  append_json_string(connector_type_name(connector.type), out);
  out += ',';
  append_state_fields(connector.state, out);
  out += ",\"tasks\":";
  append_array(connector.tasks, append_task, out);
  out += '}';
}

void append_node(const TreeNode& node, std::string& out) {
  out += "{\"id\":";
  append_json_string(node.id, out);
  out += node.leader ? ",\"leader\":true" : ",\"leader\":false";
  out += ",\"connectors\":";
  append_array(node.connectors, append_connector, out);
  out += '}';
}

} // namespace

void append_credit(const Credit& credit, std::string& out) {
  out += "{\"batches\":";
  append_int(credit.batches, out);
  out += ",\"bytes\":";
  out += std::to_string(credit.bytes);
  out += '}';
}

void append_tree_stage(const TreeStage& stage, std::string& out) {
  const StageStats& s = stage.stats;
  out += "{\"name\":";
  append_json_string(stage.name, out);
  key("role", out);
  append_json_string(stage.role, out);
  key("kind", out);
  append_json_string(s.kind, out);
  key("state", out);
  append_json_string(s.state, out);
  count("mailbox", s.mailbox, out);
  out += ",\"credit\":{\"granted\":";
  append_credit(s.capacity, out);
  out += ",\"held\":";
  append_credit(s.held, out);
  out += "},\"out_credit\":{\"granted\":";
  append_credit(s.out_capacity, out);
  out += ",\"in_flight\":";
  append_credit(s.out_in_flight, out);
  out += ",\"max_in_flight\":";
  append_credit(s.out_max_in_flight, out);
  out += '}';
  count("records_in", s.records_in, out);
  count("records_out", s.records_out, out);
  count("batches_in", s.batches_in, out);
  count("bytes_in", s.bytes_in, out);
  rate("records_in_per_sec", stage.records_in_per_sec, out);
  rate("records_out_per_sec", stage.records_out_per_sec, out);
  rate("bytes_in_per_sec", stage.bytes_in_per_sec, out);
  count("errors", s.errors, out);
  key("last_error", out);
  if (s.last_error.empty()) out += "null";
  else append_json_string(s.last_error, out);
  count("cpu_ns", s.cpu_ns, out);
  rate("cpu_per_sec", stage.cpu_per_sec, out);
  optional_count("lag", s.lag, out);
  optional_count("partitions", s.partitions, out);
  out += '}';
}

void append_actor_tree(const ActorTree& tree, std::string& out) {
  out += "{\"nodes\":";
  append_array(tree.nodes, append_node, out);
  out += '}';
}

} // namespace weir::runtime::rest
