// `weir shell [--url URL] [--token TOKEN] [--cacert FILE] [--cert FILE --key FILE]
// [-c COMMAND]`: the admin shell. This file is the terminal side (libedit line
// editing, history, completion, top's redraw); the commands themselves are in
// shell_commands.cpp. docs/shell.md.
#include <fcntl.h>
#include <poll.h>
#include <termios.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <clocale>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <editline/readline.h>

#include "cli/commands.hpp"
#include "cli/shell_commands.hpp"

namespace weir::cli {

namespace {

using shell::RestClient;
using shell::Session;
using shell::ShellError;

struct ShellOptions {
  std::string url = "http://127.0.0.1:8083";
  std::string token;
  shell::TlsFiles tls;
  std::string command;
};

bool is_quit(const std::string& line) {
  auto words = shell::split_words(line);
  return words.size() == 1 && (words[0] == "quit" || words[0] == "exit");
}

// --- top on a terminal: redraw every second until q (or Ctrl-C, Ctrl-D)

/// The terminal in non-canonical mode without echo or signals, restored on exit.
class KeyMode {
public:
  KeyMode() : active_(::tcgetattr(STDIN_FILENO, &saved_) == 0) {
    if (!active_) return;
    termios raw = saved_;
    raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO | ISIG));
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    ::tcsetattr(STDIN_FILENO, TCSANOW, &raw);
  }
  ~KeyMode() {
    if (active_) ::tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
  }
  KeyMode(const KeyMode&) = delete;
  KeyMode& operator=(const KeyMode&) = delete;

private:
  termios saved_{};
  bool active_;
};

/// Waits up to `wait` for a key; true if it asks to quit.
bool quit_key(std::chrono::milliseconds wait) {
  auto until = std::chrono::steady_clock::now() + wait;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{STDIN_FILENO, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
    char key = 0;
    if (::read(STDIN_FILENO, &key, 1) != 1) return true; // end of input
    if (key == 'q' || key == 'Q' || key == 3 || key == 4) return true;
  }
}

void live_top(const std::string& url, const std::function<std::string()>& render) {
  KeyMode keys;
  do {
    std::string table;
    try {
      table = render();
    } catch (const std::exception& e) {
      table = std::string{"error: "} + e.what() + "\n";
    }
    std::time_t now = std::time(nullptr);
    char clock[16];
    std::strftime(clock, sizeof clock, "%H:%M:%S", std::localtime(&now));
    std::cout << "\033[H\033[2J" << "weir top  " << url << "  " << clock << "  (q quits)\n\n"
              << table << std::flush;
  } while (!quit_key(std::chrono::milliseconds(1000)));
}

// --- Ctrl-C: it cancels the half-typed line or the running command, as in every
// shell; Ctrl-D or `exit` leaves.
//
// With libedit's own signal handling off (rl_catch_signals = 0) and SIGINT caught
// without SA_RESTART, readline() returns at once when Ctrl-C interrupts its read;
// the flag tells that from end of input. A command runs with a watcher thread that
// cancels the client's request in flight when a byte arrives on the self-pipe.

volatile std::sig_atomic_t interrupted = 0;
int interrupt_pipe[2] = {-1, -1};

extern "C" void on_interrupt(int) {
  int saved = errno;
  interrupted = 1;
  char byte = 1;
  [[maybe_unused]] auto n = ::write(interrupt_pipe[1], &byte, 1); // full pipe: one is enough
  errno = saved;
}

void catch_interrupts() {
  if (::pipe2(interrupt_pipe, O_CLOEXEC | O_NONBLOCK) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0; // no SA_RESTART: a blocked read returns
  ::sigaction(SIGINT, &action, nullptr);
  rl_catch_signals = 0;
}

// One byte of the terminal, or -1 at its end or once Ctrl-C was pressed.
int read_byte(int fd) {
  for (;;) {
    pollfd fds[2] = {{fd, POLLIN, 0}, {interrupt_pipe[0], POLLIN, 0}};
    int ready = ::poll(fds, 2, -1);
    if (interrupted || (ready > 0 && (fds[1].revents & POLLIN))) {
      interrupted = 1;
      return -1;
    }
    if (ready < 0 && errno != EINTR) return -1;
    if (ready <= 0 || !(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    unsigned char byte;
    ssize_t n = ::read(fd, &byte, 1);
    if (n == 1) return byte;
    if (n == 0 || errno != EINTR) return -1;
  }
}

// libedit reads keys through this (rl_getc_function). A Ctrl-C pressed before
// libedit's own read began does not interrupt that read, which then waited for the
// next key with the line still shown; here the signal's byte on the self-pipe ends
// the read whenever it came. libedit takes the result as one character, so UTF-8 is
// decoded here (a lead byte followed by a non-continuation byte reads as U+FFFD).
extern "C" int read_key(FILE* in) {
  const int fd = ::fileno(in);
  int lead = read_byte(fd);
  if (lead < 0xC0 || lead >= 0xF8) return lead;
  const int more = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : 1;
  int code = lead & (0x3F >> more);
  for (int i = 0; i < more; ++i) {
    int next = read_byte(fd);
    if (next < 0) return -1;
    if ((next & 0xC0) != 0x80) return 0xFFFD;
    code = (code << 6) | (next & 0x3F);
  }
  return code;
}

/// Forgets Ctrl-Cs already handled, so they do not cancel the next command.
void clear_interrupts() {
  char buffer[64];
  while (::read(interrupt_pipe[0], buffer, sizeof buffer) > 0) {
  }
  interrupted = 0;
}

/// Runs one command line; Ctrl-C meanwhile cancels it ("error: cancelled").
void run_cancellable(const std::string& line, Session& session, RestClient& client) {
  int done[2];
  if (::pipe2(done, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  std::thread watcher([&] {
    bool cancelling = false;
    for (;;) {
      pollfd fds[2] = {{done[0], POLLIN, 0}, {interrupt_pipe[0], POLLIN, 0}};
      if (::poll(fds, cancelling ? 1 : 2, cancelling ? 100 : -1) < 0 && errno != EINTR) return;
      if (fds[0].revents & POLLIN) return;
      if (fds[1].revents & POLLIN) cancelling = true;
      // Once cancelling, again every 100 ms: a request that was just starting is caught too.
      if (cancelling) client.cancel();
    }
  });
  shell::run_line(line, session);
  char byte = 1;
  [[maybe_unused]] auto n = ::write(done[1], &byte, 1);
  watcher.join();
  ::close(done[0]);
  ::close(done[1]);
  client.resume();
  clear_interrupts();
}

// --- the interactive loop (libedit's readline interface)

shell::CompletionSource* completion_source = nullptr;
std::vector<std::string> completion_matches;

char* next_match(const char*, int state) {
  static size_t index = 0;
  if (state == 0) index = 0;
  if (index >= completion_matches.size()) return nullptr;
  return ::strdup(completion_matches[index++].c_str());
}

char** complete_line(const char* text, int, int) {
  std::string before{rl_line_buffer, static_cast<size_t>(rl_point)};
  auto words = shell::split_words(before.find_first_of("'\"") == std::string::npos ? before : "");
  bool typing_file = !words.empty() && words[0] == "create" &&
                     (words.size() == 1 ? std::isspace(static_cast<unsigned char>(before.back())) != 0
                                        : words.size() == 2 && !std::isspace(static_cast<unsigned char>(before.back())));
  rl_attempted_completion_over = typing_file ? 0 : 1; // create FILE: libedit's file names
  if (typing_file) return nullptr;
  completion_matches = shell::complete(before, *completion_source);
  if (completion_matches.empty()) return nullptr;
  return rl_completion_matches(text, next_match);
}

std::string history_file() {
  const char* home = std::getenv("HOME");
  return home && *home ? std::string{home} + "/.weir_history" : std::string{};
}

int interactive(Session& session, RestClient& client) {
  // Before any libedit call (its history functions initialise it): libedit reads
  // UTF-8 input as characters only if the locale says UTF-8 when it starts.
  std::setlocale(LC_CTYPE, "");
  rl_getc_function = read_key;
  shell::CompletionSource source = shell::rest_completion(client);
  completion_source = &source;
  rl_readline_name = "weir"; // ~/.editrc settings under "weir:"
  rl_attempted_completion_function = complete_line;
  std::string history = history_file();
  stifle_history(1000);
  if (!history.empty()) read_history(history.c_str());

  catch_interrupts();
  std::cout << "weir shell at " << client.url()
            << ": 'help' lists the commands, Ctrl-C cancels, Ctrl-D or 'quit' leaves\n";
  for (;;) {
    clear_interrupts();
    char* input = readline("weir> ");
    if (interrupted) { // Ctrl-C: the half-typed line is dropped
      std::free(input);
      std::cout << "^C" << std::endl;
      continue;
    }
    if (!input) break; // Ctrl-D
    std::string line{input};
    std::free(input);
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    add_history(line.c_str());
    if (!history.empty()) write_history(history.c_str());
    try {
      if (is_quit(line)) break;
    } catch (const ShellError&) {
      // an open quote: run_line reports it
    }
    run_cancellable(line, session, client);
  }
  std::cout << '\n';
  return 0;
}

int run_shell(const ShellOptions& options) {
  std::string token = options.token;
  if (token.empty())
    if (const char* env = std::getenv("WEIR_TOKEN")) token = env;
  std::unique_ptr<RestClient> client;
  try {
    client = std::make_unique<RestClient>(options.url, token, options.tls);
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << std::endl;
    return 1;
  }
  Session session{*client, std::cout, std::cerr, {}};
  if (!options.command.empty()) return shell::run_line(options.command, session) ? 0 : 1;
  if (!::isatty(STDIN_FILENO)) {
    // A script on stdin: every line a command; the exit code says whether all passed.
    bool all = true;
    for (std::string line; std::getline(std::cin, line);) {
      if (line.find_first_not_of(" \t") == std::string::npos || line[line.find_first_not_of(" \t")] == '#')
        continue;
      all = shell::run_line(line, session) && all;
    }
    return all ? 0 : 1;
  }
  if (::isatty(STDOUT_FILENO))
    session.live_top = [url = client->url()](const std::function<std::string()>& render) { live_top(url, render); };
  return interactive(session, *client);
}

} // namespace

Runner add_shell(CLI::App& app) {
  auto options = std::make_shared<ShellOptions>();
  auto* sub = app.add_subcommand("shell", "Admin shell for a running weir: actor tree, top, taps, connectors");
  sub->add_option("--url", options->url, "the node's REST listener")->capture_default_str();
  sub->add_option("--token", options->token, "bearer token for the REST API (default: $WEIR_TOKEN)");
  sub->add_option("--cacert", options->tls.cacert, "https: PEM file of the CAs that signed the listener's certificate");
  sub->add_option("--cert", options->tls.cert, "https: PEM file of the client certificate the listener asks for");
  sub->add_option("--key", options->tls.key, "https: PEM file of that certificate's private key");
  sub->add_option("-c,--command", options->command, "run one command and exit: 0 if it succeeded, 1 if not");
  return [options] { return run_shell(*options); };
}

} // namespace weir::cli
