// spdlog's default logger, copied into a string for a test to read.
#pragma once

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <sstream>
#include <string>

namespace weir::testing {

/// Sends spdlog's default logger to a string too, for the object's lifetime.
class CapturedLog {
public:
  CapturedLog() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    auto logger = std::make_shared<spdlog::logger>("captured", spdlog::sinks_init_list{sink});
    for (const auto& s : previous_->sinks())
      logger->sinks().push_back(s);
    spdlog::set_default_logger(logger);
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;

  std::string text() {
    spdlog::default_logger()->flush();
    return out_.str();
  }

private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream out_;
};

} // namespace weir::testing
