// `weir transform --config FILE [--input FILE|-] [--plugin-path DIR]...`: an SMT
// chain run offline over JSON lines, so users test their chains (plugin SMTs and
// predicates too) without Kafka.
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "cli/offline_transform.hpp"
#include "engine/connector_registry.hpp"
#include "engine/plugins/loader.hpp"

namespace weir::cli {

Runner add_transform(CLI::App& app) {
  struct Options {
    std::string config;
    std::string input = "-";
    std::vector<std::string> plugin_path;
  };
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
    "transform", "Run converters and an SMT chain offline over JSON lines (stdin or --input)");
  sub->add_option("--config", opt->config, "Kafka Connect-style properties with transforms=...")
    ->required();
  sub->add_option("--input", opt->input, "JSON lines file, or - for standard input")
    ->capture_default_str();
  sub->add_option("--plugin-path", opt->plugin_path,
                  "Directory of plugin shared libraries, as the worker's plugin.path (repeatable)")
    ->delimiter(',');
  return [opt] {
    // Standard output carries the transformed records only: log lines go to stderr.
    spdlog::set_default_logger(spdlog::stderr_color_st("weir-transform"));
    try {
      engine::plugins::load_plugins(opt->plugin_path);
    } catch (const engine::plugins::PluginError& e) {
      std::cerr << "weir transform: " << e.what() << "\n";
      return offline_config_error;
    }
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
