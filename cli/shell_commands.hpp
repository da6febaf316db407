// The commands of `weir shell`, apart from the terminal (cli/shell.cpp): each one is
// a few REST calls to a weir node (or a Kafka Connect worker, for the Kafka Connect
// commands) and text written to a stream, so tests run them against a REST server
// over a fake herder. CAF-free. docs/shell.md describes every command.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/shell_client.hpp"

namespace weir::cli::shell {

/// Where a command writes, and how `top` refreshes when run on a terminal.
struct Session {
  RestClient& client;
  std::ostream& out; ///< the command's output: tables, JSON lines
  std::ostream& err; ///< notes that are not output (a tap that saw no records)
  /// When set (an interactive terminal), `top` hands it a function that renders
  /// one table; it redraws until the user quits. Unset: `top` prints one table.
  std::function<void(const std::function<std::string()>& render)> live_top;
};

/// Splits a command line into words: blanks separate, '…' and "…" quote, a
/// backslash escapes the next character. Throws ShellError on an open quote.
std::vector<std::string> split_words(std::string_view line);

/// Runs one command (`words` as split_words gives them; empty does nothing).
/// Throws ShellError for an unknown command, a wrong argument count (with the
/// usage), an unreachable node or an HTTP error.
void run_command(const std::vector<std::string>& words, Session& session);

/// Splits and runs one line; a failure is written to `session.err` as one line,
/// "error: …", and answered false. Never throws.
bool run_line(std::string_view line, Session& session);

/// Every command name, for completion and `help`.
std::vector<std::string> command_names();

/// What can complete the word being typed.
struct CompletionSource {
  std::function<std::vector<std::string>()> connectors;
  std::function<std::vector<std::string>(const std::string& connector)> tasks;
  std::function<std::vector<std::string>(const std::string& connector, const std::string& task)> stages;
};
/// Candidates for the last (possibly empty) word of `line`, the text before the
/// cursor: command names first, then connectors, tap's tasks and stages.
std::vector<std::string> complete(std::string_view line, const CompletionSource& source);
/// A CompletionSource asking `client` (GET /connectors, GET /weir/tree/{name});
/// a failed request completes nothing.
CompletionSource rest_completion(RestClient& client);

// The renderings of GET /weir/tree, exposed for tests.
/// `tree`: node → connector → task → stage lines, indented two spaces a level.
std::string render_tree(const std::string& tree_json);
/// `top`: one row per stage with rates, mailbox, credit, in-flight, CPU, lag, errors.
std::string render_top(const std::string& tree_json);

} // namespace weir::cli::shell
