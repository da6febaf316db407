#include <cstdio>

#include <CLI/CLI.hpp>
#include <caf/config.hpp>
#include <librdkafka/rdkafka.h>
#include <simdjson.h>
#include <sqlite3.h>

#include "cli/commands.hpp"

namespace weir::cli {

Runner add_version(CLI::App& app) {
  app.add_subcommand("version", "Print weir's version and the versions of its libraries");
  return [] {
    std::printf("weir %s\n", WEIR_VERSION);
    std::printf("CAF %d.%d.%d\n", CAF_MAJOR_VERSION, CAF_MINOR_VERSION, CAF_PATCH_VERSION);
    std::printf("librdkafka %s\n", rd_kafka_version_str());
    std::printf("simdjson %d.%d.%d\n", simdjson::SIMDJSON_VERSION_MAJOR,
                simdjson::SIMDJSON_VERSION_MINOR, simdjson::SIMDJSON_VERSION_REVISION);
    std::printf("SQLite %s\n", sqlite3_libversion());
    return 0;
  };
}

} // namespace weir::cli
