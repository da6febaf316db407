#include "connectors/file/file_sink_writer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

namespace weir::connectors::file {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

} // namespace

FileSinkWriter::FileSinkWriter(std::string path, bool sync) : path_(std::move(path)), sync_(sync) {
  file_ = std::fopen(path_.c_str(), "a");
  if (!file_)
    fail("cannot open", path_);
  // Records are written in large chunks; a big stdio buffer saves syscalls.
  std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
}

FileSinkWriter::~FileSinkWriter() {
  if (file_)
    std::fclose(file_);
}

void FileSinkWriter::process(Batch& batch) {
  for (const auto& r : batch.records()) {
    // Kafka Connect prints a null value as "null".
    auto value = r.value.is_null() ? std::string_view{"null"} : batch.bytes(r.value);
    if (std::fwrite(value.data(), 1, value.size(), file_) != value.size()
        || std::fputc('\n', file_) == EOF)
      fail("cannot write to", path_);
  }
  if (std::fflush(file_) != 0)
    fail("cannot flush", path_);
  if (sync_ && ::fsync(fileno(file_)) != 0)
    fail("cannot fsync", path_);
}

} // namespace weir::connectors::file
