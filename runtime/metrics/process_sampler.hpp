// What the process and its threads use, read from /proc/self: CPU per thread
// (grouped by what started the thread, from its name), CPU of the whole process,
// resident memory, open descriptors and sockets. The worker reads it once per
// sampling interval; nothing here runs on a data path.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weir::runtime::metrics {

/// One thread's line of /proc/self/task/TID/stat.
struct ThreadTimes {
  int tid = 0;
  std::string comm;
  uint64_t cpu_ticks = 0; ///< utime + stime, in clock ticks
};

/// Parses a /proc/.../stat line; nullopt when it is not one. The name may hold
/// spaces and parentheses, so it ends at the last ')'.
std::optional<ThreadTimes> parse_stat_line(std::string_view line);

/// The group a thread belongs to, from its name: "scheduler" (weir-sched-N),
/// "kafka" (librdkafka's rdk:*), "blocking" (CAF's detached actors, caf.actor:
/// sink writers and blocking sources), "rest" (weir-rest*), else "other".
std::string_view thread_group(std::string_view comm);

struct ProcessReading {
  uint64_t at_ns = 0;                ///< steady clock
  std::vector<ThreadTimes> threads;
  uint64_t process_ticks = 0;        ///< the whole process, threads that ended included
  uint64_t rss_bytes = 0;
  uint64_t fds = 0;
  uint64_t sockets = 0;
};

/// Reads /proc/self now.
ProcessReading read_process();

struct ThreadGroupFigures {
  std::string group;
  int count = 0;
  double cpu = 0; ///< cores over the interval
};

struct ProcessFigures {
  std::vector<ThreadGroupFigures> groups; ///< scheduler, kafka, blocking, rest, other
  double cpu = 0;                         ///< cores over the interval
  uint64_t rss_bytes = 0, fds = 0, connections = 0;
};

/// The figures between two readings; threads that appear only in `now` count from 0.
ProcessFigures process_between(const ProcessReading& then, const ProcessReading& now);

/// CPU cores used by the threads with these ids between two readings.
double threads_cpu_between(const ProcessReading& then, const ProcessReading& now, const std::vector<int>& tids);

} // namespace weir::runtime::metrics
