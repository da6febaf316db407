// FileStreamSource (org.apache.kafka.connect.file.FileStreamSourceConnector): each
// line of a file becomes a record, value a STRING, key null, in file order.
//
// Kafka Connect's offsets: partition {"filename": F}, offset {"position": N}, N the
// byte offset after the last line sent, so a restart resumes at the next line.
// It follows the file like `tail -F`: appends are read as they come; a file that
// is truncated, or replaced by a new one (rotation), is read again from its start
// (the old one to its end first). A missing file is waited for, as Kafka Connect
// does; a file that exists but cannot be read fails the task, naming it.
//
// Lines end at '\n' ("\r\n" loses its '\r'); a last line without one is held until
// it is completed. Reading goes through one buffer of whole chunks, and each line is
// copied once, into the batch: no allocation per line.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "runtime/connector_api/source_task.hpp"
#include "weir/config.hpp"

namespace weir::connectors::file {

/// Declares `file` (empty: standard input), `topic`, `batch.size`.
void define_file_stream_source(ConfigDef& def);

class FileStreamSourceTask : public runtime::connector_api::SourceTask {
public:
  explicit FileStreamSourceTask(const Config& config);
  ~FileStreamSourceTask() override;
  FileStreamSourceTask(const FileStreamSourceTask&) = delete;
  FileStreamSourceTask& operator=(const FileStreamSourceTask&) = delete;

  void start(const runtime::connector_api::OffsetMap& stored) override;
  Status poll(runtime::connector_api::SourceRecords& out) override;
  runtime::connector_api::Form value_form() const noexcept override {
    return runtime::connector_api::Form::String;
  }
  std::string_view kind() const noexcept override { return "file"; }

  /// {"filename":F}: the source partition of file F.
  static std::string partition_of(const std::string& filename);
  /// N of {"position":N}; throws std::runtime_error naming `text` when malformed.
  static uint64_t parse_position(std::string_view text);

  /// Byte offset after the last line handed out.
  uint64_t position() const noexcept { return position_; }

private:
  bool open_file();
  void close_file();
  /// At the end of the data: reopens a replaced file, rewinds a truncated one.
  void check_rotation();
  /// Reads more bytes into the buffer; false at the end of the data for now.
  bool read_more();

  std::string path_;
  std::string topic_;
  std::string partition_;
  size_t batch_size_;
  int fd_ = -1;
  dev_t dev_ = 0;
  ino_t inode_ = 0;
  uint64_t position_ = 0; ///< file offset of buffer_[begin_]
  uint64_t resume_at_ = 0;
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;
  std::string offset_text_;
  bool warned_missing_ = false;
};

} // namespace weir::connectors::file
