// Writes record values to a file, one per line: the core of FileStreamSink.
#pragma once

#include <cstdio>
#include <string>

#include "runtime/stage_logic.hpp"

namespace weir::connectors::file {

/// Appends each record's value and a newline to `path`. A batch is durable when
/// process() returns: it is flushed to the operating system (and fsync'ed when
/// `sync` is set), so a crash of weir loses nothing that was acknowledged.
class FileSinkWriter : public runtime::StageLogic {
public:
  explicit FileSinkWriter(std::string path, bool sync = false);
  ~FileSinkWriter() override;
  FileSinkWriter(const FileSinkWriter&) = delete;
  FileSinkWriter& operator=(const FileSinkWriter&) = delete;

  void process(Batch& batch) override;
  std::string_view kind() const noexcept override { return "sink"; }

  const std::string& path() const noexcept { return path_; }

private:
  std::string path_;
  bool sync_;
  std::FILE* file_ = nullptr;
};

} // namespace weir::connectors::file
