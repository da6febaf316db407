#include "engine/connector_registry.hpp"

#include <algorithm>
#include <mutex>

#include "connectors/datagen/datagen.hpp"
#include "connectors/file/file_stream_sink.hpp"
#include "connectors/file/file_stream_source.hpp"
#include "connectors/jdbc/jdbc_sink_config.hpp"
#include "connectors/jdbc/jdbc_source.hpp"
#include "connectors/jdbc/postgres_source.hpp"
#include "connectors/jdbc/postgres_sink_writer.hpp"
#include "connectors/jdbc/sqlite_sink_writer.hpp"
#include "connectors/postgres_cdc/cdc_config.hpp"
#include "connectors/postgres_cdc/cdc_task.hpp"
#include "engine/pipeline/connector_config.hpp"
#include "engine/pipeline/source_config.hpp"
#include "engine/plugins/loader.hpp"
#include "engine/plugins/sink_adapter.hpp"
#include "engine/plugins/source_adapter.hpp"

namespace weir::engine {

namespace {

const ConfigDef& file_sink_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    connectors::file::define_file_stream_sink(d);
    return d;
  }();
  return def;
}

SinkPlugin file_stream_sink() {
  return {
    "org.apache.kafka.connect.file.FileStreamSinkConnector",
    {"FileStreamSink", "FileStreamSinkConnector"},
    WEIR_VERSION,
    file_sink_def,
    [](const std::map<std::string, std::string>& config) {
      return file_sink_def().validate(config, engine::pipeline::plugin_passthrough());
    },
    [](const std::map<std::string, std::string>& config, const std::string&, int)
      -> std::unique_ptr<runtime::connector_api::SinkWriter> {
      return std::make_unique<connectors::file::FileStreamSinkWriter>(
        file_sink_def().parse(config, engine::pipeline::plugin_passthrough()));
    },
  };
}

/// Adapts a JDBC writer (SQLite's or PostgreSQL's) to the pipeline's SinkWriter interface.
template <class Writer>
class JdbcWriter : public runtime::connector_api::SinkWriter {
public:
  JdbcWriter(connectors::jdbc::JdbcSinkConfig config, const std::string& connector, int task,
             connectors::jdbc::JdbcSinkWriter::OnRecordError on_error)
    : writer_(std::move(config), connector, task, on_error) {}
  void write(runtime::data::DecodedBatch& batch) override { writer_.write(batch); }
  std::vector<runtime::kafka::TopicPartitionOffset> stored_offsets() override {
    return writer_.stored_offsets();
  }
  bool exactly_once() const noexcept override { return true; }

private:
  Writer writer_;
};

SinkPlugin jdbc_sink() {
  return {
    "io.confluent.connect.jdbc.JdbcSinkConnector",
    {"JdbcSinkConnector", "JdbcSink"},
    WEIR_VERSION,
    connectors::jdbc::JdbcSinkConfig::definition,
    [](const std::map<std::string, std::string>& config) {
      return connectors::jdbc::JdbcSinkConfig::validate(config, engine::pipeline::plugin_passthrough());
    },
    [](const std::map<std::string, std::string>& config, const std::string& connector, int task)
      -> std::unique_ptr<runtime::connector_api::SinkWriter> {
      // Under errors.tolerance=none nothing past a rejected record may be committed:
      // the writer stops there (rows and offsets before it are kept).
      auto tolerance = config.find("errors.tolerance");
      bool tolerate = tolerance != config.end() && tolerance->second == "all";
      auto parsed = connectors::jdbc::JdbcSinkConfig::parse(config, engine::pipeline::plugin_passthrough());
      auto on_error = tolerate ? connectors::jdbc::JdbcSinkWriter::OnRecordError::Continue
                               : connectors::jdbc::JdbcSinkWriter::OnRecordError::Stop;
      if (parsed.dialect == connectors::jdbc::Dialect::Postgres)
        return std::make_unique<JdbcWriter<connectors::jdbc::PostgresSinkWriter>>(std::move(parsed), connector,
                                                                     task, on_error);
      return std::make_unique<JdbcWriter<connectors::jdbc::JdbcSinkWriter>>(std::move(parsed), connector, task,
                                                               on_error);
    },
  };
}

/// A definition built once from a `define_*` function.
template <void (*Define)(ConfigDef&)>
const ConfigDef& def_of() {
  static const ConfigDef def = [] {
    ConfigDef d;
    Define(d);
    return d;
  }();
  return def;
}

template <void (*Define)(ConfigDef&)>
std::vector<ConfigIssue> validate_with(const StringMap& config) {
  return def_of<Define>().validate(config, engine::pipeline::source_plugin_passthrough());
}

template <void (*Define)(ConfigDef&)>
Config parse_with(const StringMap& config) {
  return def_of<Define>().parse(config, engine::pipeline::source_plugin_passthrough());
}

SourcePlugin file_stream_source() {
  return {
    "org.apache.kafka.connect.file.FileStreamSourceConnector",
    {"FileStreamSource", "FileStreamSourceConnector"},
    WEIR_VERSION,
    def_of<connectors::file::define_file_stream_source>,
    validate_with<connectors::file::define_file_stream_source>,
    // One file, one reader: Kafka Connect's FileStreamSource has a single task.
    [](const StringMap& config, int) { return std::vector<StringMap>{config}; },
    [](const StringMap& config, const std::string&, int)
      -> std::unique_ptr<runtime::connector_api::SourceTask> {
      return std::make_unique<connectors::file::FileStreamSourceTask>(
        parse_with<connectors::file::define_file_stream_source>(config));
    },
    true, // its offset is the byte position after each line
  };
}

SourcePlugin datagen_source() {
  return {
    "io.confluent.kafka.connect.datagen.DatagenConnector",
    {"DatagenConnector", "Datagen"},
    WEIR_VERSION,
    def_of<connectors::datagen::define_datagen>,
    validate_with<connectors::datagen::define_datagen>,
    // Every task generates its own `iterations` records, as Confluent's does.
    [](const StringMap& config, int max_tasks) {
      return std::vector<StringMap>(static_cast<size_t>(max_tasks), config);
    },
    [](const StringMap& config, const std::string&, int task)
      -> std::unique_ptr<runtime::connector_api::SourceTask> {
      return std::make_unique<connectors::datagen::DatagenTask>(parse_with<connectors::datagen::define_datagen>(config),
                                                    task);
    },
    true, // record n of a task is a function of the seed and n
  };
}

/// Tables are split over tasks in contiguous groups, as Confluent's connector does
/// (ConnectorUtils.groupPartitions): with 5 tables and 2 tasks, 3 then 2. A custom
/// query runs in one task. Tasks beyond the table count are started idle, with the
/// reason in their status, as sink tasks without a partition are.
std::vector<StringMap> jdbc_task_configs(const StringMap& config, int max_tasks) {
  std::vector<std::string> tables;
  try {
    auto parsed = parse_with<connectors::jdbc::define_jdbc_source>(config);
    if (!parsed.get_string("query").empty())
      return {config};
    tables = connectors::jdbc::select_tables(parsed);
  } catch (const std::exception&) {
    return {config}; // one task, whose start reports the problem in its status
  }
  size_t tasks = static_cast<size_t>(std::max(1, max_tasks));
  size_t n = std::min(tables.size(), tasks);
  std::vector<StringMap> out(tasks, config);
  size_t per = n ? tables.size() / n : 0, extra = n ? tables.size() % n : 0, next = 0;
  for (size_t i = 0; i < tasks; ++i) {
    std::string list;
    for (size_t k = 0; i < n && k < per + (i < extra ? 1 : 0); ++k)
      list += (list.empty() ? "" : ",") + tables[next++];
    out[i]["tables"] = list;
    if (i >= n)
      out[i]["task.idle.reason"] = tables.empty()
        ? std::string{"no table to copy (none matches table.whitelist / table.blacklist)"}
        : "no table to copy (tasks.max=" + std::to_string(tasks) + " but the connector copies "
            + std::to_string(tables.size()) + " table(s))";
  }
  return out;
}

SourcePlugin jdbc_source() {
  return {
    "io.confluent.connect.jdbc.JdbcSourceConnector",
    {"JdbcSourceConnector", "JdbcSource"},
    WEIR_VERSION,
    def_of<connectors::jdbc::define_jdbc_source>,
    validate_with<connectors::jdbc::define_jdbc_source>,
    jdbc_task_configs,
    [](const StringMap& config, const std::string&, int)
      -> std::unique_ptr<runtime::connector_api::SourceTask> {
      auto parsed = parse_with<connectors::jdbc::define_jdbc_source>(config);
      if (connectors::jdbc::is_postgres_source(parsed))
        return std::make_unique<connectors::jdbc::PostgresSourceTask>(parsed);
      return std::make_unique<connectors::jdbc::JdbcSourceTask>(parsed);
    },
    // Only with a strictly increasing column does an offset name one row exactly;
    // Kafka Connect's JDBC source does not declare exactly-once support either.
    false,
  };
}

SourcePlugin postgres_cdc_source() {
  return {
    "io.debezium.connector.postgresql.PostgresConnector",
    {"PostgresConnector", "PostgresCdc"},
    WEIR_VERSION,
    def_of<connectors::postgres_cdc::define_postgres_cdc>,
    validate_with<connectors::postgres_cdc::define_postgres_cdc>,
    // One slot, one reader: Debezium's PostgreSQL connector has a single task.
    [](const StringMap& config, int) { return std::vector<StringMap>{config}; },
    [](const StringMap& config, const std::string& connector, int)
      -> std::unique_ptr<runtime::connector_api::SourceTask> {
      return std::make_unique<connectors::postgres_cdc::PostgresCdcTask>(
        parse_with<connectors::postgres_cdc::define_postgres_cdc>(config), connector);
    },
    // An offset names the last transaction emitted whole and the last event of the
    // one after it; an interrupted snapshot is read again (docs/postgres-cdc.md).
    true,
  };
}

/// By class name or alias.
template <class Plugins>
auto find_plugin(const Plugins& plugins, std::string_view name) noexcept
  -> const typename Plugins::value_type* {
  for (const auto& p : plugins) {
    if (p.class_name == name)
      return &p;
    for (auto a : p.aliases)
      if (a == name)
        return &p;
  }
  return nullptr;
}

} // namespace

namespace {

/// A loaded plugin's sink as a registry entry; `sink` lives in the loader's deque.
SinkPlugin plugin_sink(const plugins::LoadedSink& sink) {
  SinkPlugin p;
  p.class_name = sink.descriptor.class_name;
  for (const auto& a : sink.descriptor.aliases)
    p.aliases.push_back(a);
  p.version = sink.descriptor.version;
  p.definition = [&sink]() -> const ConfigDef& { return sink.definition; };
  p.validate = [&sink](const std::map<std::string, std::string>& config) {
    return sink.definition.validate(config, engine::pipeline::plugin_passthrough());
  };
  p.make_writer = [&sink](const std::map<std::string, std::string>& config,
                          const std::string& connector, int task)
    -> std::unique_ptr<runtime::connector_api::SinkWriter> {
    return plugins::make_sink_writer(sink, config, connector, task);
  };
  return p;
}

/// A loaded plugin's source as a registry entry; `source` lives in the loader's deque.
SourcePlugin plugin_source(const plugins::LoadedSource& source) {
  SourcePlugin p;
  p.class_name = source.descriptor.class_name;
  for (const auto& a : source.descriptor.aliases)
    p.aliases.push_back(a);
  p.version = source.descriptor.version;
  p.definition = [&source]() -> const ConfigDef& { return source.definition; };
  p.validate = [&source](const StringMap& config) {
    return source.definition.validate(config, engine::pipeline::source_plugin_passthrough());
  };
  p.task_configs = [&source](const StringMap& config, int max_tasks) {
    auto parsed = source.definition.parse(config, engine::pipeline::source_plugin_passthrough());
    auto connector = source.descriptor.make_connector();
    if (!connector)
      throw std::runtime_error("source " + source.descriptor.class_name + " (" + source.path
                               + "): its connector factory returned no SourceConnector");
    auto own = connector->task_configs(parsed, max_tasks);
    if (own.empty() || own.size() > static_cast<size_t>(std::max(1, max_tasks)))
      throw std::runtime_error("source " + source.descriptor.class_name + " returned "
                               + std::to_string(own.size()) + " task configs for tasks.max="
                               + std::to_string(max_tasks) + " (it must return 1 to tasks.max)");
    std::vector<StringMap> out;
    out.reserve(own.size());
    for (auto& task : own) {
      StringMap merged = config;
      for (auto& [key, value] : task)
        merged[key] = std::move(value);
      out.push_back(std::move(merged));
    }
    return out;
  };
  p.make_task = [&source](const StringMap& config, const std::string& connector, int task)
    -> std::unique_ptr<runtime::connector_api::SourceTask> {
    return std::make_unique<plugins::SourceAdapter>(source, config, connector, task);
  };
  p.exactly_once = source.descriptor.exactly_once == ExactlyOnce::Supported;
  return p;
}

bool builtin_name(std::string_view name) {
  for (const auto& p : sink_plugins())
    if (p.class_name == name || std::find(p.aliases.begin(), p.aliases.end(), name) != p.aliases.end())
      return true;
  return find_source(name) != nullptr;
}

} // namespace

const std::deque<SourcePlugin>& source_plugins() {
  static std::deque<SourcePlugin> all{file_stream_source(), datagen_source(), jdbc_source(),
                                      postgres_cdc_source()};
  // As sink_plugins(): plugin entries are appended as the loader adds them.
  static size_t builtins = all.size();
  static std::mutex sync;
  std::lock_guard lock{sync};
  const auto& loaded = plugins::loaded_sources();
  while (all.size() - builtins < loaded.size())
    all.push_back(plugin_source(loaded[all.size() - builtins]));
  return all;
}

const SourcePlugin* find_source(std::string_view name) noexcept {
  return find_plugin(source_plugins(), name);
}

const std::deque<SinkPlugin>& sink_plugins() {
  static std::deque<SinkPlugin> all{file_stream_sink(), jdbc_sink()};
  // Plugins load at start-up, before connectors are looked up; entries are appended
  // as they appear, and a deque never moves the ones already there.
  static size_t builtins = all.size();
  static std::mutex sync; // readers (REST, task start-up) may come from several threads
  std::lock_guard lock{sync};
  const auto& loaded = plugins::loaded_sinks();
  while (all.size() - builtins < loaded.size())
    all.push_back(plugin_sink(loaded[all.size() - builtins]));
  return all;
}

size_t load_plugins(const std::vector<std::string>& plugin_path) {
  return plugins::load_plugins(plugin_path, builtin_name);
}

const SinkPlugin* find_sink(std::string_view name) noexcept {
  return find_plugin(sink_plugins(), name);
}

} // namespace weir::engine
