#include "runtime/metrics/process_sampler.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "runtime/metrics/scheduler_meter.hpp"

namespace weir::runtime::metrics {

namespace {

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in{path};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

double ticks_per_second() {
  static const double hz = static_cast<double>(sysconf(_SC_CLK_TCK));
  return hz > 0 ? hz : 100.0;
}

uint64_t ticks_of(const ProcessReading& r, int tid) {
  for (const auto& t : r.threads)
    if (t.tid == tid) return t.cpu_ticks;
  return 0;
}

double cores(uint64_t ticks, double seconds) {
  return seconds > 0 ? static_cast<double>(ticks) / ticks_per_second() / seconds : 0.0;
}

double seconds_between(const ProcessReading& then, const ProcessReading& now) {
  return now.at_ns > then.at_ns ? static_cast<double>(now.at_ns - then.at_ns) / 1e9 : 0.0;
}

} // namespace

std::optional<ThreadTimes> parse_stat_line(std::string_view line) {
  auto open = line.find('(');
  auto close = line.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  ThreadTimes t;
  auto [p, ec] = std::from_chars(line.data(), line.data() + open, t.tid);
  if (ec != std::errc{} || t.tid <= 0)
    return std::nullopt;
  t.comm = std::string{line.substr(open + 1, close - open - 1)};
  // After the name: state (field 3) ... utime (14), stime (15).
  std::istringstream rest{std::string{line.substr(close + 1)}};
  std::string field;
  uint64_t utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) std::from_chars(field.data(), field.data() + field.size(), utime);
    if (i == 15 && std::from_chars(field.data(), field.data() + field.size(), stime).ec == std::errc{}) {
      t.cpu_ticks = utime + stime;
      return t;
    }
  }
  return std::nullopt;
}

std::string_view thread_group(std::string_view comm) {
  if (comm.starts_with("weir-sched")) return "scheduler";
  if (comm.starts_with("rdk:")) return "kafka";
  if (comm == "caf.actor") return "blocking";
  if (comm.starts_with("weir-rest")) return "rest";
  return "other";
}

ProcessReading read_process() {
  namespace fs = std::filesystem;
  ProcessReading r;
  r.at_ns = SchedulerMeter::now_ns();
  std::error_code ec;
  for (const auto& task : fs::directory_iterator{"/proc/self/task", ec})
    if (auto t = parse_stat_line(read_text(task.path() / "stat")))
      r.threads.push_back(std::move(*t));
  if (auto self = parse_stat_line(read_text("/proc/self/stat")))
    r.process_ticks = self->cpu_ticks;
  std::istringstream statm{read_text("/proc/self/statm")};
  uint64_t size = 0, resident = 0;
  if (statm >> size >> resident)
    r.rss_bytes = resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  for (const auto& fd : fs::directory_iterator{"/proc/self/fd", ec}) {
    ++r.fds;
    auto target = fs::read_symlink(fd.path(), ec);
    if (!ec && target.native().starts_with("socket:"))
      ++r.sockets;
  }
  return r;
}

ProcessFigures process_between(const ProcessReading& then, const ProcessReading& now) {
  ProcessFigures f;
  double seconds = seconds_between(then, now);
  std::map<std::string_view, ThreadGroupFigures> groups;
  for (auto name : {"scheduler", "kafka", "blocking", "rest", "other"})
    groups[name].group = name;
  for (const auto& t : now.threads) {
    auto& g = groups[thread_group(t.comm)];
    ++g.count;
    auto before = ticks_of(then, t.tid);
    g.cpu += cores(t.cpu_ticks >= before ? t.cpu_ticks - before : 0, seconds);
  }
  for (auto name : {"scheduler", "kafka", "blocking", "rest", "other"})
    f.groups.push_back(groups[name]);
  f.cpu = cores(now.process_ticks >= then.process_ticks ? now.process_ticks - then.process_ticks : 0, seconds);
  f.rss_bytes = now.rss_bytes;
  f.fds = now.fds;
  f.connections = now.sockets;
  return f;
}

double threads_cpu_between(const ProcessReading& then, const ProcessReading& now, const std::vector<int>& tids) {
  uint64_t ticks = 0;
  for (int tid : tids) {
    auto a = ticks_of(then, tid), b = ticks_of(now, tid);
    ticks += b >= a ? b - a : 0;
  }
  return cores(ticks, seconds_between(then, now));
}

} // namespace weir::runtime::metrics
