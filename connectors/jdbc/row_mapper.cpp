#include "connectors/jdbc/row_mapper.hpp"

#include <algorithm>

namespace weir::connectors::jdbc {

using runtime::data::DataError;
using runtime::data::DecodedRecord;
using runtime::data::Kind;
using runtime::data::Logical;
using runtime::data::Schema;
using runtime::data::Type;
using runtime::data::Value;
namespace schemas = runtime::data::schemas;

namespace {

bool is_primitive(Type t) noexcept { return t != Type::Array && t != Type::Map && t != Type::Struct; }
bool is_primitive(Kind k) noexcept { return k != Kind::Array && k != Kind::Map && k != Kind::Struct; }

std::string q(std::string_view s) { return "'" + std::string(s) + "'"; }

bool is_key(const Row& row, std::string_view name) noexcept {
  for (uint32_t i = 0; i < row.key_count; ++i)
    if (row.columns[i].name == name) return true;
  return false;
}

// A null key would write the row under no key at all (or, on a table without a
// PRIMARY KEY, under NULL): the record is bad, not its key column.
void push_key(Row& row, std::string_view name, Value v, const Schema* schema, std::string_view table) {
  if (v.is_null())
    throw DataError("Primary key field '" + std::string(name) + "' of table " + q(table) +
                    " is null: a record must have a value for every primary key field");
  row.columns.push_back({name, v, schema});
  row.key_count = static_cast<uint32_t>(row.columns.size());
}

// The named fields (or all, when `names` is empty) of a struct or schemaless map, as
// key columns. `what` names the side for messages ("key" or "value").
void push_key_fields(const Value& v, const Schema* schema, const std::vector<std::string>& names,
                     runtime::data::Arena& arena, std::string_view table, std::string_view mode,
                     std::string_view what, Row& row) {
  auto missing = [&](const std::string& name) {
    return DataError("PK mode for table " + q(table) + " is " + std::string(mode) +
                     " with configured PK fields, but the record " + std::string(what) +
                     " does not contain field: " + name);
  };
  if (schema) {
    if (names.empty()) {
      for (const auto& f : schema->fields())
        push_key(row, f.name, runtime::data::field_value(v, f, arena, true), f.schema.get(), table);
      return;
    }
    for (const auto& name : names) {
      const auto* f = schema->field(name);
      if (!f) throw missing(name);
      push_key(row, f->name, runtime::data::field_value(v, *f, arena, true), f->schema.get(), table);
    }
    return;
  }
  if (names.empty()) {
    for (const auto& e : v.entries()) {
      if (e.key.kind() != Kind::String)
        throw DataError("Record " + std::string(what) + " map keys must be strings to name columns, found: " +
                        std::string(to_string(e.key.kind())));
      push_key(row, e.key.as_string(), e.value, nullptr, table);
    }
    return;
  }
  for (const auto& name : names) {
    const Value* field = v.find(name);
    if (!field) throw missing(name);
    push_key(row, name, *field, nullptr, table);
  }
}

} // namespace

RowMapper::RowMapper(const JdbcSinkConfig& config)
    : config_(config), whitelist_(config.fields_whitelist),
      kafka_names_(config.pk_fields.size() == 3 ? config.pk_fields : JdbcSinkConfig::default_kafka_pk_fields()) {
  std::sort(whitelist_.begin(), whitelist_.end());
}

bool RowMapper::whitelisted(std::string_view name) const noexcept {
  return whitelist_.empty() || std::binary_search(whitelist_.begin(), whitelist_.end(), name, std::less<>{});
}

void RowMapper::map(const DecodedRecord& record, std::string_view table, runtime::data::Arena& arena,
                    bool key_only, Row& row) const {
  row.clear();
  switch (config_.pk_mode) {
    case PkMode::None:
      break;
    case PkMode::Kafka: {
      const auto& names = kafka_names_;
      push_key(row, names[0], Value::string(record.topic), schemas::string().get(), table);
      push_key(row, names[1], Value::int32(record.partition), schemas::int32().get(), table);
      push_key(row, names[2], Value::int64(record.offset), schemas::int64().get(), table);
      break;
    }
    case PkMode::RecordKey:
      add_record_key(record, table, arena, row);
      break;
    case PkMode::RecordValue:
      add_value_key(record, table, arena, row);
      break;
  }
  if (key_only) return;
  add_value_fields(record, table, arena, row);
  if (row.columns.empty())
    throw DataError("No fields found using key and value schemas for table: " + std::string(table));
}

void RowMapper::add_record_key(const DecodedRecord& record, std::string_view table,
                               runtime::data::Arena& arena, Row& row) const {
  const Value& key = record.key;
  const Schema* schema = record.key_schema;
  if (key.is_null())
    throw DataError("PK mode for table " + q(table) + " is record_key, but the record key is null");
  bool primitive = schema ? is_primitive(schema->type()) : is_primitive(key.kind());
  if (primitive) {
    if (config_.pk_fields.size() != 1)
      throw DataError("Need exactly one PK column defined since the key schema for records is a "
                      "primitive type, defined columns are: [" +
                      [&] {
                        std::string s;
                        for (const auto& f : config_.pk_fields) s += (s.empty() ? "" : ", ") + f;
                        return s;
                      }() + "]");
    push_key(row, config_.pk_fields[0], key, schema, table);
    return;
  }
  bool structured = schema ? schema->type() == Type::Struct : key.kind() == Kind::Map;
  if (!structured)
    throw DataError("Key schema must be primitive type or Struct, but is of type: " +
                    std::string(schema ? to_string(schema->type()) : to_string(key.kind())));
  push_key_fields(key, schema, config_.pk_fields, arena, table, "record_key", "key", row);
}

void RowMapper::add_value_key(const DecodedRecord& record, std::string_view table,
                              runtime::data::Arena& arena, Row& row) const {
  const Value& value = record.value;
  const Schema* schema = record.value_schema;
  if (value.is_null())
    throw DataError("PK mode for table " + q(table) + " is record_value, but the record value is null");
  if (schema ? schema->type() != Type::Struct : value.kind() != Kind::Map)
    throw DataError("PK mode for table " + q(table) + " is record_value, so the record value must be a " +
                    (schema ? "Struct, but its schema is of type: " + std::string(to_string(schema->type()))
                            : "map (a JSON object), but is: " + std::string(to_string(value.kind()))));
  push_key_fields(value, schema, config_.pk_fields, arena, table, "record_value", "value", row);
}

void RowMapper::add_value_fields(const DecodedRecord& record, std::string_view table,
                                 runtime::data::Arena& arena, Row& row) const {
  const Value& value = record.value;
  const Schema* schema = record.value_schema;
  if (value.is_null())
    throw DataError("The record value is null: nothing to write to table " + q(table));
  if (schema) {
    if (schema->type() != Type::Struct)
      throw DataError("Value schema must be of type Struct, but is of type: " +
                      std::string(to_string(schema->type())));
    for (const auto& f : schema->fields()) {
      if (is_key(row, f.name) || !whitelisted(f.name)) continue;
      row.columns.push_back({f.name, runtime::data::field_value(value, f, arena, true), f.schema.get()});
    }
    return;
  }
  if (value.kind() != Kind::Map)
    throw DataError("A schemaless record value must be a map (a JSON object) to be written to the "
                    "columns of table " + q(table) + ", found: " + std::string(to_string(value.kind())));
  for (const auto& e : value.entries()) {
    if (e.key.kind() != Kind::String)
      throw DataError("Record value map keys must be strings to name columns, found: " +
                      std::string(to_string(e.key.kind())));
    auto name = e.key.as_string();
    if (is_key(row, name) || !whitelisted(name)) continue;
    row.columns.push_back({name, e.value, nullptr});
  }
}

DataError tombstone_error(std::string_view connector, PkMode pk_mode, const DecodedRecord& r) {
  return DataError("Sink connector '" + std::string(connector) + "' is configured with 'delete.enabled=false' and 'pk.mode=" +
                   std::string(to_string(pk_mode)) +
                   "' and therefore requires records with a non-null value, but found record at (topic='" +
                   std::string(r.topic) + "',partition=" + std::to_string(r.partition) +
                   ",offset=" + std::to_string(r.offset) + ") with a null value");
}

std::string_view sql_type(const Column& column) noexcept {
  if (const Schema* s = column.schema) {
    switch (s->logical()) {
      case Logical::Decimal: return "NUMERIC";
      case Logical::Date: return "DATE";
      case Logical::Time: return "TIME";
      case Logical::Timestamp: return "TIMESTAMP";
      case Logical::None: break;
    }
    switch (s->type()) {
      case Type::Int8: case Type::Int16: case Type::Int32: case Type::Int64: case Type::Boolean:
        return "INTEGER";
      case Type::Float32: case Type::Float64: return "REAL";
      case Type::String: return "TEXT";
      case Type::Bytes: return "BLOB";
      case Type::Array: case Type::Map: case Type::Struct: return "TEXT";
    }
    return "";
  }
  switch (column.value.kind()) {
    case Kind::Null: return "";
    case Kind::Boolean: case Kind::Int8: case Kind::Int16: case Kind::Int32: case Kind::Int64:
      return "INTEGER";
    case Kind::Float32: case Kind::Float64: return "REAL";
    case Kind::String: return "TEXT";
    case Kind::Bytes: return "BLOB";
    case Kind::Array: case Kind::Map: case Kind::Struct: return "TEXT";
  }
  return "";
}

bool sql_not_null(const Column& column, bool key) noexcept {
  if (key) return true;
  return column.schema && !column.schema->optional() && !column.schema->default_value();
}

} // namespace weir::connectors::jdbc
