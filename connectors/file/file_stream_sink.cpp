#include "connectors/file/file_stream_sink.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "runtime/convert/json_text.hpp"

namespace weir::connectors::file {

namespace {

/// Batches larger than this are written in several pieces, each ending on a line.
constexpr std::size_t max_write = 4 << 20;

/// Holds an exclusive flock on a file for a scope (a no-op for standard output).
class FileLock {
public:
  explicit FileLock(int fd) : fd_(fd > STDERR_FILENO ? fd : -1) {
    while (fd_ >= 0 && ::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {}
  }
  ~FileLock() {
    if (fd_ >= 0) ::flock(fd_, LOCK_UN);
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

private:
  int fd_;
};

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
  try {
    drop_torn_tail();
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

void FileStreamSinkWriter::drop_torn_tail() {
  struct stat st {};
  if (path_.empty() || ::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
    return;
  FileLock lock{fd_};
  auto fail = [&](const char* doing) {
    throw std::runtime_error("cannot " + std::string{doing} + " " + path_
                             + " to drop its torn last line: " + std::strerror(errno));
  };
  int reader = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (reader < 0) fail("read");
  // Read backwards from the end, a block at a time, to the last newline.
  off_t size = ::lseek(reader, 0, SEEK_END);
  off_t keep = 0;
  char block[4096];
  for (off_t end = size; end > 0 && keep == 0;) {
    off_t start = end > static_cast<off_t>(sizeof block) ? end - static_cast<off_t>(sizeof block) : 0;
    auto n = ::pread(reader, block, static_cast<std::size_t>(end - start), start);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(reader);
      fail("read");
    }
    for (auto i = n; i > 0; --i)
      if (block[i - 1] == '\n') {
        keep = start + i;
        break;
      }
    end = start;
  }
  ::close(reader);
  if (keep == size) return;
  if (::ftruncate(fd_, keep) != 0) fail("truncate");
  spdlog::warn("FileStreamSink: {} ended in a torn line ({} bytes, from a write that failed); "
               "dropped it, its record is delivered again", path_, size - keep);
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
  // A regular file takes the whole buffer in one write unless it runs out of room;
  // the loop covers that and pipes and terminals (standard output), where short
  // writes are possible.
  FileLock lock{fd_};
  struct stat st {};
  // Under the lock no other task appends, so the file's size is where this write
  // begins: a write that fails is cut back to it.
  const off_t start = fd_ > STDERR_FILENO && ::fstat(fd_, &st) == 0 && S_ISREG(st.st_mode) ? st.st_size : -1;
  while (!text.empty()) {
    auto n = ::write(fd_, text.data(), text.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      const int error = errno;
      // A retry (errors.retry.timeout) writes the whole buffer again: a torn line
      // left here would be fused with its first line.
      if (start >= 0 && ::ftruncate(fd_, start) != 0)
        spdlog::warn("FileStreamSink: cannot cut {} back to {} bytes after a failed write: {}", path_, start,
                     std::strerror(errno));
      throw std::runtime_error("cannot write to " + (path_.empty() ? "standard output" : path_)
                               + ": " + std::strerror(error));
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

} // namespace weir::connectors::file
