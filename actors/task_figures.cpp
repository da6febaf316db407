#include "actors/task_figures.hpp"

namespace weir::actors {

using runtime::metrics::StageRole;

TaskFigures task_figures(const std::string& failure, int id,
                         const std::vector<runtime::metrics::StageSnapshot>& stages) {
  TaskFigures f;
  if (!failure.empty()) {
    f.state = "FAILED";
    f.trace = failure;
  }
  bool finished = true;
  for (const auto& s : stages) {
    if (s.key.task != id)
      continue;
    f.errors += s.stats.errors;
    finished = finished && s.stats.state == "FINISHED";
    if (s.role == StageRole::sink_writer || s.role == StageRole::source_writer)
      f.written = s.stats.records_out;
    if (s.role == StageRole::source_writer)
      f.waiting = s.stats.waiting;
    if (s.role == StageRole::source_reader)
      f.idle_reason = s.stats.idle_reason;
    if (s.role == StageRole::sink_reader) {
      f.lag = s.stats.lag;
      f.partitions = s.stats.partitions;
      f.idle_reason = s.stats.idle_reason;
      f.waiting = s.stats.waiting;
    }
  }
  if (f.state == "RUNNING" && finished)
    f.state = "FINISHED";
  return f;
}

std::string idle_trace(int tasks_max, int32_t partitions, const TaskFigures& f) {
  if (!f.idle_reason.empty())
    return "idle: no partition assigned (" + f.idle_reason + ")";
  if (partitions >= 0 && tasks_max > partitions)
    return "idle: no partition assigned (tasks.max=" + std::to_string(tasks_max) + " but the topics have "
           + std::to_string(partitions) + " partition(s))";
  return "idle: no partition assigned (the group gave this task none: more tasks than partitions, or a "
         "rebalance under way)";
}

std::string role_name(StageRole role) {
  switch (role) {
  case StageRole::transform: return "transform";
  case StageRole::sink_reader: return "sink_reader";
  case StageRole::sink_writer: return "sink_writer";
  case StageRole::source_reader: return "source_reader";
  case StageRole::source_writer: return "source_writer";
  }
  return "transform";
}

namespace {
std::string short_class(const std::string& name) {
  auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}
} // namespace

std::string kind_in_words(const engine::worker::ConnectorPlan& plan, StageRole role, const std::string& stage) {
  auto get = [&](const std::string& key) {
    auto it = plan.config.find(key);
    return it == plan.config.end() ? std::string{} : it->second;
  };
  switch (role) {
  case StageRole::transform: return short_class(get("transforms." + stage + ".type"));
  case StageRole::sink_reader:
  case StageRole::source_writer: return "Kafka";
  case StageRole::source_reader: return short_class(get("connector.class"));
  case StageRole::sink_writer: {
    auto kind = short_class(get("connector.class"));
    auto url = get("connection.url");
    if (url.starts_with("jdbc:sqlite")) kind += ", SQLite";
    if (url.starts_with("jdbc:postgresql")) kind += ", PostgreSQL";
    return kind;
  }
  }
  return {};
}

} // namespace weir::actors
