// The `weir` subcommands. Each registers its options on a CLI11 subcommand and
// returns the process exit code when run.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace weir::cli {

/// Exit code of a subcommand that exists but is not implemented yet.
inline constexpr int not_implemented = 2;

using Runner = std::function<int()>;

Runner add_version(CLI::App& app);
Runner add_node(CLI::App& app);
Runner add_demo(CLI::App& app);
Runner add_standalone(CLI::App& app);
Runner add_transform(CLI::App& app);
Runner add_shell(CLI::App& app);

} // namespace weir::cli
