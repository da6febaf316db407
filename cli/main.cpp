// weir: a native, Kafka Connect-compatible streaming engine on CAF.
#include <malloc.h>

#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  // A pipeline's batches are buffers of a few hundred KB, allocated on a consumer's
  // thread and freed on a writer's. glibc raises its mmap threshold to the size of a
  // freed mmapped block, so after the first batches they come from the threads' heaps,
  // whose freed memory stays resident: ~15 MB more peak RSS at tasks.max=2 (66-68 MB
  // against 73-89 MB, bench/results/profile.md). A fixed threshold keeps large blocks
  // mmapped, returned to the system when freed.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
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
    std::fprintf(stderr, "weir: %s\n", e.what());
    return 1;
  }
  return 1;
}
