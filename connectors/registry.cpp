#include "connectors/registry.hpp"

#include "connectors/file/file_stream_sink.hpp"
#include "connectors/jdbc/jdbc_sink_config.hpp"
#include "connectors/jdbc/sqlite_sink_writer.hpp"
#include "runtime/pipeline/connector_config.hpp"

namespace weir::connectors {

namespace {

const ConfigDef& file_sink_def() {
  static const ConfigDef def = [] {
    ConfigDef d;
    file::define_file_stream_sink(d);
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
      return file_sink_def().validate(config, runtime::pipeline::plugin_passthrough());
    },
    [](const std::map<std::string, std::string>& config, const std::string&, int)
      -> std::unique_ptr<runtime::pipeline::SinkWriter> {
      return std::make_unique<file::FileStreamSinkWriter>(
        file_sink_def().parse(config, runtime::pipeline::plugin_passthrough()));
    },
  };
}

/// Adapts the JDBC writer to the pipeline's SinkWriter interface.
class JdbcWriter : public runtime::pipeline::SinkWriter {
public:
  JdbcWriter(jdbc::JdbcSinkConfig config, const std::string& connector, int task,
             jdbc::JdbcSinkWriter::OnRecordError on_error)
    : writer_(std::move(config), connector, task, on_error) {}
  void write(runtime::data::DecodedBatch& batch) override { writer_.write(batch); }
  std::vector<runtime::kafka::TopicPartitionOffset> stored_offsets() override {
    return writer_.stored_offsets();
  }

private:
  jdbc::JdbcSinkWriter writer_;
};

SinkPlugin jdbc_sink() {
  return {
    "io.confluent.connect.jdbc.JdbcSinkConnector",
    {"JdbcSinkConnector", "JdbcSink"},
    WEIR_VERSION,
    jdbc::JdbcSinkConfig::definition,
    [](const std::map<std::string, std::string>& config) {
      return jdbc::JdbcSinkConfig::validate(config, runtime::pipeline::plugin_passthrough());
    },
    [](const std::map<std::string, std::string>& config, const std::string& connector, int task)
      -> std::unique_ptr<runtime::pipeline::SinkWriter> {
      // Under errors.tolerance=none nothing past a rejected record may be committed:
      // the writer stops there (rows and offsets before it are kept).
      auto tolerance = config.find("errors.tolerance");
      bool tolerate = tolerance != config.end() && tolerance->second == "all";
      return std::make_unique<JdbcWriter>(
        jdbc::JdbcSinkConfig::parse(config, runtime::pipeline::plugin_passthrough()), connector,
        task,
        tolerate ? jdbc::JdbcSinkWriter::OnRecordError::Continue
                 : jdbc::JdbcSinkWriter::OnRecordError::Stop);
    },
  };
}

} // namespace

const std::vector<SinkPlugin>& sink_plugins() {
  static const std::vector<SinkPlugin> all{file_stream_sink(), jdbc_sink()};
  return all;
}

const SinkPlugin* find_sink(std::string_view name) noexcept {
  for (const auto& p : sink_plugins()) {
    if (p.class_name == name)
      return &p;
    for (auto a : p.aliases)
      if (a == name)
        return &p;
  }
  return nullptr;
}

} // namespace weir::connectors
