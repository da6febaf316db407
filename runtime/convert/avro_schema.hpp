// Avro schemas <-> Connect schemas, as Confluent's AvroData maps them.
//
// Reading (toConnectSchema): a writer's schema text from the registry is checked with
// Avro C (avro_schema_from_json) and turned into an avro::Node tree, each node holding
// the Connect schema its values decode to; the binary decoder (avro_binary.hpp) walks
// that tree. Records -> structs, enums -> strings with `io.confluent.connect.avro.Enum`
// parameters, fixed -> bytes (`connect.fixed.size`), ["null", T] -> optional T, other
// unions -> an `io.confluent.connect.avro.Union` struct with one optional field per
// branch, arrays of MapEntry records -> maps, the logical types and `connect.*`
// properties -> Connect's logical types, names, versions, docs, parameters and
// defaults (field defaults too, except struct-valued ones).
//
// Writing (fromConnectSchema): the Avro schema JSON Confluent's converter registers,
// byte for byte where weir knows Avro Java's output: key order, namespaces written only
// where they change, `ConnectDefault` names, `connect.*` properties. Names Avro refuses
// are scrubbed or refused (WriteOptions::scrub_invalid_names); strings with Enum
// parameters become Avro enums with WriteOptions::enhanced_schema_support; named bytes
// with `connect.fixed.size` become Avro fixed (fixed_size()).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/data/schema.hpp"

namespace weir::runtime::convert::avro {

inline constexpr std::string_view connect_namespace = "io.confluent.connect.avro";
inline constexpr std::string_view union_struct_name = "io.confluent.connect.avro.Union";
inline constexpr std::string_view enum_parameter = "io.confluent.connect.avro.Enum";
// Names AvroData uses on both sides of the mapping.
inline constexpr std::string_view default_name = "ConnectDefault";
inline constexpr std::string_view map_entry_name = "MapEntry";
inline constexpr std::string_view record_doc_parameter = "io.confluent.connect.avro.record.doc";
inline constexpr std::string_view field_doc_prefix = "io.confluent.connect.avro.field.doc.";
inline constexpr std::string_view enum_doc_prefix = "io.confluent.connect.avro.enum.doc.";
inline constexpr std::string_view enum_default_prefix = "io.confluent.connect.avro.enum.default.";
inline constexpr std::string_view precision_parameter = "connect.decimal.precision";
/// Set on a Connect schema whose default came from an Avro field default: written back
/// as that field's default only, not as connect.default nor among connect.parameters.
inline constexpr std::string_view field_default_parameter = "io.confluent.connect.avro.field.default";
inline constexpr std::string_view fixed_size_parameter = "connect.fixed.size";
inline constexpr int32_t default_precision = 64;

/// A full name split at its last dot (an empty space: none, Java's null).
struct SplitName {
  std::string space;
  std::string name;
};
SplitName split_name(std::string_view full);

/// One node of a parsed writer's schema.
struct Node {
  enum class Type : uint8_t { Null, Boolean, Int, Long, Float, Double, Bytes, String, Record, Enum, Array, Map, Union, Fixed };
  Type type = Type::Null;
  /// Record fields, array items, map values or union branches, in order.
  std::vector<const Node*> children;
  std::vector<std::string> symbols; ///< enum
  int32_t fixed_size = 0;
  bool map_entries = false;         ///< an array of MapEntry records, decoded as a Connect map
  bool union_struct = false;        ///< a union decoded as an io.confluent.connect.avro.Union struct
  std::vector<int32_t> union_field; ///< union branch -> Union struct field (-1 for null)
  /// Record: whether each field has an Avro default (its Connect schema may not carry
  /// it: AvroData drops the default of a [null, T] field and of a record-valued one).
  std::vector<bool> field_defaults;
  data::SchemaPtr connect;          ///< what values of this node decode to
};

/// A writer's schema, parsed once per registry id.
class ParsedSchema {
public:
  /// Throws data::DataError naming what Avro C or the mapping refuses.
  /// `connect_meta_data`: read connect.doc, connect.parameters and the docs.
  /// `registry_version`: the Connect version of the top-level schema when it has no
  /// connect.version (what AvroConverter does with the subject's version).
  /// `full_union_names` (enhanced.avro.schema.support): a Union struct names a record,
  /// enum or fixed branch by its full name, namespace included, not its simple name.
  static std::shared_ptr<const ParsedSchema> parse(std::string_view json, bool connect_meta_data = true,
                                                   std::optional<int32_t> registry_version = std::nullopt,
                                                   bool full_union_names = false);

  const Node& root() const noexcept { return *root_; }
  const data::SchemaPtr& connect() const noexcept { return root_->connect; }
  /// The top-level record's full name (or the type's name): RecordNameStrategy's subject.
  const std::string& record_name() const noexcept { return record_name_; }

  struct Builder;

private:
  std::vector<std::unique_ptr<Node>> nodes_;
  const Node* root_ = nullptr;
  std::string record_name_;
};

struct WriteOptions {
  bool connect_meta_data = true; ///< connect.meta.data: write connect.* properties
  /// scrub.invalid.names: rewrite names Avro refuses (scrub_name) instead of refusing them.
  bool scrub_invalid_names = false;
  /// enhanced.avro.schema.support: a string with io.confluent.connect.avro.Enum
  /// parameters is written as the Avro enum it came from.
  bool enhanced_schema_support = false;
};

/// AvroData.doScrubName: `name` unchanged when it is a valid ASCII Avro name, else
/// URL-encoded (UTF-8, a space as '+') with every character other than [A-Za-z0-9_]
/// then replaced by '_', and an "x" in front when it would start with a digit.
std::string scrub_name(std::string_view name);

/// AvroData.isFixedSchema: a named bytes schema with the `connect.fixed.size` parameter
/// is written as an Avro fixed of that size (its name and namespace the Connect name's);
/// nullopt for any other schema. Throws DataError when the parameter is no size.
std::optional<int32_t> fixed_size(const data::Schema& schema);

/// The Avro schema JSON for `schema` (AvroData.fromConnectSchema(...).toString()).
/// Throws data::DataError for what Avro cannot express.
std::string schema_json(const data::Schema& schema, const WriteOptions& options = {});

/// What RecordNameStrategy names a subject after: the record's full name
/// (`io.confluent.connect.avro.ConnectDefault` for an unnamed struct), or the Avro
/// type name of a non-record schema.
std::string record_name(const data::Schema& schema, const WriteOptions& options = {});

} // namespace weir::runtime::convert::avro
