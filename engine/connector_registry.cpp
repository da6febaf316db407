#include "engine/connector_registry.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>

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
    .class_name = "org.apache.kafka.connect.file.FileStreamSinkConnector",
    .aliases = {"FileStreamSink", "FileStreamSinkConnector"},
    .version = WEIR_VERSION,
    .definition = file_sink_def,
    .validate = [](const StringMap& config) {
      return file_sink_def().validate(config, pipeline::plugin_passthrough());
    },
    .make_writer = [](const StringMap& config, const std::string&, int) -> std::unique_ptr<SinkWriter> {
      return std::make_unique<connectors::file::FileStreamSinkWriter>(
        file_sink_def().parse(config, pipeline::plugin_passthrough()));
    },
  };
}

/// Adapts a JDBC writer (SQLite's or PostgreSQL's) to the pipeline's SinkWriter interface.
template <class Writer>
class JdbcWriter : public SinkWriter {
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
    .class_name = "io.confluent.connect.jdbc.JdbcSinkConnector",
    .aliases = {"JdbcSinkConnector", "JdbcSink"},
    .version = WEIR_VERSION,
    .definition = connectors::jdbc::JdbcSinkConfig::definition,
    .validate = [](const StringMap& config) {
      return connectors::jdbc::JdbcSinkConfig::validate(config, pipeline::plugin_passthrough());
    },
    .make_writer = [](const StringMap& config, const std::string& connector, int task)
      -> std::unique_ptr<SinkWriter> {
      // Under errors.tolerance=none nothing past a rejected record may be committed:
      // the writer stops there (rows and offsets before it are kept).
      auto tolerance = config.find("errors.tolerance");
      bool tolerate = tolerance != config.end() && tolerance->second == "all";
      auto parsed = connectors::jdbc::JdbcSinkConfig::parse(config, pipeline::plugin_passthrough());
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
  return def_of<Define>().validate(config, pipeline::source_plugin_passthrough());
}

template <void (*Define)(ConfigDef&)>
Config parse_with(const StringMap& config) {
  return def_of<Define>().parse(config, pipeline::source_plugin_passthrough());
}

SourcePlugin file_stream_source() {
  return {
    .class_name = "org.apache.kafka.connect.file.FileStreamSourceConnector",
    .aliases = {"FileStreamSource", "FileStreamSourceConnector"},
    .version = WEIR_VERSION,
    .definition = def_of<connectors::file::define_file_stream_source>,
    .validate = validate_with<connectors::file::define_file_stream_source>,
    // One file, one reader: Kafka Connect's FileStreamSource has a single task.
    .task_configs = [](const StringMap& config, int) { return std::vector<StringMap>{config}; },
    .make_task = [](const StringMap& config, const std::string&, int)
      -> std::unique_ptr<connector_api::SourceTask> {
      return std::make_unique<connectors::file::FileStreamSourceTask>(
        parse_with<connectors::file::define_file_stream_source>(config));
    },
    .exactly_once = true, // its offset is the byte position after each line
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
    .class_name = "io.confluent.connect.jdbc.JdbcSourceConnector",
    .aliases = {"JdbcSourceConnector", "JdbcSource"},
    .version = WEIR_VERSION,
    .definition = def_of<connectors::jdbc::define_jdbc_source>,
    .validate = validate_with<connectors::jdbc::define_jdbc_source>,
    .task_configs = jdbc_task_configs,
    .make_task = [](const StringMap& config, const std::string&, int)
      -> std::unique_ptr<connector_api::SourceTask> {
      auto parsed = parse_with<connectors::jdbc::define_jdbc_source>(config);
      if (connectors::jdbc::is_postgres_source(parsed))
        return std::make_unique<connectors::jdbc::PostgresSourceTask>(parsed);
      return std::make_unique<connectors::jdbc::JdbcSourceTask>(parsed);
    },
    // Only with a strictly increasing column does an offset name one row exactly;
    // Kafka Connect's JDBC source does not declare exactly-once support either.
    .exactly_once = false,
  };
}

SourcePlugin postgres_cdc_source() {
  return {
    .class_name = "io.debezium.connector.postgresql.PostgresConnector",
    .aliases = {"PostgresConnector", "PostgresCdc"},
    .version = WEIR_VERSION,
    .definition = def_of<connectors::postgres_cdc::define_postgres_cdc>,
    .validate = validate_with<connectors::postgres_cdc::define_postgres_cdc>,
    // One slot, one reader: Debezium's PostgreSQL connector has a single task.
    .task_configs = [](const StringMap& config, int) { return std::vector<StringMap>{config}; },
    .make_task = [](const StringMap& config, const std::string& connector, int)
      -> std::unique_ptr<connector_api::SourceTask> {
      return std::make_unique<connectors::postgres_cdc::PostgresCdcTask>(
        parse_with<connectors::postgres_cdc::define_postgres_cdc>(config), connector);
    },
    // An offset names the last transaction emitted whole and the last event of the
    // one after it; an interrupted snapshot is read again (docs/postgres-cdc.md).
    .exactly_once = true,
  };
}

/// The entry `name` resolves to, by class name or alias.
template <class Plugins>
auto find_in(const Plugins& plugins, std::string_view name) noexcept -> const typename Plugins::value_type* {
  for (const auto& p : plugins)
    if (p.class_name == name || std::find(p.aliases.begin(), p.aliases.end(), name) != p.aliases.end())
      return &p;
  return nullptr;
}

struct Registry {
  std::deque<SinkPlugin> sinks;
  std::deque<SourcePlugin> sources;

  /// Throws std::invalid_argument when one of `p`'s names already resolves.
  template <class Plugin>
  void check_names(const Plugin& p) const {
    if (p.class_name.empty())
      throw std::invalid_argument("a connector class needs a name");
    std::vector<std::string_view> names{p.class_name};
    names.insert(names.end(), p.aliases.begin(), p.aliases.end());
    for (auto name : names)
      if (find_in(sinks, name) || find_in(sources, name))
        throw std::invalid_argument("connector class " + std::string{name} + " is already registered");
  }
  void add(SinkPlugin p) {
    check_names(p);
    sinks.push_back(std::move(p));
  }
  void add(SourcePlugin p) {
    check_names(p);
    sources.push_back(std::move(p));
  }
};

/// The built-ins written against the runtime's connector_api.
Registry& table() {
  static Registry r = [] {
    Registry builtins;
    builtins.add(file_stream_sink());
    builtins.add(jdbc_sink());
    builtins.add(file_stream_source());
    builtins.add(jdbc_source());
    builtins.add(postgres_cdc_source());
    return builtins;
  }();
  return r;
}

/// The table, with the built-ins written against the SDK registered once through the
/// plugin loader's registrar. That registration reads and adds to the table itself,
/// so on its own thread it sees the table as it is instead of waiting for itself.
Registry& registry() {
  static std::once_flag sdk_builtins;
  static thread_local bool registering = false;
  if (!registering)
    std::call_once(sdk_builtins, [] {
      registering = true;
      struct Done {
        ~Done() { registering = false; }
      } done;
      plugins::register_builtin(connectors::datagen::register_datagen, "datagen");
    });
  return table();
}

} // namespace

void add_sink(SinkPlugin sink) { registry().add(std::move(sink)); }
void add_source(SourcePlugin source) { registry().add(std::move(source)); }

const std::deque<SinkPlugin>& sink_plugins() { return registry().sinks; }
const std::deque<SourcePlugin>& source_plugins() { return registry().sources; }

const SinkPlugin* find_sink(std::string_view name) noexcept { return find_in(registry().sinks, name); }
const SourcePlugin* find_source(std::string_view name) noexcept { return find_in(registry().sources, name); }

} // namespace weir::engine
