// Kafka Connect's /admin/loggers over spdlog. weir logs through one logger, spdlog's
// default, named "root" here as log4j's root is; setting "root" changes what weir
// logs. Other names are kept with their level (Kafka Connect also accepts loggers
// nothing logs to), so GET shows what was set and when.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/rest/connect_herder.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::worker {

class LogLevels {
public:
  /// The root logger and every logger set through the API.
  std::map<std::string, rest::LoggerLevel> all() const;
  std::optional<rest::LoggerLevel> get(const std::string& name) const;
  /// Sets `name` and the loggers below it (`a.b` is below `a`); `level` is a log4j
  /// level name in upper case. Returns the loggers changed.
  std::vector<std::string> set(const std::string& name, const std::string& level);

private:
  mutable std::mutex mutex_;
  std::map<std::string, rest::LoggerLevel> set_; // not root
  std::optional<int64_t> root_modified_;
};

} // namespace weir::engine::worker
