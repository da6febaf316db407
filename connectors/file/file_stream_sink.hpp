// FileStreamSink (org.apache.kafka.connect.file.FileStreamSinkConnector): one line
// per record, the value as Kafka Connect prints it (Java's toString of the Connect
// value: strings as they are, maps as {k=v}, structs as Struct{...}, null as "null").
//
// Several tasks may append to the same file. Each batch is rendered into one buffer
// of whole lines and handed to the kernel with O_APPEND writes under an exclusive
// flock, so lines from different tasks never interleave mid-line.
//
// A write that fails part way (a full disk) is cut back, under the lock, to the size
// the file had before it, so a retry of the batch (errors.retry.timeout) does not
// fuse a torn line with its first line. A crash in the middle of a write still
// leaves a torn last line, whose record is delivered again since its offset was not
// committed: opening a regular file that does not end with a newline therefore
// truncates it to its last whole line (Kafka Connect's sink would fuse them). The
// lock keeps this from cutting a line another task is writing.
#pragma once

#include <string>
#include <string_view>

#include "runtime/convert/json_text.hpp"
#include "runtime/connector_api/sink_writer.hpp"
#include "weir/config.hpp"

namespace weir::connectors::file {

/// Declares `file` (empty: standard output, as Kafka Connect).
void define_file_stream_sink(ConfigDef& def);

class FileStreamSinkWriter : public runtime::connector_api::SinkWriter {
public:
  explicit FileStreamSinkWriter(const Config& config);
  ~FileStreamSinkWriter() override;
  FileStreamSinkWriter(const FileStreamSinkWriter&) = delete;
  FileStreamSinkWriter& operator=(const FileStreamSinkWriter&) = delete;

  /// Appends the batch's lines and hands them to the operating system before
  /// returning (the data is in the page cache, as Kafka Connect's flush).
  void write(runtime::data::DecodedBatch& batch) override;

private:
  void append(std::string_view text);
  void drop_torn_tail();

  std::string path_;
  int fd_ = -1;
  runtime::convert::JsonBuffer lines_; // the batch's lines; capacity reused across batches
};

} // namespace weir::connectors::file
