#include "runtime/rest/weir_json.hpp"

#include <simdjson.h>

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

// A string, or null when empty.
void text_or_null(std::string_view name, const std::string& value, std::string& out) {
  key(name, out);
  if (value.empty()) out += "null";
  else append_json_string(value, out);
}

/// ,"instance":{"actor":N,"restarts":K}, or null.
void append_instance(const std::optional<TreeInstance>& instance, std::string& out) {
  out += ",\"instance\":";
  if (!instance) {
    out += "null";
    return;
  }
  out += "{\"actor\":";
  append_int(static_cast<int64_t>(instance->actor), out);
  out += ",\"restarts\":";
  append_int(static_cast<int64_t>(instance->restarts), out);
  out += '}';
}

void append_task(const TreeTask& task, std::string& out) {
  out += "{\"id\":";
  append_int(task.id, out);
  out += ',';
  append_state_fields(task.state, out);
  text_or_null("bottleneck", task.bottleneck, out);
  text_or_null("bottleneck_stage", task.bottleneck_stage, out);
  // Seconds; null before the first record was acknowledged.
  key("poll_to_ack", out);
  if (task.poll_to_ack_p99 <= 0) {
    out += "null";
  } else {
    out += "{\"p50\":";
    append_json_double(task.poll_to_ack_p50, out);
    rate("p99", task.poll_to_ack_p99, out);
    out += '}';
  }
  out += ",\"stages\":";
  append_array(task.stages, append_tree_stage, out);
  append_instance(task.instance, out); // last: added after the fields readers already knew
  out += '}';
}

void append_connector(const TreeConnector& connector, std::string& out) {
  out += "{\"name\":";
  append_json_string(connector.name, out);
  out += ",\"type\":";
  append_json_string(connector_type_name(connector.type), out);
  out += ',';
  append_state_fields(connector.state, out);
  key("actor", out);
  if (connector.actor)
    append_int(static_cast<int64_t>(*connector.actor), out);
  else
    out += "null";
  append_instance(connector.instance, out);
  out += ",\"tasks\":";
  append_array(connector.tasks, append_task, out);
  out += '}';
}

void append_node_figures(const metrics::NodeFigures& f, std::string& out) {
  out += ",\"scheduler\":{\"threads\":";
  append_array(
    f.scheduler,
    [](const metrics::SchedulerThreadFigures& t, std::string& o) {
      o += "{\"id\":";
      append_int(t.id, o);
      o += ",\"tid\":";
      append_int(t.tid, o);
      rate("busy", t.busy, o);
      rate("cpu", t.cpu, o);
      count("busy_ns", t.busy_ns, o);
      count("cpu_ns", t.cpu_ns, o);
      o += '}';
    },
    out);
  key("busy_threads", out);
  append_int(f.busy_threads(), out);
  key("run_queue", out);
  append_int(f.run_queue, out);
  out += "},\"threads\":";
  append_array(
    f.process.groups,
    [](const metrics::ThreadGroupFigures& g, std::string& o) {
      o += "{\"group\":";
      append_json_string(g.group, o);
      key("count", o);
      append_int(g.count, o);
      rate("cpu", g.cpu, o);
      o += '}';
    },
    out);
  out += ",\"process\":{\"cpu\":";
  append_json_double(f.process.cpu, out);
  count("rss_bytes", f.process.rss_bytes, out);
  count("fds", f.process.fds, out);
  count("connections", f.process.connections, out);
  out += '}';
  text_or_null("verdict", f.verdict, out);
}

void append_node(const TreeNode& node, std::string& out) {
  out += "{\"id\":";
  append_json_string(node.id, out);
  out += node.leader ? ",\"leader\":true" : ",\"leader\":false";
  if (node.unreachable)
    out += ",\"unreachable\":true";
  else
    append_node_figures(node.figures, out);
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
  const auto& r = stage.rates;
  rate("records_in_per_sec", r.records_in_per_sec, out);
  rate("records_out_per_sec", r.records_out_per_sec, out);
  rate("bytes_in_per_sec", r.bytes_in_per_sec, out);
  count("errors", s.errors, out);
  key("last_error", out);
  if (s.last_error.empty()) out += "null";
  else append_json_string(s.last_error, out);
  count("cpu_ns", s.cpu_ns, out);
  rate("cpu_per_sec", r.cpu_per_sec, out);
  count("busy_ns", s.busy_ns, out);
  rate("busy", r.busy, out);
  rate("ns_per_record", r.ns_per_record, out);
  count("credit_wait_ns", s.credit_wait_ns, out);
  rate("credit_wait", r.credit_wait, out);
  rate("upstream_wait", stage.upstream_wait, out);
  rate("idle", r.idle, out);
  optional_count("lag", s.lag, out);
  optional_count("partitions", s.partitions, out);
  if (!s.partition_lags.empty()) { // consumers
    key("partition_lags", out);
    append_array(
      s.partition_lags,
      [](const kafka::PartitionLag& p, std::string& o) {
        o += "{\"topic\":";
        append_json_string(p.topic, o);
        key("partition", o);
        append_int(p.partition, o);
        optional_count("lag", p.lag, o);
        o += '}';
      },
      out);
  }
  if (s.source_lag_bytes >= 0) // only sources that know it (a replication slot's lag)
    count("source_lag_bytes", static_cast<uint64_t>(s.source_lag_bytes), out);
  if (s.dead_lettered > 0)
    count("dead_lettered", s.dead_lettered, out);
  out += '}';
}

void append_actor_tree(const ActorTree& tree, std::string& out) {
  out += "{\"nodes\":";
  append_array(tree.nodes, append_node, out);
  out += '}';
}

namespace {

using simdjson::dom::element;

[[noreturn]] void malformed(std::string_view what) {
  throw RestError(500, "A node answered a malformed actor tree: " + std::string{what});
}

std::string text(element e, std::string_view field) {
  std::string_view v;
  if (e[field].get(v))
    return {};
  return std::string{v};
}

uint64_t number(element e, std::string_view field) {
  uint64_t u = 0;
  if (!e[field].get(u))
    return u;
  int64_t i = 0;
  return e[field].get(i) ? 0 : static_cast<uint64_t>(std::max<int64_t>(i, 0));
}

int64_t signed_or(element e, std::string_view field, int64_t none) {
  int64_t v = none;
  return e[field].get(v) ? none : v;
}

double real(element e, std::string_view field) {
  double d = 0;
  if (!e[field].get(d))
    return d;
  return static_cast<double>(number(e, field));
}

Credit credit(element e) {
  return {static_cast<uint32_t>(number(e, "batches")), number(e, "bytes")};
}

StateInfo state(element e) { return {text(e, "state"), text(e, "worker_id"), text(e, "trace")}; }

/// A connector's or a task's "instance", if any.
std::optional<TreeInstance> instance_of(element e) {
  element instance;
  if (e["instance"].get(instance) || instance.is_null())
    return std::nullopt;
  return TreeInstance{static_cast<uint64_t>(signed_or(instance, "actor", 0)),
                      static_cast<uint64_t>(signed_or(instance, "restarts", 0))};
}

TreeStage stage(element e) {
  TreeStage st;
  st.name = text(e, "name");
  st.role = text(e, "role");
  auto& s = st.stats;
  s.name = st.name;
  s.kind = text(e, "kind");
  s.state = text(e, "state");
  s.mailbox = number(e, "mailbox");
  element c, o;
  if (!e["credit"].get(c)) {
    element x;
    if (!c["granted"].get(x)) s.capacity = credit(x);
    if (!c["held"].get(x)) s.held = credit(x);
  }
  if (!e["out_credit"].get(o)) {
    element x;
    if (!o["granted"].get(x)) s.out_capacity = credit(x);
    if (!o["in_flight"].get(x)) s.out_in_flight = credit(x);
    if (!o["max_in_flight"].get(x)) s.out_max_in_flight = credit(x);
  }
  s.records_in = number(e, "records_in");
  s.records_out = number(e, "records_out");
  s.batches_in = number(e, "batches_in");
  s.bytes_in = number(e, "bytes_in");
  auto& r = st.rates;
  r.records_in_per_sec = real(e, "records_in_per_sec");
  r.records_out_per_sec = real(e, "records_out_per_sec");
  r.bytes_in_per_sec = real(e, "bytes_in_per_sec");
  s.errors = number(e, "errors");
  s.last_error = text(e, "last_error");
  s.cpu_ns = number(e, "cpu_ns");
  r.cpu_per_sec = real(e, "cpu_per_sec");
  s.busy_ns = number(e, "busy_ns");
  r.busy = real(e, "busy");
  r.ns_per_record = real(e, "ns_per_record");
  s.credit_wait_ns = number(e, "credit_wait_ns");
  r.credit_wait = real(e, "credit_wait");
  st.upstream_wait = real(e, "upstream_wait");
  r.idle = real(e, "idle");
  s.lag = signed_or(e, "lag", -1);
  s.partitions = static_cast<int32_t>(signed_or(e, "partitions", -1));
  simdjson::dom::array lags;
  if (!e["partition_lags"].get(lags))
    for (element p : lags)
      s.partition_lags.push_back({text(p, "topic"), static_cast<int32_t>(signed_or(p, "partition", -1)),
                                  signed_or(p, "lag", -1)});
  s.source_lag_bytes = signed_or(e, "source_lag_bytes", -1);
  s.dead_lettered = number(e, "dead_lettered");
  return st;
}

metrics::NodeFigures node_figures(element n) {
  metrics::NodeFigures f;
  element sched, process;
  simdjson::dom::array items;
  if (!n["scheduler"].get(sched)) {
    if (!sched["threads"].get(items))
      for (element t : items)
        f.scheduler.push_back({static_cast<int>(signed_or(t, "id", 0)), static_cast<int>(signed_or(t, "tid", 0)),
                               real(t, "busy"), real(t, "cpu"), number(t, "busy_ns"), number(t, "cpu_ns")});
    f.run_queue = signed_or(sched, "run_queue", 0);
  }
  if (!n["threads"].get(items))
    for (element g : items)
      f.process.groups.push_back({text(g, "group"), static_cast<int>(signed_or(g, "count", 0)), real(g, "cpu")});
  if (!n["process"].get(process)) {
    f.process.cpu = real(process, "cpu");
    f.process.rss_bytes = number(process, "rss_bytes");
    f.process.fds = number(process, "fds");
    f.process.connections = number(process, "connections");
  }
  f.verdict = text(n, "verdict");
  return f;
}

ConnectorType type_named(std::string_view name) {
  return name == "sink" ? ConnectorType::sink : name == "source" ? ConnectorType::source : ConnectorType::unknown;
}

} // namespace

ActorTree parse_actor_tree(std::string_view json) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded{json};
  element doc;
  simdjson::dom::array nodes;
  if (parser.parse(padded).get(doc) || doc["nodes"].get(nodes))
    malformed("no \"nodes\" array");
  ActorTree tree;
  for (element n : nodes) {
    TreeNode node{text(n, "id"), false, {}};
    bool flag = false;
    if (!n["leader"].get(flag))
      node.leader = flag;
    if (!n["unreachable"].get(flag))
      node.unreachable = flag;
    else
      node.figures = node_figures(n);
    simdjson::dom::array connectors;
    if (n["connectors"].get(connectors))
      malformed("a node without \"connectors\"");
    for (element c : connectors) {
      TreeConnector tc{text(c, "name"), type_named(text(c, "type")), state(c), {}};
      tc.instance = instance_of(c);
      if (auto actor = signed_or(c, "actor", -1); actor >= 0)
        tc.actor = static_cast<uint64_t>(actor);
      simdjson::dom::array tasks;
      if (!c["tasks"].get(tasks))
        for (element t : tasks) {
          TreeTask task{static_cast<int>(signed_or(t, "id", 0)), state(t), {}, text(t, "bottleneck"),
                        text(t, "bottleneck_stage")};
          task.instance = instance_of(t);
          element latency;
          if (!t["poll_to_ack"].get(latency)) {
            task.poll_to_ack_p50 = real(latency, "p50");
            task.poll_to_ack_p99 = real(latency, "p99");
          }
          simdjson::dom::array stages;
          if (!t["stages"].get(stages))
            for (element s : stages)
              task.stages.push_back(stage(s));
          tc.tasks.push_back(std::move(task));
        }
      node.connectors.push_back(std::move(tc));
    }
    tree.nodes.push_back(std::move(node));
  }
  return tree;
}

} // namespace weir::runtime::rest
