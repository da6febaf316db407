// JsonLinesSink: a rotating JSON-lines file sink, built out of tree against the
// installed weir SDK (see docs/writing-a-sink.md, which walks through this file).
//
// Each record becomes one line:
//   {"topic":"t","partition":0,"offset":42,"timestamp":1700000000000,"key":"k","value":{...}}
// in DIRECTORY/PREFIX-TASK-SEQ.jsonl. A file is closed and the next one started once it
// holds rotate.max.records records or rotate.max.bytes bytes, so files stay small
// enough to ship. Each task writes its own files (TASK in the name), so tasks never
// share one. A restarted task starts a new file after the highest SEQ it finds.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

#include <weir/plugin.hpp>

namespace {

/// Appends `s` as a JSON string (quotes, backslash and control characters escaped).
void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

class JsonLinesSink : public weir::Sink {
public:
  static void define(weir::ConfigDef& def) {
    using weir::ConfigType;
    using weir::Importance;
    def.define("directory", ConfigType::String, Importance::High,
               "Directory the files are written to; created when missing.",
               weir::validators::non_empty());
    def.define("file.prefix", ConfigType::String, "", Importance::Medium,
               "File names start with this; empty: the connector's name.");
    def.define("rotate.max.records", ConfigType::Int, "100000", Importance::Medium,
               "Records per file before the next file is started.",
               weir::validators::range(1, std::nullopt));
    def.define("rotate.max.bytes", ConfigType::Long, "67108864", Importance::Medium,
               "Bytes per file before the next file is started (a file may exceed it "
               "by one record).",
               weir::validators::range(1, std::nullopt));
    def.define("fsync", ConfigType::Boolean, "true", Importance::Low,
               "Sync each file to disk before records count as written. Off: they are "
               "in the page cache only (lost if the machine, not just weir, crashes).");
  }

  void open(const weir::Config& config, const weir::SinkContext& context) override {
    dir_ = config.get_string("directory");
    prefix_ = config.get_string("file.prefix");
    if (prefix_.empty())
      prefix_ = context.connector;
    prefix_ += "-" + std::to_string(context.task) + "-";
    max_records_ = config.get_int("rotate.max.records");
    max_bytes_ = config.get_long("rotate.max.bytes");
    fsync_ = config.get_bool("fsync");
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec)
      throw std::runtime_error("JsonLinesSink: cannot create directory " + dir_ + ": " + ec.message());
    // Continue after the highest sequence number already there (a restarted task).
    for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
      auto name = entry.path().filename().string();
      if (name.rfind(prefix_, 0) != 0 || !name.ends_with(".jsonl"))
        continue;
      auto digits = std::string_view{name}.substr(prefix_.size(), name.size() - prefix_.size() - 6);
      int seq = 0;
      auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), seq);
      if (err == std::errc{} && end == digits.data() + digits.size())
        seq_ = std::max(seq_, seq);
    }
  }

  void put(weir::SinkBatch& batch) override {
    for (const auto& r : batch) {
      if (fd_ < 0 || records_ >= max_records_ || bytes_ + static_cast<int64_t>(lines_.size()) >= max_bytes_)
        rotate();
      lines_ += "{\"topic\":";
      append_json_string(lines_, r.topic);
      lines_ += ",\"partition\":" + std::to_string(r.partition);
      lines_ += ",\"offset\":" + std::to_string(r.offset);
      lines_ += ",\"timestamp\":" + std::to_string(r.timestamp);
      lines_ += ",\"key\":";
      lines_ += r.key ? *r.key : "null";
      lines_ += ",\"value\":";
      lines_ += r.value ? *r.value : "null";
      lines_ += "}\n";
      ++records_;
    }
  }

  void flush() override {
    write_out();
    if (fsync_ && fd_ >= 0 && ::fdatasync(fd_) != 0)
      throw std::runtime_error("JsonLinesSink: fdatasync " + path_ + ": " + std::strerror(errno));
  }

  void close() override {
    if (fd_ >= 0)
      ::close(fd_);
    fd_ = -1;
  }

private:
  /// Finishes the current file (its lines written and synced) and opens the next.
  void rotate() {
    if (fd_ >= 0) {
      flush();
      close();
    }
    char seq[16];
    std::snprintf(seq, sizeof seq, "%06d", ++seq_);
    path_ = dir_ + "/" + prefix_ + seq + ".jsonl";
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw std::runtime_error("JsonLinesSink: cannot create " + path_ + ": " + std::strerror(errno));
    records_ = 0;
    bytes_ = 0;
  }

  void write_out() {
    const char* p = lines_.data();
    size_t left = lines_.size();
    while (left > 0) {
      auto n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        throw std::runtime_error("JsonLinesSink: write " + path_ + ": " + std::strerror(errno));
      p += n;
      left -= static_cast<size_t>(n);
    }
    bytes_ += static_cast<int64_t>(lines_.size());
    lines_.clear();
  }

  std::string dir_, prefix_, path_;
  int32_t max_records_ = 0;
  int64_t max_bytes_ = 0;
  bool fsync_ = true;
  int fd_ = -1;
  int seq_ = 0;
  int32_t records_ = 0; // in the current file, including those in lines_
  int64_t bytes_ = 0;   // written to the current file
  std::string lines_;   // rendered, not yet written
};

void register_plugin(weir::PluginRegistrar& registrar) {
  registrar.add_sink<JsonLinesSink>("org.weir.examples.JsonLinesSinkConnector",
                                    {"JsonLinesSink", "JsonLinesSinkConnector"}, "1.0.0");
}

} // namespace

WEIR_PLUGIN(register_plugin)
