// Record -> row: which columns a record writes, under pk.mode, pk.fields and
// fields.whitelist (Confluent's FieldsMetadata), and the SQLite type of each column.
//
// Schema'd records map a Struct value (and key) field by field. Schemaless records
// map a map's string keys to column names, with types inferred from the values.
// A Row only views the record's memory (names and values live in the batch and its
// schemas, or in the config), so mapping allocates nothing once the Row's vector has
// grown to the widest record.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "connectors/jdbc/jdbc_sink_config.hpp"
#include "runtime/data/decoded_batch.hpp"

namespace weir::connectors::jdbc {

struct Column {
  std::string_view name;
  runtime::data::Value value;
  const runtime::data::Schema* schema = nullptr; ///< nullptr: schemaless
};

/// A record's columns, primary key columns first.
struct Row {
  std::vector<Column> columns;
  uint32_t key_count = 0;

  void clear() noexcept { columns.clear(); key_count = 0; }
};

class RowMapper {
public:
  /// Keeps a reference to `config`, which must outlive the mapper.
  explicit RowMapper(const JdbcSinkConfig& config);

  /// Fills `row` with `record`'s columns (only the key columns when `key_only`, for a
  /// delete). `table` is for messages; `arena` receives schema defaults of null
  /// fields. Throws data::DataError when the record cannot map to columns.
  void map(const runtime::data::DecodedRecord& record, std::string_view table,
           runtime::data::Arena& arena, bool key_only, Row& row) const;

private:
  void add_record_key(const runtime::data::DecodedRecord& record, std::string_view table,
                      runtime::data::Arena& arena, Row& row) const;
  void add_value_key(const runtime::data::DecodedRecord& record, std::string_view table,
                     runtime::data::Arena& arena, Row& row) const;
  void add_value_fields(const runtime::data::DecodedRecord& record, std::string_view table,
                        runtime::data::Arena& arena, Row& row) const;
  bool whitelisted(std::string_view name) const noexcept;

  const JdbcSinkConfig& config_;
  std::vector<std::string> whitelist_; ///< sorted, for binary search
  std::vector<std::string> kafka_names_; ///< pk.mode=kafka's three column names
};

/// The error for a tombstone (null value) when delete.enabled=false, as Confluent words it.
runtime::data::DataError tombstone_error(std::string_view connector, PkMode pk_mode,
                                         const runtime::data::DecodedRecord& record);

/// The declared SQLite type auto.create / auto.evolve give a column: by schema
/// (INTEGER, REAL, TEXT, BLOB, NUMERIC for Decimal, DATE, TIME, TIMESTAMP; arrays,
/// maps and structs TEXT holding JSON) or, schemaless, by the value's kind; empty for
/// a schemaless null (a column without declared type stores any value as given).
std::string_view sql_type(const Column& column) noexcept;

/// Whether auto.create declares the column NOT NULL: key columns, and fields whose
/// schema is neither optional nor has a default.
bool sql_not_null(const Column& column, bool key) noexcept;

} // namespace weir::connectors::jdbc
