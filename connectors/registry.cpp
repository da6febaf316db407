#include "connectors/registry.hpp"

#include "connectors/file/file_stream_sink.hpp"
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

} // namespace

const std::vector<SinkPlugin>& sink_plugins() {
  static const std::vector<SinkPlugin> all{file_stream_sink()};
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
