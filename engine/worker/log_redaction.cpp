#include "engine/worker/log_redaction.hpp"

#include <memory>
#include <vector>

#include <spdlog/sinks/sink.h>
#include <spdlog/spdlog.h>

#include "runtime/config/secrets.hpp"

namespace weir::engine::worker {

namespace {

/// Forwards a redacted copy of each message to the sinks it wraps (their levels
/// and formats stay theirs).
class RedactingSink final : public spdlog::sinks::sink {
public:
  explicit RedactingSink(std::vector<spdlog::sink_ptr> inner) : inner_(std::move(inner)) {}

  void log(const spdlog::details::log_msg& msg) override {
    std::string text = runtime::redact_log_line(std::string_view{msg.payload.data(), msg.payload.size()});
    spdlog::details::log_msg copy = msg;
    copy.payload = text;
    for (auto& sink : inner_)
      if (sink->should_log(copy.level)) sink->log(copy);
  }
  void flush() override {
    for (auto& sink : inner_) sink->flush();
  }
  void set_pattern(const std::string& pattern) override {
    for (auto& sink : inner_) sink->set_pattern(pattern);
  }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    for (auto& sink : inner_) sink->set_formatter(formatter->clone());
  }

private:
  std::vector<spdlog::sink_ptr> inner_;
};

} // namespace

void redact_logs() {
  auto logger = spdlog::default_logger();
  auto& sinks = logger->sinks();
  if (sinks.size() == 1 && std::dynamic_pointer_cast<RedactingSink>(sinks.front())) return;
  auto wrapped = std::make_shared<RedactingSink>(sinks);
  sinks.assign({wrapped});
}

} // namespace weir::engine::worker
