// FileStreamSink (org.apache.kafka.connect.file.FileStreamSinkConnector): one line
// per record, the value as Kafka Connect prints it (Java's toString of the Connect
// value: strings as they are, maps as {k=v}, structs as Struct{...}, null as "null").
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "runtime/pipeline/sink_pipeline.hpp"
#include "weir/config.hpp"

namespace weir::connectors::file {

/// Declares `file` (empty: standard output, as Kafka Connect).
void define_file_stream_sink(ConfigDef& def);

class FileStreamSinkWriter : public runtime::pipeline::SinkWriter {
public:
  explicit FileStreamSinkWriter(const Config& config);
  ~FileStreamSinkWriter() override;
  FileStreamSinkWriter(const FileStreamSinkWriter&) = delete;
  FileStreamSinkWriter& operator=(const FileStreamSinkWriter&) = delete;

  /// Appends the batch and flushes it to the operating system before returning.
  void write(runtime::data::DecodedBatch& batch) override;

private:
  std::string path_;
  std::FILE* file_ = nullptr;
  std::string line_; // reused for every record
};

} // namespace weir::connectors::file
