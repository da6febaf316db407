#include "connectors/file/file_stream_sink.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "runtime/convert/json_text.hpp"

namespace weir::connectors::file {

namespace {

/// Batches larger than this are written in several pieces, each ending on a line.
constexpr std::size_t max_write = 4 << 20;

} // namespace

void define_file_stream_sink(ConfigDef& def) {
  def.define("file", ConfigType::String, "", Importance::High,
             "Destination filename. If not specified, the standard output will be used");
}

FileStreamSinkWriter::FileStreamSinkWriter(const Config& config)
  : path_(config.get_string("file")) {
  fd_ = path_.empty() ? STDOUT_FILENO
                      : ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw std::runtime_error("Couldn't find or create file '" + path_
                             + "' for FileStreamSinkTask: " + std::strerror(errno));
}

FileStreamSinkWriter::~FileStreamSinkWriter() {
  if (fd_ > STDERR_FILENO)
    ::close(fd_);
}

void FileStreamSinkWriter::write(runtime::data::DecodedBatch& batch) {
  lines_.clear();
  for (auto& r : batch.records()) {
    if (!r.live())
      continue;
    if (lines_.size() >= max_write) {
      append(lines_.view());
      lines_.clear();
    }
    runtime::convert::append_java_to_string(r.value, r.value_schema, lines_);
    lines_ += '\n';
  }
  append(lines_.view());
}

void FileStreamSinkWriter::append(std::string_view text) {
  // A regular file takes the whole buffer in one write; the loop covers pipes and
  // terminals (standard output), where short writes are possible.
  while (!text.empty()) {
    auto n = ::write(fd_, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      throw std::runtime_error("cannot write to " + (path_.empty() ? "standard output" : path_)
                               + ": " + std::strerror(errno));
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

} // namespace weir::connectors::file
