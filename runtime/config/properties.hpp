// Java .properties files (java.util.Properties.load), the format of Kafka Connect's
// worker and standalone connector configs, so existing files load unchanged.
//
// One deviation: Java reads an InputStream as ISO-8859-1; weir passes bytes through,
// so a file is read as UTF-8 (and \uXXXX escapes are encoded as UTF-8).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace weir::runtime {

/// Parses properties text: `#`/`!` comments, `=`, `:` or whitespace separators,
/// backslash continuations, escapes (\t \n \r \f \\ \uXXXX, and `\=` `\:` `\ ` in
/// keys). A later duplicate key wins. Throws weir::ConfigError on a malformed \u.
std::map<std::string, std::string> load_properties(std::string_view text);

/// Reads and parses a properties file; errors (unreadable file, malformed escape)
/// throw weir::ConfigError naming the file.
std::map<std::string, std::string> load_properties_file(const std::filesystem::path& path);

/// Whole-file read shared by the loaders; throws weir::ConfigError naming the file.
std::string read_config_file(const std::filesystem::path& path);

} // namespace weir::runtime
