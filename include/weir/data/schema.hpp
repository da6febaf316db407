// Kafka Connect schemas: immutable, shared, built with SchemaBuilder.
//
// A schema is created once (by a converter from a schema it has not seen, or by an
// SMT deriving an output schema) and then shared through SchemaPtr. Components that
// derive a schema cache the result per input schema (SchemaCache), as Kafka Connect
// does, so steady state builds no schemas. Within one process, equal schemas coming
// from one converter are the same object, which makes the caches pointer lookups.
//
// Threading: a built Schema is immutable and may be shared between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weir/data/value.hpp"

namespace weir::data {

enum class Type : uint8_t {
  Int8, Int16, Int32, Int64, Float32, Float64, Boolean, String, Bytes, Array, Map, Struct
};

/// Kafka's Schema.Type name (`INT32`, `FLOAT64`, ...), used in messages.
std::string_view to_string(Type type) noexcept;
/// The JsonConverter's type name (`int32`, `float`, `double`, ...).
std::string_view json_name(Type type) noexcept;
std::optional<Type> type_from_json_name(std::string_view name) noexcept;
/// The value kind that carries a type's values.
Kind kind_of(Type type) noexcept;

/// Logical types Connect defines, recognised by schema name.
enum class Logical : uint8_t { None, Decimal, Date, Time, Timestamp };

namespace logical_names {
inline constexpr std::string_view decimal = "org.apache.kafka.connect.data.Decimal";
inline constexpr std::string_view date = "org.apache.kafka.connect.data.Date";
inline constexpr std::string_view time = "org.apache.kafka.connect.data.Time";
inline constexpr std::string_view timestamp = "org.apache.kafka.connect.data.Timestamp";
inline constexpr std::string_view decimal_scale = "scale";
} // namespace logical_names

class Schema;
using SchemaPtr = std::shared_ptr<const Schema>;

struct Field {
  std::string name;
  uint32_t index = 0;
  SchemaPtr schema;
};

class Schema : public std::enable_shared_from_this<Schema> {
public:
  Type type() const noexcept { return type_; }
  bool optional() const noexcept { return optional_; }
  const std::optional<std::string>& name() const noexcept { return name_; }
  const std::optional<int32_t>& version() const noexcept { return version_; }
  const std::optional<std::string>& doc() const noexcept { return doc_; }
  /// Parameters in insertion order; std::nullopt when none were ever set.
  const std::optional<std::vector<std::pair<std::string, std::string>>>& parameters() const noexcept {
    return parameters_;
  }
  const std::string* parameter(std::string_view key) const noexcept;
  /// The default value (its memory belongs to the schema; deep_copy it into a batch
  /// arena before putting it into a record).
  const Value* default_value() const noexcept { return has_default_ ? &default_ : nullptr; }

  /// Struct fields in order (empty for other types).
  const std::vector<Field>& fields() const noexcept { return fields_; }
  const Field* field(std::string_view name) const noexcept;
  /// Map keys; array and map values.
  const SchemaPtr& key_schema() const noexcept { return key_schema_; }
  const SchemaPtr& value_schema() const noexcept { return value_schema_; }

  Logical logical() const noexcept { return logical_; }
  /// Decimal's `scale` parameter (0 when absent or not a decimal).
  int32_t decimal_scale() const noexcept { return scale_; }

  /// Kafka's ConnectSchema.equals: every attribute, fields and default, deeply.
  bool equals(const Schema& other) const noexcept;
  /// For messages: `Schema{STRUCT}` or `Schema{name:INT64}` as Kafka prints it.
  std::string describe() const;

private:
  friend class SchemaBuilder;
  Schema() = default;

  Type type_ = Type::Struct;
  bool optional_ = false;
  bool has_default_ = false;
  Logical logical_ = Logical::None;
  int32_t scale_ = 0;
  std::optional<std::string> name_;
  std::optional<int32_t> version_;
  std::optional<std::string> doc_;
  std::optional<std::vector<std::pair<std::string, std::string>>> parameters_;
  Value default_;
  std::unique_ptr<Arena> default_arena_; ///< owns default_'s tree
  std::vector<Field> fields_;
  SchemaPtr key_schema_;
  SchemaPtr value_schema_;
};

/// Builds a schema (Kafka's SchemaBuilder). Errors (a field on a non-struct, a
/// duplicate field, a default of the wrong kind) throw DataError.
class SchemaBuilder {
public:
  explicit SchemaBuilder(Type type);
  static SchemaBuilder struct_() { return SchemaBuilder(Type::Struct); }
  static SchemaBuilder array(SchemaPtr value_schema);
  static SchemaBuilder map(SchemaPtr key_schema, SchemaPtr value_schema);
  /// SchemaUtil.copySchemaBasics: a builder of `type` with `source`'s name, version,
  /// doc and parameters (not optionality, not the default).
  static SchemaBuilder copy_basics(const Schema& source, Type type);
  /// Logical types.
  static SchemaBuilder decimal(int32_t scale);
  static SchemaBuilder date();
  static SchemaBuilder time();
  static SchemaBuilder timestamp();

  Type type() const noexcept { return type_; }
  SchemaBuilder& optional(bool optional = true) { optional_ = optional; return *this; }
  SchemaBuilder& required() { return optional(false); }
  SchemaBuilder& name(std::string name) { name_ = std::move(name); return *this; }
  SchemaBuilder& version(int32_t version) { version_ = version; return *this; }
  SchemaBuilder& doc(std::string doc) { doc_ = std::move(doc); return *this; }
  SchemaBuilder& parameter(std::string key, std::string value);
  /// Sets the default (deep-copied into the schema).
  SchemaBuilder& default_value(const Value& v);
  SchemaBuilder& field(std::string name, SchemaPtr schema);
  bool has_field(std::string_view name) const noexcept;

  SchemaPtr build();

private:
  Type type_;
  bool optional_ = false;
  std::optional<std::string> name_;
  std::optional<int32_t> version_;
  std::optional<std::string> doc_;
  std::optional<std::vector<std::pair<std::string, std::string>>> parameters_;
  std::optional<Value> default_;
  std::shared_ptr<Arena> default_arena_; ///< shared by copies of the builder
  std::vector<Field> fields_;
  SchemaPtr key_schema_;
  SchemaPtr value_schema_;
};

/// Shared instances of the common schemas (Kafka's Schema.INT32_SCHEMA, ...).
namespace schemas {
const SchemaPtr& of(Type type, bool optional = false); ///< primitive types only
const SchemaPtr& string();
const SchemaPtr& optional_string();
const SchemaPtr& int32();
const SchemaPtr& optional_int32();
const SchemaPtr& int64();
const SchemaPtr& optional_int64();
const SchemaPtr& timestamp();
const SchemaPtr& optional_timestamp();
} // namespace schemas

/// Input schema -> derived schema, as SMTs keep them (Kafka's LRUCache of 16, but
/// keyed by identity: one converter yields one object per distinct schema). The
/// cache holds both schemas, so a key's address is never reused while cached.
class SchemaCache {
public:
  explicit SchemaCache(size_t capacity = 16) : capacity_(capacity) {}

  /// The cached output for `input`, or nullptr.
  const SchemaPtr* find(const Schema* input) const noexcept {
    for (const auto& e : entries_)
      if (e.first.get() == input)
        return &e.second;
    return nullptr;
  }
  /// Derives with `make(const Schema&)` on a miss; evicts the oldest when full.
  template <class Make>
  const SchemaPtr& get(const Schema& input, Make&& make) {
    if (!entries_.empty() && entries_.back().first.get() == &input)
      return entries_.back().second;
    if (const auto* hit = find(&input))
      return *hit;
    auto out = make(input);
    if (entries_.size() >= capacity_)
      entries_.erase(entries_.begin());
    entries_.emplace_back(input.shared_from_this(), std::move(out));
    return entries_.back().second;
  }

private:
  size_t capacity_;
  std::vector<std::pair<SchemaPtr, SchemaPtr>> entries_;
};

/// Field value with Kafka's Struct.get semantics: a null field of a schema with a
/// default yields the default (deep-copied into `arena`) when `replace_null_with_default`.
Value field_value(const Value& structure, const Field& field, Arena& arena,
                  bool replace_null_with_default);

/// Checks `v` against `schema` (ConnectSchema.validateValue); throws DataError.
void validate_value(const Schema& schema, const Value& v, std::string_view what = "value");

} // namespace weir::data
