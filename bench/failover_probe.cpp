// Failover time of a sink cluster after kill -9 of one worker, measured from the
// outside, the same way for weir nodes and Kafka Connect workers.
//
//   failover_probe --bootstrap-servers B --topic T --partitions P --kill PID
//                  --file PATH [--file PATH ...] [--rate R] [--settle S] [--timeout S]
//
// It produces R records/s (default 2000) round-robin over the P partitions of T; each
// value is JSON {"partition":p,"produced_us":t} with t the probe's CLOCK_MONOTONIC
// in microseconds. It tails every worker's sink file (FileStreamSink, one file per
// worker) and reads back each line's partition and production time, in the Java
// Map.toString form ({partition=3, produced_us=...}) or as JSON.
//
//  1. flowing: every partition has had a record written within 2 s of its production,
//     without a break, for --settle seconds (default 5);
//  2. then it sends SIGKILL to PID (the worker chosen by the caller) and notes the time;
//  3. failover ends when every partition has a record written that was produced after
//     the kill. failover_s is that moment minus the kill; per partition, the same.
// Lines that come again (at-least-once redelivery after the takeover) carry their old
// production time, so they do not count as recovery.
// The partitions back in less than half the failover time were not the dead worker's;
// others_stall_s is the longest time one of them went without a newer record written,
// from the kill until every partition flows again (a record written within 1 s of its
// production): a takeover that stops every task, or slows the survivors, shows there.
//
// Prints one line on stdout:
//   status=ok|timeout failover_s=... partitions_s=a,b,... others_stall_s=...
//   produced=N flowing_s=... (seconds from start until the kill)
// Exit 0 on ok, 1 on a timeout (with a message on stderr saying which phase and which
// partitions were missing), 2 when misused or when PID cannot be signalled.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "rdkafka_client.hpp"

namespace {

using namespace std::chrono_literals;

int64_t mono_us() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: failover_probe --bootstrap-servers B --topic T --partitions P --kill PID"
                       " --file PATH [--file PATH ...] [--rate R] [--settle S] [--timeout S]\n");
  std::exit(2);
}

/// The integer after `key` and its separator (`=` or `":`), or -1.
int64_t field(std::string_view line, std::string_view key) {
  auto at = line.find(key);
  if (at == std::string_view::npos) return -1;
  at += key.size();
  while (at < line.size() && (line[at] == '"' || line[at] == '=' || line[at] == ':' || line[at] == ' ')) ++at;
  if (at >= line.size() || line[at] < '0' || line[at] > '9') return -1;
  int64_t v = 0;
  while (at < line.size() && line[at] >= '0' && line[at] <= '9') v = v * 10 + (line[at++] - '0');
  return v;
}

/// A growing sink file, read line by line as it is appended to (a partial last line
/// waits for its end).
class Tail {
public:
  explicit Tail(std::string path) : path_(std::move(path)) {}
  ~Tail() {
    if (fd_ >= 0) ::close(fd_);
  }
  Tail(const Tail&) = delete;
  Tail& operator=(const Tail&) = delete;
  Tail(Tail&& o) noexcept : path_(std::move(o.path_)), fd_(o.fd_), pending_(std::move(o.pending_)) { o.fd_ = -1; }

  /// Calls `on_line` for every complete line written since the last call.
  template <class F>
  void read(F&& on_line) {
    if (fd_ < 0 && (fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC)) < 0) return;
    char buf[1 << 16];
    for (;;) {
      ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n <= 0) break;
      pending_.append(buf, static_cast<size_t>(n));
    }
    size_t start = 0;
    for (size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1)
      on_line(std::string_view(pending_).substr(start, nl - start));
    pending_.erase(0, start);
  }

private:
  std::string path_;
  int fd_ = -1;
  std::string pending_;
};

std::string list(const std::vector<int>& ps) {
  std::string out;
  for (int p : ps) out += (out.empty() ? "" : ",") + std::to_string(p);
  return out;
}

} // namespace

int main(int argc, char** argv) {
  std::string bootstrap, topic;
  std::vector<Tail> files;
  int partitions = 0;
  pid_t victim = 0;
  double rate = 2000, settle = 5, timeout = 180;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) usage();
    const char* v = argv[++i];
    if (a == "--bootstrap-servers") bootstrap = v;
    else if (a == "--topic") topic = v;
    else if (a == "--partitions") partitions = std::atoi(v);
    else if (a == "--kill") victim = static_cast<pid_t>(std::atol(v));
    else if (a == "--file") files.emplace_back(v);
    else if (a == "--rate") rate = std::strtod(v, nullptr);
    else if (a == "--settle") settle = std::strtod(v, nullptr);
    else if (a == "--timeout") timeout = std::strtod(v, nullptr);
    else usage();
  }
  if (bootstrap.empty() || topic.empty() || partitions <= 0 || victim <= 0 || files.empty() || rate <= 0) usage();
  if (::kill(victim, 0) != 0) {
    std::fprintf(stderr, "failover_probe: cannot signal pid %d: %s\n", static_cast<int>(victim), std::strerror(errno));
    return 2;
  }

  rd_kafka_t* rk =
      bench::rdkafka_client("failover_probe", RD_KAFKA_PRODUCER, {{"bootstrap.servers", bootstrap}, {"linger.ms", "5"}});

  const int64_t start = mono_us();
  const int64_t fresh_us = 2'000'000;  // "flowing": written within 2 s of production
  std::vector<int64_t> newest(partitions, -1);  // newest production time written, per partition
  std::vector<int64_t> flowing_since(partitions, -1);
  std::vector<int64_t> recovered(partitions, -1);  // when a post-kill record was first seen
  std::vector<int64_t> last_new(partitions, -1);   // after the kill: when `newest` last grew
  std::vector<int64_t> stall(partitions, 0);       // after the kill: the longest wait for it
  int64_t killed_at = -1, phase_start = start, recovered_at = -1;
  uint64_t produced = 0;
  std::string status = "timeout";
  char value[96];

  for (;;) {
    const int64_t now = mono_us();
    // Produce what is due by now at `rate`, round-robin over the partitions.
    const auto due = static_cast<uint64_t>(static_cast<double>(now - start) * rate / 1e6);
    for (; produced < due; ++produced) {
      const int p = static_cast<int>(produced % static_cast<uint64_t>(partitions));
      int n = std::snprintf(value, sizeof value, R"({"partition":%d,"produced_us":%lld})", p,
                            static_cast<long long>(mono_us()));
      rd_kafka_resp_err_t e = rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(p),
                                                RD_KAFKA_V_VALUE(value, static_cast<size_t>(n)),
                                                RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        std::fprintf(stderr, "failover_probe: produce: %s\n", rd_kafka_err2str(e));
        break;  // the queue is full: try again on the next tick
      }
    }
    rd_kafka_poll(rk, 0);

    const int64_t seen = mono_us();
    for (auto& f : files)
      f.read([&](std::string_view line) {
        const int64_t p = field(line, "partition"), t = field(line, "produced_us");
        if (p < 0 || p >= partitions || t < 0) return;
        const auto i = static_cast<size_t>(p);
        if (killed_at >= 0 && t > newest[i]) {
          stall[i] = std::max(stall[i], seen - last_new[i]);
          last_new[i] = seen;
        }
        newest[i] = std::max(newest[i], t);
        if (killed_at >= 0 && t > killed_at && recovered[i] < 0) recovered[i] = seen;
      });

    std::vector<int> missing;
    if (killed_at < 0) {
      bool all = true;
      for (int p = 0; p < partitions; ++p) {
        auto& since = flowing_since[static_cast<size_t>(p)];
        bool fresh = newest[static_cast<size_t>(p)] >= 0 && seen - newest[static_cast<size_t>(p)] <= fresh_us;
        if (!fresh) {
          since = -1;
          missing.push_back(p);
        } else if (since < 0) {
          since = seen;
        }
        all = all && fresh && seen - since >= static_cast<int64_t>(settle * 1e6);
      }
      if (all) {
        if (::kill(victim, SIGKILL) != 0) {
          std::fprintf(stderr, "failover_probe: kill -9 %d: %s\n", static_cast<int>(victim), std::strerror(errno));
          rd_kafka_destroy(rk);
          return 2;
        }
        killed_at = phase_start = mono_us();
        std::fill(last_new.begin(), last_new.end(), killed_at);
        std::fprintf(stderr, "failover_probe: every partition flowing for %.0f s; kill -9 %d at %.2f s\n", settle,
                     static_cast<int>(victim), static_cast<double>(killed_at - start) / 1e6);
      }
    } else {
      for (int p = 0; p < partitions; ++p)
        if (recovered[static_cast<size_t>(p)] < 0) missing.push_back(p);
      if (missing.empty() && recovered_at < 0) recovered_at = seen;
      if (recovered_at >= 0)
        for (int p = 0; p < partitions; ++p)
          if (seen - newest[static_cast<size_t>(p)] > 1'000'000) missing.push_back(p);
      if (recovered_at >= 0 && missing.empty()) {
        for (size_t i = 0; i < stall.size(); ++i) stall[i] = std::max(stall[i], seen - last_new[i]);
        status = "ok";
        break;
      }
    }
    if (static_cast<double>(seen - phase_start) > timeout * 1e6) {
      const char* phase = killed_at < 0      ? "waiting for every partition to flow (nothing was killed)"
                          : recovered_at < 0 ? "after the kill, waiting for every partition to recover"
                                             : "after the failover, waiting for every partition to flow again";
      std::fprintf(stderr, "failover_probe: timeout after %.0f s %s; partitions without a fresh record: %s\n",
                   timeout, phase, list(missing).c_str());
      break;
    }
    std::this_thread::sleep_for(5ms);
  }
  rd_kafka_flush(rk, 2000);
  rd_kafka_destroy(rk);

  double max_s = 0, others_stall_s = 0;
  std::string per;
  if (recovered_at >= 0) {
    for (int64_t r : recovered) max_s = std::max(max_s, static_cast<double>(r - killed_at) / 1e6);
    for (size_t i = 0; i < recovered.size(); ++i) {
      const double s = static_cast<double>(recovered[i] - killed_at) / 1e6;
      if (s < max_s / 2) others_stall_s = std::max(others_stall_s, static_cast<double>(stall[i]) / 1e6);
      char buf[32];
      std::snprintf(buf, sizeof buf, "%s%.2f", per.empty() ? "" : ",", s);
      per += buf;
    }
  }
  std::printf("status=%s failover_s=%.3f partitions_s=%s others_stall_s=%.3f produced=%llu flowing_s=%.2f\n",
              status.c_str(), max_s, per.empty() ? "-" : per.c_str(), others_stall_s,
              static_cast<unsigned long long>(produced),
              killed_at >= 0 ? static_cast<double>(killed_at - start) / 1e6 : 0.0);
  return status == "ok" ? 0 : 1;
}
