// Kafka's FieldSyntaxVersion and SingleFieldPath (KIP-821): how an SMT's `field`
// names a field.
//
//   V1 (the default): the whole text is one top-level field name.
//   V2: dotted steps into nested structs/maps; a step holding dots is wrapped in
//       backticks (`a.b`.c is the field "c" of the field "a.b"); a backtick that is
//       part of a wrapped name is escaped with a backslash.
//
// Lookups follow Kafka: a missing step yields null (schemaless) or no field
// (schema'd); stepping into a value that is not a map/struct is a record error.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/schema.hpp"
#include "weir/config.hpp"

namespace weir::transforms {

enum class FieldSyntaxVersion { V1, V2 };

/// Declares `field.syntax.version` (V1 | V2, case-insensitive, default V1).
void define_field_syntax_version(ConfigDef& def);
FieldSyntaxVersion field_syntax_version(const Config& config);

class FieldPath {
public:
  /// Parses `text`; an incomplete backtick pair (V2) throws ConfigError naming
  /// `key` with Kafka's message.
  FieldPath(std::string_view text, FieldSyntaxVersion version, std::string_view key);

  const std::string& text() const noexcept { return text_; }
  const std::vector<std::string>& steps() const noexcept { return steps_; }
  bool nested() const noexcept { return steps_.size() > 1; }

  /// SingleFieldPath.fieldFrom: the field at the path, nullptr if a step is missing.
  /// Throws DataError when a step looks into a schema that is not a struct.
  const runtime::data::Field* field_from(const runtime::data::Schema& schema) const;

  /// valueFrom(Map): the value at the path in a schemaless map, null when a step is
  /// missing or null; throws DataError when an inner step is not a map.
  runtime::data::Value value_from_map(const runtime::data::Value& map) const;

  /// valueFrom(Struct, withDefault): inner steps read with defaults (Struct.get);
  /// the last one with its default only when `replace_null_with_default`.
  runtime::data::Value value_from_struct(const runtime::data::Value& structure,
                                         runtime::data::Arena& arena,
                                         bool replace_null_with_default) const;

  /// The V2 steps of `path`; throws ConfigError(key) for an incomplete backtick pair.
  static std::vector<std::string> parse_v2(std::string_view path, std::string_view key);

private:
  std::string text_;
  std::vector<std::string> steps_;
};

} // namespace weir::transforms
