// Where a JSON text goes wrong, in words a person can act on. simdjson tells only
// *that* a document is invalid (an error code such as TAPE_ERROR, "improper
// structure"); this scan, run once simdjson has refused a text, tells where (line,
// column, byte offset) and what was expected there, as Jackson's messages do in
// Kafka Connect. It is a validating scan of RFC 8259 and nothing more: slow paths
// only (a refused REST body, a connector file at start-up), never records.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace weir::runtime {

/// The first syntax error of a JSON text.
struct JsonSyntaxError {
  size_t offset = 0; ///< bytes from the start of the text
  size_t line = 1;   ///< 1-based
  size_t column = 1; ///< 1-based, in characters (UTF-8 sequences count once)
  std::string what;  ///< e.g. "expected ',' or '}' after an object member, found 'x'"

  /// "line 3, column 14 (byte 40): expected ..."
  std::string describe() const;
};

/// The first syntax error of `text` as one JSON document (whitespace around it
/// allowed), or std::nullopt when the text is valid JSON. Nesting deeper than
/// `max_depth` is an error, as it is for simdjson.
std::optional<JsonSyntaxError> find_json_syntax_error(std::string_view text, size_t max_depth = 1024);

/// A parser's refusal of `text` made useful: the position and the expectation
/// when the scan finds the error, else `parser_reason` (e.g. simdjson's message
/// for a limit the grammar does not have).
std::string describe_json_error(std::string_view text, std::string_view parser_reason);

} // namespace weir::runtime
