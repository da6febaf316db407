#include "connectors/file/file_stream_sink.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "runtime/convert/json_text.hpp"

namespace weir::connectors::file {

void define_file_stream_sink(ConfigDef& def) {
  def.define("file", ConfigType::String, "", Importance::High,
             "Destination filename. If not specified, the standard output will be used");
}

FileStreamSinkWriter::FileStreamSinkWriter(const Config& config)
  : path_(config.get_string("file")) {
  file_ = path_.empty() ? stdout : std::fopen(path_.c_str(), "a");
  if (!file_)
    throw std::runtime_error("Couldn't find or create file '" + path_
                             + "' for FileStreamSinkTask: " + std::strerror(errno));
  if (file_ != stdout)
    std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
}

FileStreamSinkWriter::~FileStreamSinkWriter() {
  if (file_ && file_ != stdout)
    std::fclose(file_);
}

void FileStreamSinkWriter::write(runtime::data::DecodedBatch& batch) {
  for (auto& r : batch.records()) {
    if (!r.live())
      continue;
    line_.clear();
    if (r.value.is_null())
      line_ = "null";
    else
      runtime::convert::append_java_to_string(r.value, r.value_schema, line_);
    line_ += '\n';
    if (std::fwrite(line_.data(), 1, line_.size(), file_) != line_.size())
      throw std::runtime_error("cannot write to " + path_ + ": " + std::strerror(errno));
  }
  if (std::fflush(file_) != 0)
    throw std::runtime_error("cannot flush " + path_ + ": " + std::strerror(errno));
}

} // namespace weir::connectors::file
