#include "engine/worker/log_levels.hpp"

#include <chrono>

#include <spdlog/spdlog.h>

#include "runtime/log_tail.hpp"

namespace weir::engine::worker {

namespace {

spdlog::level::level_enum spdlog_level(const std::string& log4j) {
  if (log4j == "TRACE" || log4j == "ALL") return spdlog::level::trace;
  if (log4j == "DEBUG") return spdlog::level::debug;
  if (log4j == "INFO") return spdlog::level::info;
  if (log4j == "WARN") return spdlog::level::warn;
  if (log4j == "ERROR") return spdlog::level::err;
  if (log4j == "FATAL") return spdlog::level::critical;
  return spdlog::level::off;
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

} // namespace

std::map<std::string, rest::LoggerLevel> LogLevels::all() const {
  std::lock_guard lock{mutex_};
  auto out = set_;
  out["root"] = {std::string{log4j_level_name(spdlog::get_level())}, root_modified_};
  return out;
}

std::optional<rest::LoggerLevel> LogLevels::get(const std::string& name) const {
  auto levels = all();
  auto it = levels.find(name);
  if (it == levels.end())
    return std::nullopt;
  return it->second;
}

std::vector<std::string> LogLevels::set(const std::string& name, const std::string& level) {
  std::lock_guard lock{mutex_};
  auto modified = now_ms();
  std::vector<std::string> changed;
  if (name == "root") {
    spdlog::set_level(spdlog_level(level));
    root_modified_ = modified;
    changed.push_back("root");
  }
  for (auto& [logger, value] : set_)
    if (name == "root" || logger.starts_with(name + ".")) {
      value = {level, modified};
      changed.push_back(logger);
    }
  if (name != "root") {
    set_[name] = {level, modified};
    changed.push_back(name);
  }
  return changed;
}

} // namespace weir::engine::worker
