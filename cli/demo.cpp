#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

namespace weir::cli {

Runner add_demo(CLI::App& app) {
  app.add_subcommand("demo", "Run the quickstart pipeline on the embedded Kafka");
  return [] { return 0; };
}

} // namespace weir::cli
