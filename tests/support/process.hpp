// A child process for end-to-end tests: spawn a program (the `weir` binary), capture
// its stdout and stderr into a log file, signal it, wait for it, sample its memory.
//
// The child dies with the test (PR_SET_PDEATHSIG), and the destructor kills -9 a
// child that is still running, so a failing test never leaves a process behind.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace weir::testing {

/// How a child ended, from waitpid().
struct ExitStatus {
  bool exited = false;   ///< exited normally (then `code` is its exit code)
  int code = -1;
  bool signaled = false; ///< killed by a signal (then `signal` is that signal)
  int signal = 0;

  bool clean() const noexcept { return exited && code == 0; }
  std::string describe() const;
};

class ChildProcess {
public:
  /// Starts `argv` (argv[0] is the program's path) with the test's environment;
  /// stdout and stderr both go to `log_path` (appended, so a restart adds to it).
  /// Throws std::runtime_error when the program cannot be started.
  ChildProcess(std::vector<std::string> argv, std::string log_path);
  /// kill -9 and reap, if still running.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const noexcept { return pid_; }

  /// Sends `sig` (e.g. SIGTERM, SIGKILL). No-op once the child was reaped.
  void signal(int sig);

  /// Waits up to `timeout` for the child to end; std::nullopt if it is still running.
  std::optional<ExitStatus> wait(std::chrono::milliseconds timeout);

  /// Reaps the child if it ended; true while it runs.
  bool running();

  /// The exit status once reaped.
  const std::optional<ExitStatus>& status() const noexcept { return status_; }

  /// Resident set size (VmRSS of /proc/PID/status) in KiB; -1 when it cannot be read
  /// (the child ended).
  long rss_kib() const;

  /// Everything the child wrote so far (stdout and stderr, interleaved).
  std::string output() const;
  const std::string& log_path() const noexcept { return log_path_; }

private:
  pid_t pid_ = -1;
  std::string log_path_;
  std::optional<ExitStatus> status_;
};

/// The whole content of a file ("" when it does not exist).
std::string read_file(const std::string& path);

/// Path of the `weir` binary: $WEIR_BIN (set by tests/integration/meson.build).
/// Fails the calling test when it is missing.
std::string weir_binary();

/// A fresh directory under $TMPDIR (or /tmp), removed by the destructor unless
/// keep() was called (a failing test keeps its files for inspection).
class TempDir {
public:
  explicit TempDir(const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const noexcept { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  void keep() noexcept { keep_ = true; }

private:
  std::string path_;
  bool keep_ = false;
};

/// True once the running test case has a failed assertion (or is being aborted):
/// then keep its files for inspection.
bool current_test_failing();

/// Polls `done` every `interval` until it returns true or `timeout` passes;
/// returns its last result.
template <class Pred>
bool wait_until(std::chrono::milliseconds timeout, std::chrono::milliseconds interval, Pred done) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (done())
      return true;
    if (std::chrono::steady_clock::now() >= deadline)
      return false;
    std::this_thread::sleep_for(interval);
  }
}

} // namespace weir::testing
