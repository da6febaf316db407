// weir: a native, Kafka Connect-compatible streaming engine on CAF.
#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "runtime/config/secrets.hpp"


int main(int argc, char** argv) {
  CLI::App app{"weir: a native, Kafka Connect-compatible streaming engine on actors"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string{"weir "} + WEIR_VERSION);

  std::map<std::string, weir::cli::Runner> runners{
    {"standalone", weir::cli::add_standalone(app)},
    {"node", weir::cli::add_node(app)},
    {"shell", weir::cli::add_shell(app)},
    {"transform", weir::cli::add_transform(app)},
    {"demo", weir::cli::add_demo(app)},
    {"version", weir::cli::add_version(app)},
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    for (auto& [name, run] : runners)
      if (app.got_subcommand(name))
        return run();
  } catch (const std::exception& e) {
    // Redacted as log lines are: a value a config provider gave, a URL's password.
    std::fprintf(stderr, "weir: %s\n", weir::runtime::redact_log_line(e.what()).c_str());
    return 1;
  }
  return 1;
}
