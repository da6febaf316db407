#include "connectors/file/file_stream_source.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "runtime/convert/json_text.hpp"

namespace weir::connectors::file {

namespace {

constexpr size_t chunk = 1 << 20; // read size; the buffer grows for longer lines
constexpr size_t max_line = 64u << 20;

std::runtime_error read_error(const std::string& path, int err) {
  return std::runtime_error("FileStreamSource: cannot read file '" + path + "': "
                            + std::strerror(err));
}

} // namespace

void define_file_stream_source(ConfigDef& def) {
  def.define("file", ConfigType::String, "", Importance::High,
             "Source filename. If not specified, the standard input will be used");
  def.define("topic", ConfigType::String, Importance::High, "The topic to publish data to",
             [](const ConfigValue& v) -> std::optional<std::string> {
               const auto& t = std::get<std::string>(v);
               if (t.empty())
                 return "String must be non-empty";
               if (t.find(',') != std::string::npos)
                 return "FileStreamSourceConnector supports only one topic";
               return std::nullopt;
             });
  def.define("batch.size", ConfigType::Int, "2000", Importance::Low,
             "The maximum number of records the source task can read from the file each "
             "time it is polled",
             validators::range(1, std::nullopt));
}

std::string FileStreamSourceTask::partition_of(const std::string& filename) {
  std::string p = "{\"filename\":";
  runtime::convert::append_json_string(filename, p);
  p += '}';
  return p;
}

uint64_t FileStreamSourceTask::parse_position(std::string_view text) {
  auto bad = [&] {
    return std::runtime_error("FileStreamSource: stored offset " + std::string{text}
                              + " is not {\"position\": N}");
  };
  auto key = text.find("\"position\"");
  if (key == std::string_view::npos)
    throw bad();
  auto p = text.find_first_not_of(" \t\r\n", key + 10);
  if (p == std::string_view::npos || text[p] != ':')
    throw bad();
  p = text.find_first_not_of(" \t\r\n", p + 1);
  if (p == std::string_view::npos)
    throw bad();
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data() + p, text.data() + text.size(), n);
  if (ec != std::errc{})
    throw bad();
  return n;
}

FileStreamSourceTask::FileStreamSourceTask(const Config& config)
  : path_(config.get_string("file")), topic_(config.get_string("topic")),
    batch_size_(static_cast<size_t>(config.get_int("batch.size"))), buffer_(chunk) {
  if (!path_.empty())
    partition_ = partition_of(path_);
}

FileStreamSourceTask::~FileStreamSourceTask() { close_file(); }

void FileStreamSourceTask::start(const runtime::connector_api::OffsetMap& stored) {
  if (path_.empty()) {
    fd_ = STDIN_FILENO; // standard input has no offsets, as in Kafka Connect
    return;
  }
  auto it = stored.find(partition_);
  if (it != stored.end())
    resume_at_ = parse_position(it->second);
  open_file(); // a missing file is waited for in poll()
}

bool FileStreamSourceTask::open_file() {
  int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT)
      throw read_error(path_, errno);
    if (!warned_missing_)
      spdlog::warn("Couldn't find file {} for FileStreamSourceTask, waiting for it to be created",
                   path_);
    warned_missing_ = true;
    return false;
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int err = S_ISDIR(st.st_mode) ? EISDIR : errno ? errno : EINVAL;
    ::close(fd);
    throw read_error(path_, err);
  }
  fd_ = fd;
  dev_ = st.st_dev;
  inode_ = st.st_ino;
  begin_ = end_ = 0;
  position_ = 0;
  if (resume_at_ > 0) {
    if (static_cast<uint64_t>(st.st_size) < resume_at_) {
      spdlog::warn("FileStreamSource: {} is shorter ({} bytes) than its stored position {}: "
                   "it was truncated or replaced, reading it from the start",
                   path_, st.st_size, resume_at_);
    } else if (::lseek(fd_, static_cast<off_t>(resume_at_), SEEK_SET) >= 0) {
      position_ = resume_at_;
    } else {
      throw read_error(path_, errno);
    }
    resume_at_ = 0;
  }
  warned_missing_ = false;
  return true;
}

void FileStreamSourceTask::close_file() {
  if (fd_ > STDERR_FILENO)
    ::close(fd_);
  fd_ = -1;
}

bool FileStreamSourceTask::read_more() {
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) {
    if (buffer_.size() >= max_line)
      throw std::runtime_error("FileStreamSource: a line of " + path_ + " at byte "
                               + std::to_string(position_) + " is longer than "
                               + std::to_string(max_line) + " bytes");
    buffer_.resize(buffer_.size() * 2);
  }
  for (;;) {
    auto n = ::read(fd_, buffer_.data() + end_, buffer_.size() - end_);
    if (n > 0) {
      end_ += static_cast<size_t>(n);
      return true;
    }
    if (n == 0)
      return false;
    if (errno != EINTR)
      throw read_error(path_, errno);
  }
}

void FileStreamSourceTask::check_rotation() {
  if (path_.empty())
    return;
  struct stat st{};
  if (::stat(path_.c_str(), &st) != 0)
    return; // moved away and not recreated yet: keep the old one
  if (st.st_dev != dev_ || st.st_ino != inode_) {
    spdlog::info("FileStreamSource: {} was replaced, reading the new file from its start", path_);
    close_file();
    open_file();
    return;
  }
  uint64_t read_to = position_ + (end_ - begin_);
  if (static_cast<uint64_t>(st.st_size) < read_to) {
    spdlog::info("FileStreamSource: {} was truncated, reading it again from its start", path_);
    ::lseek(fd_, 0, SEEK_SET);
    begin_ = end_ = 0;
    position_ = 0;
  }
}

FileStreamSourceTask::Status FileStreamSourceTask::poll(runtime::connector_api::SourceRecords& out) {
  if (fd_ < 0 && !open_file())
    return Status::idle;
  bool full = false;
  while (!full) {
    const char* data = buffer_.data();
    while (begin_ < end_) {
      if (out.size() >= batch_size_) {
        full = true;
        break;
      }
      auto* nl = static_cast<const char*>(std::memchr(data + begin_, '\n', end_ - begin_));
      if (!nl)
        break;
      size_t len = static_cast<size_t>(nl - (data + begin_));
      size_t text = len > 0 && data[begin_ + len - 1] == '\r' ? len - 1 : len;
      if (!out.has_room(text)) {
        full = true;
        break;
      }
      out.add(topic_, std::nullopt, std::string_view{data + begin_, text});
      begin_ += len + 1;
      position_ += len + 1;
    }
    if (full)
      break;
    if (!read_more()) {
      check_rotation();
      break;
    }
  }
  if (out.size() == 0)
    return Status::idle;
  if (!partition_.empty()) {
    offset_text_ = "{\"position\":";
    char digits[24];
    auto [end, ec] = std::to_chars(digits, digits + sizeof digits, position_);
    offset_text_.append(digits, end);
    offset_text_ += '}';
    out.set_offset(partition_, offset_text_);
  }
  return full ? Status::ready : Status::idle;
}

} // namespace weir::connectors::file
