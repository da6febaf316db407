// Test support: an in-memory ConnectHerder with Kafka Connect's error wording, so
// the REST layer can be tested end to end over HTTP without a worker. A connector
// named "stuck" never answers status requests (to test deadlines).
#pragma once

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "runtime/convert/json_text.hpp"
#include "runtime/metrics/metrics_registry.hpp"
#include "runtime/rest/connect_herder.hpp"

namespace weir::runtime::rest::test {

class FakeHerder : public ConnectHerder {
public:
  struct Connector {
    ConfigMap config;
    std::string state = "RUNNING";
    std::vector<ConnectorOffset> offsets;
    std::vector<std::string> topics;
  };

  // Set by a test while the server's threads read them.
  std::atomic<bool> is_ready{true};
  std::atomic<bool> healthy{true};

  /// Keys reported as `secret_keys` (as if their values came from config providers).
  void set_provider_keys(std::set<std::string> keys) {
    std::lock_guard lock{mutex_};
    provider_keys_ = std::move(keys);
  }
  /// The restarts asked for, in order.
  std::vector<std::string> restarted() {
    std::lock_guard lock{mutex_};
    return restarted_;
  }
  /// What is stored for a connector.
  ConfigMap stored(const std::string& name) {
    std::lock_guard lock{mutex_};
    return get(name).config;
  }

  ServerInfo server_info(Deadline) override { return {"0.1.0", "abc123", "cluster-1"}; }
  void health_check(Deadline deadline) override {
    if (healthy) return;
    std::this_thread::sleep_until(deadline);
    throw RequestTimeout("waiting for the supervisor actor to answer a health check");
  }
  bool ready() override { return is_ready; }

  std::vector<std::string> connectors(Deadline) override {
    std::lock_guard lock{mutex_};
    std::vector<std::string> names;
    for (const auto& [name, c] : connectors_) names.push_back(name);
    return names;
  }
  ConnectorInfo connector_info(const std::string& name, Deadline) override {
    std::lock_guard lock{mutex_};
    return info(name, get(name));
  }
  ConnectorStatus connector_status(const std::string& name, Deadline deadline) override {
    if (name == "stuck") {
      std::this_thread::sleep_until(deadline);
      throw RequestTimeout("waiting for connector stuck's actor to answer a status request");
    }
    std::lock_guard lock{mutex_};
    const Connector& c = get(name);
    ConnectorStatus status{name, {c.state, "127.0.0.1:8083", ""}, {}, type(c)};
    for (int i = 0; i < task_count(c); ++i) status.tasks.push_back(task_state(name, i, c));
    return status;
  }
  TaskState task_status(const TaskId& id, Deadline) override {
    std::lock_guard lock{mutex_};
    const Connector& c = get(id.connector);
    if (id.task < 0 || id.task >= task_count(c))
      throw not_found("Task " + id.connector + "-" + std::to_string(id.task) + " not found");
    return task_state(id.connector, id.task, c);
  }
  std::vector<TaskInfo> task_configs(const std::string& name, Deadline) override {
    std::lock_guard lock{mutex_};
    const Connector& c = get(name);
    std::vector<TaskInfo> tasks;
    for (int i = 0; i < task_count(c); ++i) {
      ConfigMap config{{"task.class", "FakeTask"}};
      if (c.config.count("connection.password")) config["connection.password"] = c.config.at("connection.password");
      tasks.push_back({{name, i}, config, {}});
    }
    return tasks;
  }
  Created put_connector_config(const std::string& name, const ConfigMap& config,
                               std::optional<InitialState> initial_state, bool allow_replace,
                               Deadline) override {
    validate(config);
    std::lock_guard lock{mutex_};
    bool exists = connectors_.count(name) > 0;
    if (exists && !allow_replace) throw already_exists("Connector " + name + " already exists");
    Connector& c = connectors_[name];
    c.config = config;
    if (initial_state == InitialState::paused) c.state = "PAUSED";
    if (initial_state == InitialState::stopped) c.state = "STOPPED";
    return {!exists, info(name, c)};
  }
  Created patch_connector_config(const std::string& name, const ConfigPatch& patch, Deadline) override {
    std::lock_guard lock{mutex_};
    Connector& c = get(name);
    ConfigMap patched = apply_config_patch(c.config, patch);
    validate(patched);
    c.config = patched;
    return {false, info(name, c)};
  }
  void delete_connector(const std::string& name, Deadline) override {
    std::lock_guard lock{mutex_};
    get(name);
    connectors_.erase(name);
  }
  void restart_connector(const std::string& name, Deadline) override {
    std::lock_guard lock{mutex_};
    get(name);
    restarted_.push_back(name);
  }
  ConnectorStatus restart_connector_and_tasks(const RestartRequest& request, Deadline deadline) override {
    ConnectorStatus status = connector_status(request.connector, deadline);
    std::lock_guard lock{mutex_};
    restarted_.push_back(request.connector + (request.include_tasks ? "+tasks" : "") +
                        (request.only_failed ? "+onlyFailed" : ""));
    if (!request.only_failed) status.connector.state = "RESTARTING";
    for (auto& task : status.tasks)
      if (request.include_tasks && (!request.only_failed || task.state.state == "FAILED"))
        task.state = {"RESTARTING", task.state.worker_id, ""};
    return status;
  }
  void restart_task(const TaskId& id, Forward forward, Deadline deadline) override {
    task_status(id, deadline);
    std::lock_guard lock{mutex_};
    restarted_.push_back(id.connector + "-" + std::to_string(id.task) +
                         (forward == Forward::refused ? "+forward=false" : ""));
  }
  void pause_connector(const std::string& name, Deadline) override { set_state(name, "PAUSED"); }
  void resume_connector(const std::string& name, Deadline) override { set_state(name, "RUNNING"); }
  void stop_connector(const std::string& name, Deadline) override { set_state(name, "STOPPED"); }

  std::vector<ConnectorOffset> connector_offsets(const std::string& name, Deadline) override {
    std::lock_guard lock{mutex_};
    return get(name).offsets;
  }
  std::string alter_connector_offsets(const std::string& name, const std::vector<ConnectorOffset>& offsets,
                                      Deadline) override {
    std::lock_guard lock{mutex_};
    Connector& c = stopped(name);
    for (const auto& offset : offsets) c.offsets.push_back(offset);
    return "The offsets for this connector have been altered successfully";
  }
  std::string reset_connector_offsets(const std::string& name, Deadline) override {
    std::lock_guard lock{mutex_};
    stopped(name).offsets.clear();
    return "The offsets for this connector have been reset successfully";
  }

  std::vector<std::string> connector_active_topics(const std::string& name, Deadline) override {
    std::lock_guard lock{mutex_};
    return get(name).topics;
  }
  void reset_connector_active_topics(const std::string& name, Deadline) override {
    std::lock_guard lock{mutex_};
    get(name).topics.clear();
  }

  std::vector<PluginInfo> plugins(Deadline) override {
    return {{"org.apache.kafka.connect.file.FileStreamSinkConnector", "sink", "4.1.1"},
            {"org.apache.kafka.connect.file.FileStreamSourceConnector", "source", "4.1.1"},
            {"org.apache.kafka.connect.transforms.InsertField$Value", "transformation", "4.1.1"},
            {"org.apache.kafka.connect.transforms.predicates.TopicNameMatches", "predicate", ""},
            {"org.apache.kafka.connect.json.JsonConverter", "converter", "4.1.1"}};
  }
  std::vector<ConfigKeyInfo> plugin_config(const std::string& plugin, Deadline) override {
    if (plugin != "FileStreamSink" && plugin != "org.apache.kafka.connect.file.FileStreamSinkConnector")
      throw not_found("Unknown plugin " + plugin + ".");
    return {file_key()};
  }
  ConfigInfos validate_connector_config(const ConfigMap& config, Deadline) override {
    ConfigInfos infos{config.count("connector.class") ? config.at("connector.class") : "", 0, {"Common"}, {}};
    ConfigValueInfo value{"file", std::nullopt, {}, {}, true};
    if (config.count("file")) value.value = config.at("file");
    else value.errors.push_back("Missing required configuration \"file\" which has no default value.");
    infos.error_count = static_cast<int>(value.errors.size());
    infos.configs.push_back({file_key(), value});
    ConfigKeyInfo password{"connection.password", "PASSWORD", false, "", "HIGH", "", "Common", 1, "NONE",
                           "connection.password", {}};
    ConfigValueInfo password_value{"connection.password", std::nullopt, {}, {}, true};
    if (config.count("connection.password")) password_value.value = config.at("connection.password");
    infos.configs.push_back({password, password_value});
    return infos;
  }

  std::map<std::string, LoggerLevel> logger_levels(Deadline) override {
    std::lock_guard lock{mutex_};
    return loggers_;
  }
  std::optional<LoggerLevel> logger_level(const std::string& name, Deadline) override {
    std::lock_guard lock{mutex_};
    auto it = loggers_.find(name);
    if (it == loggers_.end()) return std::nullopt;
    return it->second;
  }
  std::vector<std::string> set_worker_logger_level(const std::string& name, const std::string& level,
                                                   Deadline) override {
    std::lock_guard lock{mutex_};
    loggers_[name] = {level, 1700000000000};
    return {name};
  }
  void set_cluster_logger_level(const std::string& name, const std::string& level, Deadline) override {
    std::lock_guard lock{mutex_};
    loggers_[name] = {level, 1700000000001};
  }

  // weir's own calls: one node holding every connector; each task's pipeline is
  // reader, one stage per alias in `transforms`, writer, with figures that follow
  // from the task and stage position (fake_stage) so tests can assert them.
  ActorTree actor_tree(const std::optional<std::string>& connector, Deadline) override {
    std::lock_guard lock{mutex_};
    TreeNode node{"127.0.0.1:8083", true, {}};
    node.figures.scheduler = {{0, 100, 0.5}, {1, 101, 0.25}};
    node.figures.run_queue = 1;
    node.figures.process = {{{"scheduler", 2, 0.75}, {"kafka", 4, 0.125}}, 1.0, 64u << 20, 32, 8};
    if (connector) node.connectors.push_back(tree_connector(*connector, get(*connector)));
    else
      for (const auto& [name, c] : connectors_) node.connectors.push_back(tree_connector(name, c));
    return {{node}};
  }
  std::string metrics_text(Deadline deadline) override {
    std::vector<metrics::StageSnapshot> stages;
    ActorTree tree = actor_tree(std::nullopt, deadline);
    for (const auto& c : tree.nodes.front().connectors)
      for (const auto& task : c.tasks)
        for (const auto& stage : task.stages)
          stages.push_back({{c.name, task.id, stage.name}, role_of(stage.role), stage.stats});
    return metrics::render_prometheus(stages);
  }
  /// `count` records at once while the connector runs; none otherwise (as if the
  /// deadline passed with nothing flowing). Stops when the sink refuses one.
  void tap(const TaskId& id, const std::string& stage, int count, Forward, Deadline deadline,
           TapSink& sink) override {
    std::vector<std::string> records;
    bool paused = false;
    {
      std::lock_guard lock{mutex_};
      const Connector& c = get(id.connector);
      std::string task = id.connector + "-" + std::to_string(id.task);
      if (id.task < 0 || id.task >= task_count(c)) throw not_found("Task " + task + " not found");
      auto stages = stage_names(c);
      if (std::find(stages.begin(), stages.end(), stage) == stages.end())
        throw not_found("Stage " + stage + " not found in task " + task);
      paused = c.state != "RUNNING";
      std::string topic = c.config.count("topics") ? c.config.at("topics") : "fake-topic";
      for (int i = 0; i < count; ++i) {
        std::string record = "{\"topic\":";
        convert::append_json_string(topic, record);
        record += ",\"partition\":" + std::to_string(id.task) + ",\"offset\":" + std::to_string(i) +
                  ",\"timestamp\":" + std::to_string(1700000000000 + i) + ",\"key\":null,\"value\":{\"stage\":";
        convert::append_json_string(stage, record);
        record += ",\"n\":" + std::to_string(i) + "},\"headers\":[]}";
        records.push_back(std::move(record));
      }
    }
    // No record passes a paused connector's stages: the tap waits out its time.
    while (paused && std::chrono::steady_clock::now() < deadline && !sink.gone())
      std::this_thread::sleep_for(std::chrono::milliseconds{5});
    for (const auto& record : records)
      if (paused || !sink.record(record)) return;
  }

private:
  Connector& get(const std::string& name) {
    auto it = connectors_.find(name);
    if (it == connectors_.end()) throw not_found("Connector " + name + " not found");
    return it->second;
  }
  Connector& stopped(const std::string& name) {
    Connector& c = get(name);
    if (c.state != "STOPPED")
      throw bad_request("Connectors must be in the STOPPED state before their offsets can be modified. "
                        "This can be done for the specified connector by issuing a 'PUT' request to the "
                        "'/connectors/" + name + "/stop' endpoint");
    return c;
  }
  void set_state(const std::string& name, std::string state) {
    std::lock_guard lock{mutex_};
    get(name).state = std::move(state);
  }
  static void validate(const ConfigMap& config) {
    if (!config.count("connector.class"))
      throw bad_request("Connector configuration is invalid and contains the following 1 error(s):\n"
                        "Missing required configuration \"connector.class\" which has no default value.\n"
                        "You can also find the above list of errors at the endpoint "
                        "`/connector-plugins/{connectorType}/config/validate`");
  }
  static ConnectorType type(const Connector& c) {
    return c.config.at("connector.class").find("Sink") != std::string::npos ? ConnectorType::sink
                                                                             : ConnectorType::source;
  }
  static int task_count(const Connector& c) {
    if (c.state == "STOPPED") return 0;
    auto it = c.config.find("tasks.max");
    return it == c.config.end() ? 1 : std::stoi(it->second);
  }
  static TaskState task_state(const std::string& name, int id, const Connector& c) {
    bool failed = c.config.count("fail.task") && std::stoi(c.config.at("fail.task")) == id;
    if (failed) return {id, {"FAILED", "127.0.0.1:8083", "java.lang.RuntimeException: boom in " + name}};
    return {id, {c.state, "127.0.0.1:8083", ""}};
  }
  // reader, SMT aliases, writer: a sink's consumer → SMTs → sink, a source's
  // poller → SMTs → producer.
  static std::vector<std::string> stage_names(const Connector& c) {
    bool sink = type(c) == ConnectorType::sink;
    std::vector<std::string> names{sink ? "consumer" : "poller"};
    auto it = c.config.find("transforms");
    std::string aliases = it == c.config.end() ? "" : it->second;
    for (size_t start = 0; start < aliases.size();) {
      size_t comma = std::min(aliases.find(',', start), aliases.size());
      if (comma > start) names.push_back(aliases.substr(start, comma - start));
      start = comma + 1;
    }
    names.push_back(sink ? "sink" : "producer");
    return names;
  }
  // Figures that tests can compute: per stage index i of task t, t+1 times a base.
  static TreeStage fake_stage(const std::string& name, size_t i, size_t last, bool sink, const TaskState& task) {
    bool reader = i == 0, writer = i == last;
    uint64_t t = static_cast<uint64_t>(task.id) + 1;
    TreeStage stage{name, reader ? (sink ? "sink_reader" : "source_reader")
                          : writer ? (sink ? "sink_writer" : "source_writer") : "transform", {}};
    StageStats& s = stage.stats;
    s.name = name;
    s.kind = reader ? (sink ? "consumer" : "file") : writer ? (sink ? "sink" : "producer") : "transform";
    s.state = task.state.state;
    s.records_in = s.records_out = 1000 * t;
    s.batches_in = 10 * t;
    s.bytes_in = 100'000 * t;
    s.cpu_ns = 2'000'000 * (i + 1);
    s.mailbox = i;
    s.capacity = s.out_capacity = {8, 1 << 20};
    s.held = {2, 2048};
    s.out_in_flight = {1, 1024};
    s.out_max_in_flight = {8, 8192};
    if (reader && sink) {
      s.lag = 42;
      s.partitions = 3;
      s.partition_lags = {{"orders", 0, 10}, {"orders", 1, 12}, {"orders", 2, 20}};
    }
    if (writer && task.state.state == "FAILED") {
      s.errors = 1;
      s.last_error = "boom";
    }
    stage.rates.records_in_per_sec = stage.rates.records_out_per_sec = 100.0 * static_cast<double>(t);
    stage.rates.bytes_in_per_sec = 10'000.0 * static_cast<double>(t);
    stage.rates.cpu_per_sec = 0.25 * static_cast<double>(i + 1);
    stage.rates.busy = 0.3 * static_cast<double>(i + 1);
    stage.rates.ns_per_record = 2000.0 * static_cast<double>(i + 1);
    if (!writer)
      stage.rates.credit_wait = 0.5;
    if (!reader)
      stage.upstream_wait = 0.5;
    return stage;
  }
  static TreeConnector tree_connector(const std::string& name, const Connector& c) {
    TreeConnector connector{name, type(c), {c.state, "127.0.0.1:8083", ""}, {}};
    connector.instance = TreeInstance{7, 1};
    connector.actor = 6;
    auto names = stage_names(c);
    for (int id = 0; id < task_count(c); ++id) {
      TaskState state = task_state(name, id, c);
      TreeTask task{id, state.state, {}};
      task.instance = TreeInstance{static_cast<uint64_t>(20 + id), 0};
      for (size_t i = 0; i < names.size(); ++i)
        task.stages.push_back(fake_stage(names[i], i, names.size() - 1, connector.type == ConnectorType::sink, state));
      // A running task's verdict names its writer.
      if (state.state.state == "RUNNING") {
        task.bottleneck_stage = names.back();
        task.bottleneck = "bottleneck: " + names.back() + " (fake)";
        task.poll_to_ack_p50 = 0.012;
        task.poll_to_ack_p99 = 0.04;
      }
      connector.tasks.push_back(std::move(task));
    }
    return connector;
  }
  static metrics::StageRole role_of(const std::string& role) {
    if (role == "sink_reader") return metrics::StageRole::sink_reader;
    if (role == "sink_writer") return metrics::StageRole::sink_writer;
    if (role == "source_reader") return metrics::StageRole::source_reader;
    if (role == "source_writer") return metrics::StageRole::source_writer;
    return metrics::StageRole::transform;
  }
  ConnectorInfo info(const std::string& name, const Connector& c) const {
    ConnectorInfo result{name, c.config, {}, type(c), provider_keys_};
    for (int i = 0; i < task_count(c); ++i) result.tasks.push_back({name, i});
    return result;
  }
  static ConfigKeyInfo file_key() {
    return {"file", "STRING", true, std::nullopt, "HIGH", "Destination filename.", std::nullopt, -1,
            "NONE", "file", {}};
  }

  std::mutex mutex_;
  std::map<std::string, Connector> connectors_;
  std::set<std::string> provider_keys_;
  std::vector<std::string> restarted_;
  std::map<std::string, LoggerLevel> loggers_{{"root", {"INFO", std::nullopt}}};
};

} // namespace weir::runtime::rest::test
