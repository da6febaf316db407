#include "runtime/log_tail.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

#include <spdlog/spdlog.h>

namespace weir::runtime {

namespace {

std::shared_ptr<LogTail> process_tail() {
  static auto tail = std::make_shared<LogTail>();
  return tail;
}

} // namespace

std::string_view log4j_level_name(spdlog::level::level_enum level) noexcept {
  switch (level) {
  case spdlog::level::trace: return "TRACE";
  case spdlog::level::debug: return "DEBUG";
  case spdlog::level::info: return "INFO";
  case spdlog::level::warn: return "WARN";
  case spdlog::level::err: return "ERROR";
  case spdlog::level::critical: return "FATAL";
  default: return "OFF";
  }
}

void LogTail::sink_it_(const spdlog::details::log_msg& msg) {
  std::string_view payload{msg.payload.data(), msg.payload.size()};
  std::string message{payload.substr(0, max_message_bytes)};
  if (payload.size() > max_message_bytes) {
    // Cut at a character boundary, so the line stays valid UTF-8.
    while (!message.empty() && (static_cast<unsigned char>(message.back()) & 0xC0) == 0x80) message.pop_back();
    if (!message.empty() && static_cast<unsigned char>(message.back()) >= 0xC0) message.pop_back();
    message += "…";
  }
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch()).count();
  lines_.push_back({next_seq_++, ms, std::string{log4j_level_name(msg.level)}, std::move(message)});
  while (lines_.size() > max_lines_) lines_.pop_front();
}

std::vector<LogLine> LogTail::lines(uint64_t after, size_t limit, std::optional<std::string_view> containing) {
  std::lock_guard lock{mutex_};
  std::vector<LogLine> out;
  // Newest first, so `limit` keeps the latest; reversed at the end.
  for (auto it = lines_.rbegin(); it != lines_.rend() && it->seq > after && out.size() < limit; ++it)
    if (!containing || it->message.find(*containing) != std::string::npos) out.push_back(*it);
  std::reverse(out.begin(), out.end());
  return out;
}

LogTail& log_tail() { return *process_tail(); }

void keep_log_tail() {
  auto& sinks = spdlog::default_logger()->sinks();
  auto tail = process_tail();
  if (std::find(sinks.begin(), sinks.end(), tail) == sinks.end()) sinks.push_back(tail);
}

} // namespace weir::runtime
