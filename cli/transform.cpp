// `weir transform --config FILE [--input FILE|-]`: an SMT chain run offline over
// JSON lines, so users test their chains without Kafka.
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/offline_transform.hpp"

namespace weir::cli {

Runner add_transform(CLI::App& app) {
  struct Options {
    std::string config;
    std::string input = "-";
  };
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
    "transform", "Run converters and an SMT chain offline over JSON lines (stdin or --input)");
  sub->add_option("--config", opt->config, "Kafka Connect-style properties with transforms=...")
    ->required();
  sub->add_option("--input", opt->input, "JSON lines file, or - for standard input")
    ->capture_default_str();
  return [opt] {
    if (opt->input == "-")
      return run_offline_transform(opt->config, std::cin, std::cout, std::cerr);
    std::ifstream in{opt->input};
    if (!in) {
      std::cerr << "weir transform: cannot read input file " << opt->input << "\n";
      return offline_config_error;
    }
    return run_offline_transform(opt->config, in, std::cout, std::cerr);
  };
}

} // namespace weir::cli
