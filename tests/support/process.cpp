#include "tests/support/process.hpp"

#include <boost/test/results_collector.hpp>
#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace weir::testing {

std::string ExitStatus::describe() const {
  if (exited)
    return "exit code " + std::to_string(code);
  if (signaled)
    return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "not ended";
}

ChildProcess::ChildProcess(std::vector<std::string> argv, std::string log_path)
  : log_path_(std::move(log_path)) {
  std::vector<char*> args;
  for (auto& a : argv)
    args.push_back(a.data());
  args.push_back(nullptr);
  int log = ::open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0)
    throw std::runtime_error("cannot open " + log_path_ + ": " + std::strerror(errno));
  pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    ::close(log);
    throw std::runtime_error(std::string{"fork: "} + std::strerror(errno));
  }
  if (pid_ == 0) {
    // Only async-signal-safe calls between fork and exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent)
      ::_exit(127);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0)
      ::dup2(devnull, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    ::execve(args[0], args.data(), environ);
    const char msg[] = "ChildProcess: execve failed\n";
    [[maybe_unused]] auto n = ::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::close(log);
}

ChildProcess::~ChildProcess() {
  if (running()) {
    ::kill(pid_, SIGKILL);
    wait(std::chrono::seconds{10});
  }
}

void ChildProcess::signal(int sig) {
  if (!status_)
    ::kill(pid_, sig);
}

std::optional<ExitStatus> ChildProcess::wait(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!status_) {
    int raw = 0;
    pid_t r = ::waitpid(pid_, &raw, WNOHANG);
    if (r == pid_) {
      ExitStatus s;
      s.exited = WIFEXITED(raw);
      s.code = s.exited ? WEXITSTATUS(raw) : -1;
      s.signaled = WIFSIGNALED(raw);
      s.signal = s.signaled ? WTERMSIG(raw) : 0;
      status_ = s;
      break;
    }
    if (r < 0 && errno != EINTR) {
      status_ = ExitStatus{}; // not our child any more: treat as gone
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds{20});
  }
  return status_;
}

bool ChildProcess::running() { return !wait(std::chrono::milliseconds{0}).has_value(); }

long ChildProcess::rss_kib() const {
  if (status_)
    return -1;
  std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

std::string ChildProcess::output() const { return read_file(log_path_); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string weir_binary() {
  const char* bin = std::getenv("WEIR_BIN");
  BOOST_REQUIRE_MESSAGE(bin && *bin, "WEIR_BIN is not set: run this suite through meson test "
                                     "(tests/integration/meson.build sets it to the weir binary)");
  BOOST_REQUIRE_MESSAGE(::access(bin, X_OK) == 0, "WEIR_BIN=" << bin << " is not executable");
  return bin;
}

bool current_test_failing() {
  namespace ut = boost::unit_test;
  if (std::uncaught_exceptions() > 0)
    return true;
  auto id = ut::framework::current_test_case().p_id;
  return ut::results_collector.results(id).p_assertions_failed > 0;
}

TempDir::TempDir(const std::string& prefix) {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string{base && *base ? base : "/tmp"} + "/" + prefix + "-XXXXXX";
  if (!::mkdtemp(templ.data()))
    throw std::runtime_error("mkdtemp " + templ + ": " + std::strerror(errno));
  path_ = templ;
}

TempDir::~TempDir() {
  if (keep_) {
    BOOST_TEST_MESSAGE("kept test files in " << path_);
    return;
  }
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

} // namespace weir::testing
