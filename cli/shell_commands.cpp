#include "cli/shell_commands.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <map>
#include <sstream>

#include <simdjson.h>

#include "cli/top_hint.hpp"
#include "runtime/config/connector_json.hpp"
#include "runtime/config/suggest.hpp"
#include "runtime/convert/json_text.hpp"
#include "runtime/rest/router.hpp"

namespace weir::cli::shell {

namespace {

using simdjson::dom::element;
using runtime::rest::percent_encode;

// --- reading answers

element parse(simdjson::dom::parser& parser, const std::string& json) {
  element doc;
  if (auto error = parser.parse(json).get(doc))
    throw ShellError(std::string{"the node answered something that is not JSON: "} + simdjson::error_message(error));
  return doc;
}

std::string text(element object, std::string_view key) {
  std::string_view value;
  return object[key].get(value) ? std::string{} : std::string{value};
}

int64_t integer(element object, std::string_view key) {
  int64_t value = 0;
  if (!object[key].get(value)) return value;
  uint64_t big = 0;
  return object[key].get(big) ? 0 : static_cast<int64_t>(std::min<uint64_t>(big, INT64_MAX));
}

double number(element object, std::string_view key) {
  double value = 0;
  return object[key].get(value) ? 0.0 : value;
}

std::string fixed(double value, int decimals = 1) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(decimals);
  out << value;
  return out.str();
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// Rows of cells as columns two blanks apart, each line after `indent`; rows may
// have fewer cells than others; no trailing blanks. Columns marked in `right`
// (numbers) are aligned right.
std::string table(const std::vector<std::vector<std::string>>& rows, const std::string& indent = "",
                  const std::vector<bool>& right = {}) {
  std::vector<size_t> widths;
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) {
      if (widths.size() <= i) widths.push_back(0);
      widths[i] = std::max(widths[i], row[i].size());
    }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      size_t pad = widths[i] - row[i].size();
      bool align_right = i < right.size() && right[i];
      if (align_right) line.append(pad, ' ');
      line += row[i];
      if (i + 1 < row.size()) line.append((align_right ? 0 : pad) + 2, ' ');
    }
    out += line + '\n';
  }
  return out;
}

std::string credit(element stage, std::string_view group, std::string_view used, std::string_view granted) {
  element credits = stage[group];
  return std::to_string(integer(credits[used], "batches")) + "/" + std::to_string(integer(credits[granted], "batches"));
}

// The figures top_hint reads, from a stage of GET /weir/tree.
StageFigures figures(element stage) {
  StageFigures f;
  f.role = text(stage, "role");
  f.state = text(stage, "state");
  f.held = static_cast<uint64_t>(integer(stage["credit"]["held"], "batches"));
  f.granted = static_cast<uint64_t>(integer(stage["credit"]["granted"], "batches"));
  f.in_flight = static_cast<uint64_t>(integer(stage["out_credit"]["in_flight"], "batches"));
  f.out_granted = static_cast<uint64_t>(integer(stage["out_credit"]["granted"], "batches"));
  f.mailbox = static_cast<uint64_t>(integer(stage, "mailbox"));
  f.partitions = stage["partitions"].is_null() ? -1 : integer(stage, "partitions");
  return f;
}

// CREDIT only for a stage with an upstream, IN-FLIGHT only for one with a next stage.
std::string granted_credit(element stage, const StageFigures& f) {
  return has_upstream(f.role) ? credit(stage, "credit", "held", "granted") : "-";
}
std::string sent_credit(element stage, const StageFigures& f) {
  return has_downstream(f.role) ? credit(stage, "out_credit", "in_flight", "granted") : "-";
}

// --- the commands

using Args = std::vector<std::string>;
enum class Completes { nothing, connector, tap, file };

struct Command {
  std::string_view name;
  std::string_view usage; // the arguments
  std::string_view help;
  size_t min_args;
  size_t max_args;
  Completes completes;
  void (*run)(const Args& args, Session& session);
};

const std::vector<Command>& command_table();

std::string connector_path(const std::string& name) { return "/connectors/" + percent_encode(name); }

// Against a cluster, every live node's subtree (a standalone worker ignores the scope).
constexpr const char* whole_tree = "/weir/tree?scope=cluster";

void help(const Args&, Session& session) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : command_table()) {
    std::string call{c.name};
    if (!c.usage.empty()) call += " " + std::string{c.usage};
    rows.push_back({call, std::string{c.help}});
  }
  session.out << "Commands:\n" << table(rows, "  ");
}

void nodes(const Args&, Session& session) {
  simdjson::dom::parser parser;
  element tree = parse(parser, session.client.request("GET", whole_tree));
  std::vector<std::vector<std::string>> rows{{"NODE", "LEADER", "CONNECTORS", "TASKS"}};
  for (element node : tree["nodes"].get_array()) {
    size_t tasks = 0, connectors = 0;
    for (element connector : node["connectors"].get_array()) {
      ++connectors;
      tasks += connector["tasks"].get_array().size();
    }
    rows.push_back({text(node, "id"), node["leader"].get_bool().value() ? "yes" : "no", std::to_string(connectors),
                    std::to_string(tasks)});
  }
  session.out << table(rows);
}

void tree(const Args& args, Session& session) {
  std::string path = args.empty() ? std::string{whole_tree}
                                  : "/weir/tree/" + percent_encode(args[0]) + "?scope=cluster";
  session.out << render_tree(session.client.request("GET", path));
}

void top(const Args&, Session& session) {
  auto render = [&session] { return render_top(session.client.request("GET", whole_tree)); };
  if (session.live_top) session.live_top(render);
  else session.out << render();
}

int positive(const std::string& word, std::string_view what) {
  int value = 0;
  auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
  if (ec != std::errc{} || end != word.data() + word.size() || value < 0)
    throw ShellError(std::string{what} + " must be a number, not '" + word + "'");
  return value;
}

void tap(const Args& args, Session& session) {
  int task = positive(args[1], "TASK");
  int count = args.size() > 3 ? positive(args[3], "N") : 10;
  std::string path = "/weir" + connector_path(args[0]) + "/tasks/" + std::to_string(task) + "/stages/" +
                     percent_encode(args[2]) + "/tap?count=" + std::to_string(count);
  // Each record is printed as it passes (the node streams them).
  bool any = false;
  session.client.stream(path, [&](std::string_view piece) {
    any = any || !piece.empty();
    session.out << piece << std::flush;
  });
  if (!any) session.err << "no record passed stage " << args[2] << " before the node's tap timed out\n";
}

std::string task_summary(element tasks) {
  std::map<std::string, int> states;
  for (element task : tasks.get_array()) ++states[text(task, "state")];
  std::string summary;
  for (const auto& [state, n] : states) summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + state;
  return summary.empty() ? "-" : summary;
}

void connectors(const Args&, Session& session) {
  simdjson::dom::parser parser;
  element all = parse(parser, session.client.request("GET", "/connectors?expand=status"));
  std::vector<std::vector<std::string>> rows{{"NAME", "TYPE", "STATE", "TASKS"}};
  for (auto [name, entry] : all.get_object()) {
    element status = entry["status"];
    rows.push_back({std::string{name}, text(status, "type"), text(status["connector"], "state"),
                    task_summary(status["tasks"])});
  }
  if (rows.size() == 1) session.out << "no connectors\n";
  else session.out << table(rows);
}

void print_state(std::ostream& out, const std::string& indent, const std::string& what, element state) {
  out << indent << what << ": " << text(state, "state") << " on " << text(state, "worker_id") << '\n';
  std::string trace = text(state, "trace");
  for (size_t start = 0; start < trace.size();) {
    size_t end = std::min(trace.find('\n', start), trace.size());
    out << indent << "    " << trace.substr(start, end - start) << '\n';
    start = end + 1;
  }
}

void status(const Args& args, Session& session) {
  simdjson::dom::parser parser;
  element status = parse(parser, session.client.request("GET", connector_path(args[0]) + "/status"));
  print_state(session.out, "", text(status, "name") + " (" + text(status, "type") + ")", status["connector"]);
  for (element task : status["tasks"].get_array())
    print_state(session.out, "  ", "task " + std::to_string(integer(task, "id")), task);
}

void config(const Args& args, Session& session) {
  simdjson::dom::parser parser;
  element config = parse(parser, session.client.request("GET", connector_path(args[0]) + "/config"));
  for (auto [key, value] : config.get_object()) {
    std::string_view text_value;
    session.out << key << '=' << (value.get(text_value) ? std::string{} : std::string{text_value}) << '\n';
  }
}

void create(const Args& args, Session& session) {
  runtime::ConnectorConfig connector;
  try {
    connector = runtime::load_connector_file(args[0]);
  } catch (const std::exception& e) {
    throw ShellError(e.what());
  }
  std::string body = "{\"name\":";
  runtime::convert::append_json_string(connector.name, body);
  body += ",\"config\":{";
  bool first = true;
  for (const auto& [key, value] : connector.config) {
    body += first ? "" : ",";
    first = false;
    runtime::convert::append_json_string(key, body);
    body += ':';
    runtime::convert::append_json_string(value, body);
  }
  body += "}}";
  simdjson::dom::parser parser;
  element info = parse(parser, session.client.request("POST", "/connectors", body));
  session.out << "created connector " << text(info, "name") << '\n';
}

// pause, resume, stop, restart, delete: one request, one line saying it was done.
template <const char* Method, const char* Suffix, const char* Done>
void act(const Args& args, Session& session) {
  session.client.request(Method, connector_path(args[0]) + Suffix);
  session.out << Done << ' ' << args[0] << '\n';
}
constexpr char put[] = "PUT", post[] = "POST", del[] = "DELETE", none[] = "";
constexpr char pause_path[] = "/pause", resume_path[] = "/resume", stop_path[] = "/stop",
               restart_path[] = "/restart?includeTasks=true";
constexpr char paused[] = "paused", resumed[] = "resumed", stopped[] = "stopped",
               restarting[] = "restarting the connector and tasks of", deleted[] = "deleted";

// restart NAME: the connector and its tasks; restart NAME TASK: that task alone,
// on whichever node runs it (the node asked forwards it there).
void restart(const Args& args, Session& session) {
  if (args.size() == 1) return act<post, restart_path, restarting>(args, session);
  int task = positive(args[1], "TASK");
  session.client.request("POST", connector_path(args[0]) + "/tasks/" + std::to_string(task) + "/restart");
  session.out << "restarted task " << task << " of " << args[0] << '\n';
}

void offsets(const Args& args, Session& session) {
  simdjson::dom::parser parser;
  element answer = parse(parser, session.client.request("GET", connector_path(args[0]) + "/offsets"));
  std::vector<std::vector<std::string>> rows{{"PARTITION", "OFFSET"}};
  for (element entry : answer["offsets"].get_array())
    rows.push_back({simdjson::minify(entry["partition"]), simdjson::minify(entry["offset"])});
  if (rows.size() == 1) session.out << "no offsets\n";
  else session.out << table(rows);
}

void loggers(const Args&, Session& session) {
  simdjson::dom::parser parser;
  element answer = parse(parser, session.client.request("GET", "/admin/loggers"));
  std::vector<std::vector<std::string>> rows{{"LOGGER", "LEVEL"}};
  for (auto [name, level] : answer.get_object()) rows.push_back({std::string{name}, text(level, "level")});
  session.out << table(rows);
}

void nothing(const Args&, Session&) {}

const std::vector<Command>& command_table() {
  static const std::vector<Command> commands{
      {"help", "", "this list", 0, 0, Completes::nothing, help},
      {"nodes", "", "the nodes: id, leader, connectors and tasks on each", 0, 0, Completes::nothing, nodes},
      {"tree", "[CONNECTOR]", "the actor tree: nodes, connectors, tasks and their stages", 0, 1,
       Completes::connector, tree},
      {"top", "", "per node: threads busy, run queue, CPU, RSS; per stage, busiest first: busy, rates, "
                     "mailbox, credit, CPU, the task's bottleneck; refreshed every second, q quits", 0, 0,
       Completes::nothing, top},
      {"tap", "CONNECTOR TASK STAGE [N]", "the next N (10) records passing a stage, as JSON lines", 3, 4,
       Completes::tap, tap},
      {"connectors", "", "every connector with its type, state and task states", 0, 0, Completes::nothing,
       connectors},
      {"status", "NAME", "a connector's and its tasks' states, with failure traces", 1, 1, Completes::connector,
       status},
      {"config", "NAME", "a connector's config as properties (secrets [hidden])", 1, 1, Completes::connector,
       config},
      {"create", "FILE", "creates a connector from a .properties or .json file", 1, 1, Completes::file, create},
      {"pause", "NAME", "pauses a connector and its tasks", 1, 1, Completes::connector, act<put, pause_path, paused>},
      {"resume", "NAME", "resumes a paused or stopped connector", 1, 1, Completes::connector,
       act<put, resume_path, resumed>},
      {"stop", "NAME", "stops a connector: no tasks run, offsets can be changed", 1, 1, Completes::connector,
       act<put, stop_path, stopped>},
      {"restart", "NAME [TASK]", "restarts a connector and its tasks, or one task", 1, 2, Completes::connector,
       restart},
      {"delete", "NAME", "deletes a connector", 1, 1, Completes::connector, act<del, none, deleted>},
      {"offsets", "NAME", "a connector's committed offsets", 1, 1, Completes::connector, offsets},
      {"loggers", "", "the log levels set on the node", 0, 0, Completes::nothing, loggers},
      {"quit", "", "leaves the shell (also exit, Ctrl-D)", 0, 0, Completes::nothing, nothing},
      {"exit", "", "leaves the shell", 0, 0, Completes::nothing, nothing},
  };
  return commands;
}

const Command* find_command(std::string_view name) {
  for (const auto& c : command_table())
    if (c.name == name) return &c;
  return nullptr;
}

// --- the tree's renderings

std::string stage_rate(element stage, std::string_view key) { return fixed(number(stage, key)); }

std::string percent(double fraction) { return std::to_string(static_cast<int>(fraction * 100 + 0.5)) + "%"; }

// A latency in the unit that reads best: "850 µs", "12.5 ms", "1.20 s".
std::string duration(double seconds) {
  if (seconds < 1e-3) return fixed(seconds * 1e6, 0) + " µs";
  if (seconds < 1) return fixed(seconds * 1e3) + " ms";
  return fixed(seconds, 2) + " s";
}

// A task's poll-to-ack latency ("p50 12.0 ms, p99 40.0 ms"), "" before the first ack.
std::string poll_to_ack(element task) {
  element latency;
  if (task["poll_to_ack"].get(latency) || latency.is_null()) return {};
  return "p50 " + duration(number(latency, "p50")) + ", p99 " + duration(number(latency, "p99"));
}

// A consumer's lag, with each partition's when it has more than one:
// "lag 42 (orders/0 10, orders/1 12, orders/2 20)"; past eight, how many more.
std::string lag_cell(element stage) {
  std::string out = "lag " + std::to_string(integer(stage, "lag"));
  simdjson::dom::array partitions;
  if (stage["partition_lags"].get(partitions) || partitions.size() < 2) return out;
  std::string each;
  size_t shown = 0;
  for (element p : partitions) {
    if (shown++ == 8) {
      each += ", +" + std::to_string(partitions.size() - 8) + " more";
      break;
    }
    each += (each.empty() ? "" : ", ") + text(p, "topic") + "/" + std::to_string(integer(p, "partition")) + " " +
            (p["lag"].is_null() ? "?" : std::to_string(integer(p, "lag")));
  }
  return out + " (" + each + ")";
}

// A node's header: its scheduler threads' busy fractions, run queue, CPU, RSS and
// the scheduler's verdict; or that it did not answer.
std::string node_header(element node, const std::string& indent) {
  bool unreachable = false;
  if (!node["unreachable"].get(unreachable) && unreachable)
    return indent + "unreachable: no answer within the deadline\n";
  simdjson::dom::array threads;
  element process;
  if (node["scheduler"]["threads"].get(threads) || node["process"].get(process))
    return {}; // a node without the figures (an older weir)
  std::string busy;
  for (element thread : threads)
    busy += (busy.empty() ? "" : " ") + percent(number(thread, "busy"));
  std::string out = indent + "threads " + std::to_string(integer(node["scheduler"], "busy_threads")) + "/" +
                    std::to_string(threads.size()) + " busy (" + busy +
                    "), run queue " + std::to_string(integer(node["scheduler"], "run_queue")) + ", cpu " +
                    fixed(number(process, "cpu") * 100) + "%, rss " +
                    fixed(static_cast<double>(integer(process, "rss_bytes")) / (1 << 20)) + " MiB, fds " +
                    std::to_string(integer(process, "fds")) + ", connections " +
                    std::to_string(integer(process, "connections")) + '\n';
  if (auto verdict = text(node, "verdict"); !verdict.empty())
    out += indent + verdict + '\n';
  return out;
}

std::vector<std::string> stage_cells(element stage) {
  StageFigures f = figures(stage);
  std::vector<std::string> cells{text(stage, "name"), text(stage, "role"), text(stage, "kind"), text(stage, "state"),
                                 "in " + stage_rate(stage, "records_in_per_sec") + "/s",
                                 "out " + stage_rate(stage, "records_out_per_sec") + "/s",
                                 "mailbox " + std::to_string(f.mailbox),
                                 "credit " + granted_credit(stage, f),
                                 "in flight " + sent_credit(stage, f),
                                 "cpu " + fixed(number(stage, "cpu_per_sec") * 100) + "%",
                                 "busy " + percent(number(stage, "busy")),
                                 fixed(number(stage, "ns_per_record") / 1000, 2) + " µs/record",
                                 "waiting on " + std::string{waiting_on(f)}};
  if (!stage["lag"].is_null()) cells.push_back(lag_cell(stage));
  if (!stage["partitions"].is_null()) cells.push_back("partitions " + std::to_string(integer(stage, "partitions")));
  if (int64_t errors = integer(stage, "errors"))
    cells.push_back("errors " + std::to_string(errors) + ": " + first_line(text(stage, "last_error")));
  return cells;
}

std::string state_line(element entity) {
  std::string line = text(entity, "state");
  std::string trace = text(entity, "trace");
  return trace.empty() ? line : line + ": " + first_line(trace);
}

// Any simdjson error while reading an answer: the node spoke another shape.
template <class Read>
auto reading(Read read) {
  try {
    return read();
  } catch (const simdjson::simdjson_error& e) {
    throw ShellError(std::string{"unexpected answer from the node: "} + e.what());
  }
}

} // namespace

// --- commands

std::vector<std::string> split_words(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < line.size()) word += line[++i];
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote) throw ShellError(std::string{"unterminated "} + quote + " quote");
  if (in_word) words.push_back(std::move(word));
  return words;
}

void run_command(const std::vector<std::string>& words, Session& session) {
  if (words.empty()) return;
  const Command* command = find_command(words[0]);
  if (!command) {
    std::string message = "unknown command '" + words[0] + "'";
    // As a mistyped config key gets its nearest key.
    if (const auto* near = runtime::nearest_name(command_table(), words[0], [](const Command& c) { return c.name; }))
      message += "; did you mean '" + std::string{near->name} + "'?";
    throw ShellError(message + " (try 'help')");
  }
  Args args(words.begin() + 1, words.end());
  if (args.size() < command->min_args || args.size() > command->max_args) {
    std::string usage{command->name};
    if (!command->usage.empty()) usage += " " + std::string{command->usage};
    throw ShellError("usage: " + usage);
  }
  reading([&] {
    command->run(args, session);
    return 0;
  });
}

bool run_line(std::string_view line, Session& session) {
  try {
    run_command(split_words(line), session);
    session.out << std::flush;
    return true;
  } catch (const std::exception& e) {
    // One line, whatever the message: Kafka Connect's invalid-config message has several.
    std::string message = e.what();
    std::replace(message.begin(), message.end(), '\n', ' ');
    session.out << std::flush;
    session.err << "error: " << message << std::endl;
    return false;
  }
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const auto& c : command_table()) names.emplace_back(c.name);
  return names;
}

std::vector<std::string> complete(std::string_view line, const CompletionSource& source) {
  std::vector<std::string> words;
  try {
    words = split_words(line);
  } catch (const ShellError&) {
    return {};
  }
  bool new_word = line.empty() || std::isspace(static_cast<unsigned char>(line.back()));
  if (new_word) words.emplace_back();
  const std::string& prefix = words.back();
  std::vector<std::string> candidates;
  size_t index = words.size() - 1;
  const Command* command = index ? find_command(words[0]) : nullptr;
  if (index == 0) {
    candidates = command_names();
  } else if (command && index == 1 &&
             (command->completes == Completes::connector || command->completes == Completes::tap)) {
    candidates = source.connectors();
  } else if (command && command->completes == Completes::tap && index == 2) {
    candidates = source.tasks(words[1]);
  } else if (command && command->completes == Completes::tap && index == 3) {
    candidates = source.stages(words[1], words[2]);
  }
  std::erase_if(candidates, [&](const std::string& c) { return c.rfind(prefix, 0) != 0; });
  std::sort(candidates.begin(), candidates.end());
  return candidates;
}

CompletionSource rest_completion(RestClient& client) {
  // Each lookup is one request; completion must never fail the shell.
  auto guarded = [](auto lookup) {
    try {
      return reading(lookup);
    } catch (const std::exception&) {
      return std::vector<std::string>{};
    }
  };
  auto tree_tasks = [&client](const std::string& connector, auto each) {
    simdjson::dom::parser parser;
    element tree = parse(parser, client.request("GET", "/weir/tree/" + percent_encode(connector)));
    for (element node : tree["nodes"].get_array())
      for (element c : node["connectors"].get_array())
        for (element task : c["tasks"].get_array()) each(task);
  };
  CompletionSource source;
  source.connectors = [&client, guarded] {
    return guarded([&client] {
      simdjson::dom::parser parser;
      std::vector<std::string> names;
      for (element name : parse(parser, client.request("GET", "/connectors")).get_array())
        names.emplace_back(std::string_view{name.get_string()});
      return names;
    });
  };
  source.tasks = [guarded, tree_tasks](const std::string& connector) {
    return guarded([&] {
      std::vector<std::string> ids;
      tree_tasks(connector, [&](element task) { ids.push_back(std::to_string(integer(task, "id"))); });
      return ids;
    });
  };
  source.stages = [guarded, tree_tasks](const std::string& connector, const std::string& task) {
    return guarded([&] {
      std::vector<std::string> names;
      tree_tasks(connector, [&](element t) {
        if (std::to_string(integer(t, "id")) != task) return;
        for (element stage : t["stages"].get_array()) names.push_back(text(stage, "name"));
      });
      return names;
    });
  };
  return source;
}

namespace {

/// ", actor #12, restarted 1 time(s)": a task's actor on this node, if any; for a
/// connector (`prefix` "instance"), its instance.
std::string instance_note(element e, std::string_view prefix = "actor") {
  element instance;
  if (e["instance"].get(instance) || instance.is_null())
    return {};
  auto restarts = integer(instance, "restarts");
  return ", " + std::string{prefix} + " #" + std::to_string(integer(instance, "actor"))
         + (restarts > 0 ? ", restarted " + std::to_string(restarts) + " time(s)" : "");
}

/// ", actor #11": a connector's supervisor on this node (its tasks' parent), if any.
std::string supervisor_note(element connector) {
  int64_t actor = 0;
  if (connector["actor"].get(actor))
    return {};
  return ", actor #" + std::to_string(actor);
}

} // namespace

std::string render_tree(const std::string& tree_json) {
  return reading([&] {
    simdjson::dom::parser parser;
    element tree = parse(parser, tree_json);
    std::string out;
    for (element node : tree["nodes"].get_array()) {
      out += "node " + text(node, "id") + (node["leader"].get_bool().value() ? " (leader)" : "") + '\n';
      out += node_header(node, "  ");
      for (element connector : node["connectors"].get_array()) {
        out += "  connector " + text(connector, "name") + " (" + text(connector, "type") + ") " +
               state_line(connector) + supervisor_note(connector) + instance_note(connector, "instance") + '\n';
        for (element task : connector["tasks"].get_array()) {
          out += "    task " + std::to_string(integer(task, "id")) + ' ' + state_line(task) + instance_note(task)
                 + '\n';
          if (auto verdict = text(task, "bottleneck"); !verdict.empty())
            out += "      " + verdict + '\n';
          if (auto latency = poll_to_ack(task); !latency.empty())
            out += "      poll to ack " + latency + '\n';
          std::vector<std::vector<std::string>> rows;
          for (element stage : task["stages"].get_array()) rows.push_back(stage_cells(stage));
          out += table(rows, "      ");
        }
      }
    }
    return out;
  });
}

std::string render_top(const std::string& tree_json) {
  return reading([&] {
    simdjson::dom::parser parser;
    element tree = parse(parser, tree_json);
    std::string header;
    struct Row {
      bool bottleneck; // the stage its task's verdict names: listed first
      double busy;
      std::vector<std::string> cells;
    };
    std::vector<Row> rows;
    for (element node : tree["nodes"].get_array()) {
      header += "node " + text(node, "id") + ": " + node_header(node, "");
      for (element connector : node["connectors"].get_array())
        for (element task : connector["tasks"].get_array()) {
          auto named = text(task, "bottleneck_stage");
          auto verdict = text(task, "bottleneck");
          element latency;
          std::string p99 = task["poll_to_ack"].get(latency) || latency.is_null() ? "-" : duration(number(latency, "p99"));
          bool first = true;
          for (element stage : task["stages"].get_array()) {
            StageFigures f = figures(stage);
            auto name = text(stage, "name");
            // The verdict on the stage it names, else on the task's first stage.
            bool here = named.empty() ? first : name == named;
            bool reader = first; // the task's own figures go on its first row
            first = false;
            rows.push_back({!named.empty() && name == named, number(stage, "busy"),
                            {text(connector, "name"), std::to_string(integer(task, "id")), name, f.role, f.state,
                             percent(number(stage, "busy")), stage_rate(stage, "records_in_per_sec"),
                             stage_rate(stage, "records_out_per_sec"), std::to_string(f.mailbox),
                             granted_credit(stage, f), sent_credit(stage, f),
                             fixed(number(stage, "cpu_per_sec") * 100),
                             stage["lag"].is_null() ? "-" : std::to_string(integer(stage, "lag")),
                             reader ? p99 : "", std::to_string(integer(stage, "errors")), std::string{waiting_on(f)},
                             here ? verdict : ""}});
          }
        }
    }
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
      return a.bottleneck != b.bottleneck ? a.bottleneck : a.busy > b.busy;
    });
    std::vector<std::vector<std::string>> cells{{"CONNECTOR", "TASK", "STAGE", "ROLE", "STATE", "BUSY", "IN/s",
                                                 "OUT/s", "MAILBOX", "CREDIT", "IN-FLIGHT", "CPU%", "LAG", "ACK-P99",
                                                 "ERRORS", "WAITING ON", "BOTTLENECK"}};
    for (auto& row : rows) {
      if (row.cells.back().empty()) row.cells.pop_back(); // no trailing blanks
      cells.push_back(std::move(row.cells));
    }
    //   CONNECTOR TASK STAGE ROLE STATE BUSY IN/s OUT/s MAILBOX CREDIT IN-FLIGHT CPU% LAG ACK-P99 ERRORS
    //   WAITING-ON BOTTLENECK
    static const std::vector<bool> numbers{false, true, false, false, false, true, true, true, true,
                                           true,  true, true, true,  true,  true,  false, false};
    return header + table(cells, "", numbers);
  });
}

} // namespace weir::cli::shell
