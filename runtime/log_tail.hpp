// The node's recent log lines, kept in memory for the web console (GET /weir/logs):
// a fixed number of lines, each cut at a fixed length, so memory stays bounded
// however long the node runs and however often it is read. Each line gets a
// sequence number, so a poller asks only for what it has not seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/sinks/base_sink.h>

namespace weir::runtime {

/// One kept line.
struct LogLine {
  uint64_t seq = 0;   // 1, 2, … in the order logged
  int64_t time_ms = 0; // epoch milliseconds
  std::string level; // log4j's names: TRACE, DEBUG, INFO, WARN, ERROR, FATAL
  std::string message; // the payload, without the pattern's time and level
};

/// A spdlog sink that keeps the last `max_lines` lines (the oldest go first).
class LogTail final : public spdlog::sinks::base_sink<std::mutex> {
public:
  static constexpr size_t default_max_lines = 1000;
  static constexpr size_t max_message_bytes = 2048; // longer messages are cut, marked with "…"

  explicit LogTail(size_t max_lines = default_max_lines) : max_lines_(max_lines) {}

  /// Lines with a sequence number above `after`, oldest first, at most `limit` (the
  /// newest of them); with `containing`, only lines whose message contains it.
  std::vector<LogLine> lines(uint64_t after, size_t limit, std::optional<std::string_view> containing);

protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;
  void flush_() override {}

private:
  size_t max_lines_;
  uint64_t next_seq_ = 1;
  std::deque<LogLine> lines_;
};

/// log4j's name of a spdlog level: TRACE, DEBUG, INFO, WARN, ERROR, FATAL, OFF.
std::string_view log4j_level_name(spdlog::level::level_enum level) noexcept;

/// The process's tail, fed once keep_log_tail() has run (empty before).
LogTail& log_tail();

/// Adds log_tail() to spdlog's default logger's sinks. Call before
/// worker::redact_logs(), which then wraps it too, so the tail holds no secret.
/// Idempotent.
void keep_log_tail();

} // namespace weir::runtime
