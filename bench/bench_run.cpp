// Runs one benchmark subject as a child process and measures it from the outside,
// the same way for weir, Kafka Connect and the bare consumer.
//
//   bench_run --records N --target TARGET [--timeout S] [--log FILE]
//             [--conninfo URL] [--verify-rows TABLE:COLUMN] [--server-pid PID]
//             [--mark PATH] [--thread-names FILE] -- CMD [ARGS...]
//
// TARGET says where the subject's records land, and so when it is done:
//   file:PATH               lines in PATH (a FileStreamSink's output)
//   files:K:PREFIX          lines in the K files PREFIX0.txt .. PREFIX<K-1>.txt, each
//                           counted up to N/K (K sinks that each write N/K lines: done
//                           when every one of them has, a doubled file making up for
//                           no short one)
//   sqlite:PATH             rows committed by weir's JDBC sink into PATH: the sum of
//                           next_offset in its offsets table, which is written in the
//                           same transaction as the rows (a fresh topic starts at 0)
//   topic:BOOTSTRAP:TOPIC   the sum of TOPIC's high watermarks (a source's output)
//   group:BOOTSTRAP:TOPIC:GROUP  the sum of GROUP's committed offsets on TOPIC (a
//                           Kafka Connect sink commits only what its task flushed)
//   pg:SQL                  the number SQL returns on the PostgreSQL server of
//                           --conninfo (e.g. the sum of a sink's stored offsets);
//                           0 while it fails (the table is not there yet)
//   exit                    the child counts by itself and exits when done; it prints
//                           `first_record_ns=<CLOCK_MONOTONIC ns>` when it sees the first
//
// Measured from fork() (the child's process start): wall seconds to the N-th record,
// seconds to the first record, and, read from /proc the moment the N-th record is
// seen (before the child is asked to stop), CPU seconds (user+sys of all its threads)
// and peak RSS (VmHWM). In exit mode they come from wait4()'s rusage instead. Then
// the child's process group gets SIGTERM (SIGKILL after 20 s).
//
// Every poll also reads the child's thread count (`Threads:` of /proc/PID/status):
// threads_max is the most seen. --thread-names FILE writes, when the N-th record is
// seen, the child's threads counted by name (/proc/PID/task/*/comm, trailing digits
// and dashes cut: rdk:broker1 and rdk:broker-1 count as rdk:broker), "COUNT NAME" a line.
// --mark PATH adds mark_s, the seconds from the fork until PATH existed (the harness
// creates it when it starts driving the subject, e.g. before its first REST call).
//
// --server-pid PID adds server_cpu_s: the CPU a server (PostgreSQL's postmaster)
// and its children (the backends, the WAL writer, the checkpointer) spent from the
// fork to the N-th record, counting the children that exited meanwhile.
// --verify-rows TABLE:COLUMN checks the subject's output once it has stopped:
// SELECT count(*), count(DISTINCT COLUMN) on the --conninfo server must both be N,
// else status=wrong_rows (a subject that lost or doubled rows does not deliver).
//
// Outside exit mode, the poll that first sees a record also reads the CPU so far and
// the records seen then (first_cpu_s, first_records): what start-up cost, so that the
// CPU per record can be told apart from it.
//
// Prints one line of key=value pairs on stdout:
//   status=ok|timeout|exited|wrong_rows records=... wall_s=... first_s=... cpu_s=... rss_mb=...
//   threads_max=... [first_cpu_s=... first_records=...] [mark_s=...] [server_cpu_s=...]
//   [rows=... distinct=...]
// A benchmark reports; it never fails on timing (exit status 0 unless misused).
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <time.h>
#include <unistd.h>
#include <vector>

#include <dirent.h>
#include <librdkafka/rdkafka.h>
#include <libpq-fe.h>
#include <sqlite3.h>

namespace {

using namespace std::chrono_literals;

double mono_s() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

[[noreturn]] void usage() {
  std::fprintf(stderr, "usage: bench_run --records N --target file:PATH|sqlite:PATH|topic:BOOTSTRAP:TOPIC|"
                       "group:BOOTSTRAP:TOPIC:GROUP|pg:SQL|files:K:PREFIX|exit [--timeout S] [--log FILE]"
                       " [--conninfo URL] [--verify-rows TABLE:COLUMN] [--server-pid PID] [--mark PATH]"
                       " [--thread-names FILE] -- CMD [ARGS...]\n");
  std::exit(2);
}

/// Counts what the subject has delivered so far.
class Probe {
public:
  virtual ~Probe() = default;
  virtual uint64_t count() = 0;
};

/// Newlines in a growing file, read incrementally.
class FileProbe : public Probe {
public:
  explicit FileProbe(std::string path) : path_(std::move(path)), buf_(1 << 20) {}
  ~FileProbe() override {
    if (fd_ >= 0) ::close(fd_);
  }
  uint64_t count() override {
    if (fd_ < 0 && (fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC)) < 0) return 0;
    for (;;) {
      ssize_t n = ::read(fd_, buf_.data(), buf_.size());
      if (n <= 0) break;
      const char* p = buf_.data();
      const char* end = p + n;
      while ((p = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p))))) {
        ++lines_;
        ++p;
      }
    }
    return lines_;
  }

private:
  std::string path_;
  std::vector<char> buf_;
  int fd_ = -1;
  uint64_t lines_ = 0;
};

/// K sink files, each counted up to its share of the records.
class FilesProbe : public Probe {
public:
  FilesProbe(size_t k, const std::string& prefix, uint64_t each) : each_(each) {
    for (size_t i = 0; i < k; ++i) files_.emplace_back(prefix + std::to_string(i) + ".txt");
  }
  uint64_t count() override {
    uint64_t sum = 0;
    for (auto& f : files_) sum += std::min(f.count(), each_);
    return sum;
  }

private:
  std::vector<FileProbe> files_;
  uint64_t each_;
};

/// Rows committed by weir's JDBC sink: its offsets table moves in the rows' transaction.
class SqliteProbe : public Probe {
public:
  explicit SqliteProbe(std::string path) : path_(std::move(path)) {}
  ~SqliteProbe() override {
    if (stmt_) sqlite3_finalize(stmt_);
    if (db_) sqlite3_close(db_);
  }
  uint64_t count() override {
    if (!stmt_ && !open()) return 0;
    uint64_t n = 0;
    if (sqlite3_step(stmt_) == SQLITE_ROW) n = static_cast<uint64_t>(sqlite3_column_int64(stmt_, 0));
    sqlite3_reset(stmt_);
    return n;
  }

private:
  bool open() {
    struct stat st{};
    if (::stat(path_.c_str(), &st) != 0) return false;
    if (!db_ && sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
      sqlite3_close(db_);
      db_ = nullptr;
      return false;
    }
    sqlite3_busy_timeout(db_, 50);
    if (sqlite3_prepare_v2(db_, "SELECT coalesce(sum(next_offset), 0) FROM __weir_sink_offsets", -1, &stmt_,
                           nullptr) != SQLITE_OK) {
      stmt_ = nullptr; // the sink has not created its tables yet
      return false;
    }
    return true;
  }
  std::string path_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

/// A consumer handle that only asks questions (it never subscribes), in `group`
/// if one is given.
rd_kafka_t* kafka_client(const std::string& bootstrap, const std::string& group = {}) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
  rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
  if (!group.empty()) rd_kafka_conf_set(conf, "group.id", group.c_str(), err, sizeof err);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!rk) {
    std::fprintf(stderr, "bench_run: %s\n", err);
    std::exit(2);
  }
  return rk;
}

/// The number of partitions of `topic`, or 0 while it cannot be had.
int32_t partition_count(rd_kafka_t* rk, const std::string& topic) {
  rd_kafka_topic_t* t = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  int32_t n = 0;
  if (rd_kafka_metadata(rk, 0, t, &md, 2000) == RD_KAFKA_RESP_ERR_NO_ERROR && md->topic_cnt == 1 &&
      md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR)
    n = md->topics[0].partition_cnt;
  if (md) rd_kafka_metadata_destroy(md);
  rd_kafka_topic_destroy(t);
  return n;
}

/// The sum of a topic's high watermarks.
class TopicProbe : public Probe {
public:
  TopicProbe(const std::string& bootstrap, std::string topic)
      : topic_(std::move(topic)), rk_(kafka_client(bootstrap)) {}
  ~TopicProbe() override { rd_kafka_destroy(rk_); }
  uint64_t count() override {
    if (partitions_ <= 0) partitions_ = partition_count(rk_, topic_);
    uint64_t sum = 0;
    for (int32_t p = 0; p < partitions_; ++p) {
      int64_t lo = 0, hi = 0;
      if (rd_kafka_query_watermark_offsets(rk_, topic_.c_str(), p, &lo, &hi, 2000) == RD_KAFKA_RESP_ERR_NO_ERROR)
        sum += static_cast<uint64_t>(hi);
    }
    return sum;
  }

private:
  std::string topic_;
  rd_kafka_t* rk_ = nullptr;
  int32_t partitions_ = 0;
};

/// The sum of a consumer group's committed offsets on a topic (a fresh topic starts
/// at 0, so it is the number of records the group has committed).
class GroupProbe : public Probe {
public:
  GroupProbe(const std::string& bootstrap, std::string topic, const std::string& group)
      : topic_(std::move(topic)), rk_(kafka_client(bootstrap, group)) {}
  ~GroupProbe() override { rd_kafka_destroy(rk_); }
  uint64_t count() override {
    if (partitions_ <= 0) partitions_ = partition_count(rk_, topic_);
    if (partitions_ <= 0) return 0;
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions_);
    for (int32_t p = 0; p < partitions_; ++p) rd_kafka_topic_partition_list_add(list, topic_.c_str(), p);
    uint64_t sum = 0;
    if (rd_kafka_committed(rk_, list, 2000) == RD_KAFKA_RESP_ERR_NO_ERROR)
      for (int i = 0; i < list->cnt; ++i)
        if (list->elems[i].offset > 0) sum += static_cast<uint64_t>(list->elems[i].offset);
    rd_kafka_topic_partition_list_destroy(list);
    return sum;
  }

private:
  std::string topic_;
  rd_kafka_t* rk_ = nullptr;
  int32_t partitions_ = 0;
};

/// A PostgreSQL connection for the pg: target and --verify-rows; reconnects when
/// the server dropped it.
class Pg {
public:
  explicit Pg(std::string conninfo) : conninfo_(std::move(conninfo)) {}
  ~Pg() {
    if (conn_) PQfinish(conn_);
  }
  /// The first row's integer columns of `sql`, or nothing when it failed.
  std::vector<uint64_t> row(const std::string& sql) {
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      if (conn_) PQfinish(conn_);
      conn_ = PQconnectdb(conninfo_.c_str());
      if (PQstatus(conn_) != CONNECTION_OK) {
        error_ = PQerrorMessage(conn_);
        return {};
      }
    }
    PGresult* res = PQexec(conn_, sql.c_str());
    std::vector<uint64_t> values;
    if (PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) > 0)
      for (int c = 0; c < PQnfields(res); ++c) values.push_back(std::strtoull(PQgetvalue(res, 0, c), nullptr, 10));
    else error_ = PQresultErrorMessage(res);
    PQclear(res);
    return values;
  }
  const std::string& error() const { return error_; }

private:
  std::string conninfo_;
  PGconn* conn_ = nullptr;
  std::string error_;
};

/// The number a query returns, e.g. the sum of the offsets a sink stored with its rows.
class PgProbe : public Probe {
public:
  PgProbe(std::shared_ptr<Pg> pg, std::string sql) : pg_(std::move(pg)), sql_(std::move(sql)) {}
  uint64_t count() override {
    auto v = pg_->row(sql_);
    return v.empty() ? 0 : v[0];
  }

private:
  std::shared_ptr<Pg> pg_;
  std::string sql_;
};

struct ProcSample {
  double cpu_s = 0;
  double rss_mb = 0;
};

/// CPU (user+sys) and peak RSS of a reaped process.
ProcSample from_rusage(const rusage& ru) {
  ProcSample s;
  s.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec)
            + static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  s.rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;
  return s;
}

/// CPU (user+sys of every thread) and VmHWM of a live process.
ProcSample sample(pid_t pid) {
  ProcSample s;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  auto close_paren = text.rfind(')');
  if (close_paren != std::string::npos) {
    std::istringstream rest(text.substr(close_paren + 2));
    std::string field;
    // Fields after the name: state(3) ... utime(14) stime(15); rest starts at field 3.
    unsigned long long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
      if (i == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
    }
    s.cpu_s = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) s.rss_mb = std::strtod(line.c_str() + 6, nullptr) / 1024.0;
  return s;
}

/// `Threads:` of /proc/PID/status, 0 when it is gone.
int thread_count(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("Threads:", 0) == 0) return std::atoi(line.c_str() + 8);
  return 0;
}

/// The process's threads counted by name, trailing digits and dashes cut, most first.
void write_thread_names(pid_t pid, const std::string& path) {
  std::map<std::string, int> names;
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  if (DIR* tasks = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(tasks)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      std::ifstream comm(dir + "/" + e->d_name + "/comm");
      std::string name;
      std::getline(comm, name);
      while (!name.empty() && (std::isdigit(static_cast<unsigned char>(name.back())) || name.back() == '-'))
        name.pop_back();
      ++names[name.empty() ? "?" : name];
    }
    ::closedir(tasks);
  }
  std::vector<std::pair<int, std::string>> sorted;
  for (auto& [name, n] : names) sorted.emplace_back(n, name);
  std::sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.first > b.first; });
  std::ofstream out(path);
  for (auto& [n, name] : sorted) out << n << ' ' << name << '\n';
}

/// Fields 14 to 17 of /proc/PID/stat (utime, stime, cutime, cstime) in clock ticks,
/// and field 4 (the parent's pid); false when the process is gone.
bool stat_times(const std::string& path, unsigned long long (&times)[4], long& ppid) {
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close_paren = text.rfind(')');
  if (close_paren == std::string::npos) return false;
  std::istringstream rest(text.substr(close_paren + 2));
  std::string field;
  for (int i = 3; i <= 17 && rest >> field; ++i) {
    if (i == 4) ppid = std::strtol(field.c_str(), nullptr, 10);
    if (i >= 14) times[i - 14] = std::strtoull(field.c_str(), nullptr, 10);
  }
  return true;
}

/// CPU seconds of a server and its children: its own time, its reaped children's
/// (cutime, cstime: backends that exited) and its live children's.
double server_cpu(pid_t server) {
  unsigned long long own[4] = {}, total = 0;
  long ppid = 0;
  if (!stat_times("/proc/" + std::to_string(server) + "/stat", own, ppid)) return 0;
  total = own[0] + own[1] + own[2] + own[3];
  if (DIR* proc = ::opendir("/proc")) {
    while (dirent* e = ::readdir(proc)) {
      if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
      unsigned long long t[4] = {};
      if (stat_times(std::string("/proc/") + e->d_name + "/stat", t, ppid) && ppid == server) total += t[0] + t[1];
    }
    ::closedir(proc);
  }
  return static_cast<double>(total) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

/// The first `first_record_ns=` value in the child's log, or 0.
double first_from_log(const std::string& log) {
  std::ifstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    auto at = line.find("first_record_ns=");
    if (at != std::string::npos) return std::strtod(line.c_str() + at + 16, nullptr) / 1e9;
  }
  return 0;
}

/// SIGTERM to the child's process group, SIGKILL after `grace`; reaps it.
int stop(pid_t pid, std::chrono::seconds grace, rusage* ru) {
  ::kill(-pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    pid_t r = ::wait4(pid, &status, WNOHANG, ru);
    if (r == pid) {
      ::kill(-pid, SIGKILL); // leftovers of the group, if any
      return status;
    }
    std::this_thread::sleep_for(50ms);
  }
  ::kill(-pid, SIGKILL);
  ::wait4(pid, &status, 0, ru);
  return status;
}

pid_t child_pid = 0;
extern "C" void forward(int sig) {
  if (child_pid > 0) ::kill(-child_pid, SIGKILL);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

} // namespace

int main(int argc, char** argv) {
  uint64_t records = 0;
  std::string target, log = "/dev/null", conninfo, verify, mark, thread_names;
  double timeout = 600;
  pid_t server = 0;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (i + 1 >= argc) usage();
    if (a == "--records") records = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--target") target = argv[++i];
    else if (a == "--timeout") timeout = std::strtod(argv[++i], nullptr);
    else if (a == "--log") log = argv[++i];
    else if (a == "--conninfo") conninfo = argv[++i];
    else if (a == "--verify-rows") verify = argv[++i];
    else if (a == "--mark") mark = argv[++i];
    else if (a == "--thread-names") thread_names = argv[++i];
    else if (a == "--server-pid") server = static_cast<pid_t>(std::strtol(argv[++i], nullptr, 10));
    else usage();
  }
  if (i >= argc || records == 0 || target.empty()) usage();

  std::shared_ptr<Pg> pg;
  if (!conninfo.empty()) pg = std::make_shared<Pg>(conninfo);
  auto verify_colon = verify.find(':');
  if (!verify.empty() && (!pg || verify_colon == std::string::npos)) usage();

  std::unique_ptr<Probe> probe;
  bool exit_mode = target == "exit";
  if (target.rfind("file:", 0) == 0) probe = std::make_unique<FileProbe>(target.substr(5));
  else if (target.rfind("sqlite:", 0) == 0) probe = std::make_unique<SqliteProbe>(target.substr(7));
  else if (target.rfind("topic:", 0) == 0) {
    auto rest = target.substr(6);
    auto colon = rest.rfind(':');
    if (colon == std::string::npos) usage();
    probe = std::make_unique<TopicProbe>(rest.substr(0, colon), rest.substr(colon + 1));
  } else if (target.rfind("group:", 0) == 0) {
    auto rest = target.substr(6);
    auto group_colon = rest.rfind(':');
    auto topic_colon = group_colon == std::string::npos ? group_colon : rest.rfind(':', group_colon - 1);
    if (topic_colon == std::string::npos) usage();
    probe = std::make_unique<GroupProbe>(rest.substr(0, topic_colon),
                                         rest.substr(topic_colon + 1, group_colon - topic_colon - 1),
                                         rest.substr(group_colon + 1));
  } else if (target.rfind("files:", 0) == 0) {
    auto rest = target.substr(6);
    auto colon = rest.find(':');
    size_t k = colon == std::string::npos ? 0 : std::strtoull(rest.c_str(), nullptr, 10);
    if (k == 0 || records % k != 0) usage();
    probe = std::make_unique<FilesProbe>(k, rest.substr(colon + 1), records / k);
  } else if (target.rfind("pg:", 0) == 0) {
    if (!pg) usage();
    probe = std::make_unique<PgProbe>(pg, target.substr(3));
  } else if (!exit_mode) usage();

  std::signal(SIGINT, forward);
  std::signal(SIGTERM, forward);
  std::signal(SIGHUP, forward);
  double server_cpu0 = server > 0 ? server_cpu(server) : 0, server_cpu_s = 0;
  double t0 = mono_s();
  pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("fork");
    return 2;
  }
  if (pid == 0) {
    ::setpgid(0, 0); // its own group: stop() reaches the JVM's or weir's helpers too
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      ::close(fd);
    }
    ::execvp(argv[i], argv + i);
    std::fprintf(stderr, "bench_run: cannot run %s: %s\n", argv[i], std::strerror(errno));
    ::_exit(127);
  }
  child_pid = pid;
  ::setpgid(pid, pid);

  std::string status = "timeout";
  uint64_t seen = 0, first_records = 0;
  double first = 0, last = 0, first_cpu_s = 0;
  ProcSample at_end;
  rusage ru{};
  int wstatus = 0;
  bool reaped = false;
  int threads_max = 0;
  double mark_s = 0;
  while (mono_s() - t0 < timeout) {
    threads_max = std::max(threads_max, thread_count(pid));
    struct stat mark_st{};
    if (!mark.empty() && mark_s == 0 && ::stat(mark.c_str(), &mark_st) == 0) mark_s = mono_s() - t0;
    if (!exit_mode) {
      seen = probe->count();
      if (seen > 0 && first == 0) {
        first = mono_s() - t0;
        first_cpu_s = sample(pid).cpu_s;
        first_records = seen;
      }
      if (seen >= records) {
        last = mono_s() - t0;
        at_end = sample(pid);
        // A subject that exits once it is done (a bare producer) may be exiting now:
        // its memory is gone from /proc/PID/status (a live process always shows a
        // VmHWM), so it is reaped, and its rusage has the figures.
        if (at_end.rss_mb == 0 && ::wait4(pid, &wstatus, 0, &ru) == pid) {
          reaped = true;
          at_end = from_rusage(ru);
        }
        if (!thread_names.empty()) write_thread_names(pid, thread_names);
        if (server > 0) server_cpu_s = server_cpu(server) - server_cpu0;
        status = "ok";
        break;
      }
    }
    pid_t r = ::wait4(pid, &wstatus, WNOHANG, &ru);
    if (r == pid) {
      reaped = true;
      last = mono_s() - t0;
      at_end = from_rusage(ru);
      if (server > 0) server_cpu_s = server_cpu(server) - server_cpu0;
      if (exit_mode) {
        status = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0 ? "ok" : "exited";
        seen = status == "ok" ? records : 0;
        double f = first_from_log(log);
        first = f > 0 ? f - t0 : 0;
      } else {
        seen = probe->count();
        status = seen >= records ? "ok" : "exited";
      }
      break;
    }
    // Fine polling early (startup to first record), coarser once records flow.
    std::this_thread::sleep_for(first == 0 ? 5ms : 25ms);
  }
  if (!reaped) {
    int st = stop(pid, std::chrono::seconds{20}, &ru);
    (void)st;
  }
  ::kill(-pid, SIGKILL);
  std::string extra = " threads_max=" + std::to_string(threads_max);
  if (first_records > 0) {
    char buf[96];
    std::snprintf(buf, sizeof buf, " first_cpu_s=%.2f first_records=%llu", first_cpu_s,
                  static_cast<unsigned long long>(first_records));
    extra += buf;
  }
  if (!mark.empty()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " mark_s=%.3f", mark_s);
    extra += buf;
  }
  if (server > 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " server_cpu_s=%.2f", server_cpu_s);
    extra += buf;
  }
  if (!verify.empty() && status == "ok") {
    auto table = verify.substr(0, verify_colon), column = verify.substr(verify_colon + 1);
    auto counts = pg->row("SELECT count(*), count(DISTINCT " + column + ") FROM " + table);
    if (counts.size() == 2) {
      extra += " rows=" + std::to_string(counts[0]) + " distinct=" + std::to_string(counts[1]);
      if (counts[0] != records || counts[1] != records) status = "wrong_rows";
    } else {
      std::fprintf(stderr, "bench_run: cannot count the rows of %s: %s", table.c_str(), pg->error().c_str());
      status = "wrong_rows";
    }
  }
  double rate = status == "ok" && last > 0 ? static_cast<double>(records) / last : 0;
  std::printf("status=%s records=%llu wall_s=%.3f first_s=%.3f cpu_s=%.2f rss_mb=%.1f rate=%.0f%s\n", status.c_str(),
              static_cast<unsigned long long>(seen), last, first, at_end.cpu_s, at_end.rss_mb, rate, extra.c_str());
  return 0;
}
