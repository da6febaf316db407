#include "connectors/postgres_cdc/envelope.hpp"

#include <charconv>
#include <cmath>

#include "runtime/data/decimal.hpp"
#include "runtime/data/errors.hpp"

namespace weir::connectors::postgres_cdc {

namespace {

using namespace runtime::data;

// Well-known type oids (pg_type.dat); stable across PostgreSQL versions.
enum Oid : uint32_t {
  BoolOid = 16, ByteaOid = 17, CharOid = 18, NameOid = 19, Int8Oid = 20, Int2Oid = 21,
  Int4Oid = 23, TextOid = 25, OidOid = 26, JsonOid = 114, Float4Oid = 700, Float8Oid = 701,
  BpcharOid = 1042, VarcharOid = 1043, DateOid = 1082, TimeOid = 1083, TimestampOid = 1114,
  TimestamptzOid = 1184, NumericOid = 1700, UuidOid = 2950, JsonbOid = 3802
};

constexpr std::string_view unavailable = "__debezium_unavailable_value";

SchemaPtr named(Type type, std::string_view name, bool optional) {
  return SchemaBuilder(type).name(std::string{name}).version(1).optional(optional).build();
}

Mapping mapping_of(const ColumnInfo& c) {
  switch (c.type_oid) {
    case BoolOid: return Mapping::Boolean;
    case Int2Oid: return Mapping::Int16;
    case Int4Oid: return Mapping::Int32;
    case Int8Oid:
    case OidOid: return Mapping::Int64;
    case Float4Oid: return Mapping::Float32;
    case Float8Oid: return Mapping::Float64;
    case NumericOid: return c.type_modifier >= 4 ? Mapping::Decimal : Mapping::VariableDecimal;
    case CharOid:
    case NameOid:
    case TextOid:
    case BpcharOid:
    case VarcharOid:
    case UuidOid:
    case JsonOid:
    case JsonbOid: return Mapping::String;
    case ByteaOid: return Mapping::Bytes;
    case DateOid: return Mapping::Date;
    case TimeOid: return Mapping::MicroTime;
    case TimestampOid:
      // adaptive: milliseconds when the column keeps at most 3 fractional digits
      return c.type_modifier >= 0 && c.type_modifier <= 3 ? Mapping::Timestamp
                                                          : Mapping::MicroTimestamp;
    case TimestamptzOid: return Mapping::ZonedTimestamp;
    default: return Mapping::Unsupported;
  }
}

const SchemaPtr& variable_decimal(bool optional) {
  static const SchemaPtr make[2] = {
    SchemaBuilder::struct_().name("io.debezium.data.VariableScaleDecimal").version(1)
      .doc("Variable scaled decimal").field("scale", schemas::int32())
      .field("value", schemas::of(Type::Bytes)).build(),
    SchemaBuilder::struct_().name("io.debezium.data.VariableScaleDecimal").version(1)
      .doc("Variable scaled decimal").optional().field("scale", schemas::int32())
      .field("value", schemas::of(Type::Bytes)).build()};
  return make[optional ? 1 : 0];
}

SchemaPtr column_schema(const ColumnInfo& c, Mapping m, int32_t scale, bool optional) {
  switch (m) {
    case Mapping::Boolean: return schemas::of(Type::Boolean, optional);
    case Mapping::Int16: return schemas::of(Type::Int16, optional);
    case Mapping::Int32: return schemas::of(Type::Int32, optional);
    case Mapping::Int64: return schemas::of(Type::Int64, optional);
    case Mapping::Float32: return schemas::of(Type::Float32, optional);
    case Mapping::Float64: return schemas::of(Type::Float64, optional);
    case Mapping::Decimal: {
      auto precision = ((c.type_modifier - 4) >> 16) & 0xffff;
      return SchemaBuilder::decimal(scale).version(1)
        .parameter("connect.decimal.precision", std::to_string(precision)).optional(optional).build();
    }
    case Mapping::VariableDecimal: return variable_decimal(optional);
    case Mapping::Bytes: return schemas::of(Type::Bytes, optional);
    case Mapping::Date: return named(Type::Int32, "io.debezium.time.Date", optional);
    case Mapping::MicroTime: return named(Type::Int64, "io.debezium.time.MicroTime", optional);
    case Mapping::Timestamp: return named(Type::Int64, "io.debezium.time.Timestamp", optional);
    case Mapping::MicroTimestamp: return named(Type::Int64, "io.debezium.time.MicroTimestamp", optional);
    case Mapping::ZonedTimestamp: return named(Type::String, "io.debezium.time.ZonedTimestamp", optional);
    case Mapping::String:
      if (c.type_oid == UuidOid)
        return named(Type::String, "io.debezium.data.Uuid", optional);
      if (c.type_oid == JsonOid || c.type_oid == JsonbOid)
        return named(Type::String, "io.debezium.data.Json", optional);
      return schemas::of(Type::String, optional);
    case Mapping::Unsupported: return schemas::of(Type::String, optional);
  }
  return schemas::of(Type::String, optional);
}

bool digits(std::string_view s, size_t at, size_t n, int& out) {
  if (at + n > s.size())
    return false;
  out = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9')
      return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

/// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

/// `YYYY-MM-DD HH:MM:SS[.ffffff]` (optionally followed by a zone, ignored here: the
/// session is UTC) as µs since the epoch.
bool parse_timestamp(std::string_view text, int64_t& micros) {
  int32_t days;
  int64_t in_day;
  if (text.size() < 19 || text[10] != ' ' || !parse_date(text.substr(0, 10), days))
    return false;
  auto rest = text.substr(11);
  auto zone = rest.find_first_of("+-Z");
  if (!parse_time(rest.substr(0, zone), in_day))
    return false;
  micros = static_cast<int64_t>(days) * 86400000000LL + in_day;
  return true;
}

Value zero_value(Mapping m, Arena& arena, const Schema& schema) {
  switch (m) {
    case Mapping::Boolean: return Value::boolean(false);
    case Mapping::Int16: return Value::int16(0);
    case Mapping::Int32:
    case Mapping::Date: return Value::int32(0);
    case Mapping::Int64:
    case Mapping::MicroTime:
    case Mapping::Timestamp:
    case Mapping::MicroTimestamp: return Value::int64(0);
    case Mapping::Float32: return Value::float32(0);
    case Mapping::Float64: return Value::float64(0);
    case Mapping::Decimal: return Value::bytes(arena.copy(decimal_bytes(0)));
    case Mapping::VariableDecimal: {
      auto v = Value::structure(arena, schema);
      v.fields()[0] = Value::int32(0);
      v.fields()[1] = Value::bytes(arena.copy(decimal_bytes(0)));
      return v;
    }
    case Mapping::ZonedTimestamp: return Value::string("1970-01-01T00:00:00Z");
    default: return Value::string("");
  }
}

[[noreturn]] void bad_text(const TableSchema& t, size_t c, std::string_view text) {
  throw DataError("PostgresConnector: column " + t.columns[c].name + " (" + t.columns[c].type_name
                  + ") of table " + t.schema + "." + t.table + ": cannot read '" + std::string{text}
                  + "'");
}

template <class Int>
Int integer(const TableSchema& t, size_t c, std::string_view text) {
  Int v{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size())
    bad_text(t, c, text);
  return v;
}

double floating(const TableSchema& t, size_t c, std::string_view text) {
  if (text == "NaN")
    return std::nan("");
  if (text == "Infinity")
    return HUGE_VAL;
  if (text == "-Infinity")
    return -HUGE_VAL;
  double v{};
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size())
    bad_text(t, c, text);
  return v;
}

std::string hex_bytes(const TableSchema& t, size_t c, std::string_view text) {
  if (!text.starts_with("\\x") || text.size() % 2 != 0)
    bad_text(t, c, text.substr(0, 16));
  auto nibble = [&](char h) -> int {
    if (h >= '0' && h <= '9') return h - '0';
    if (h >= 'a' && h <= 'f') return h - 'a' + 10;
    if (h >= 'A' && h <= 'F') return h - 'A' + 10;
    bad_text(t, c, text.substr(0, 16));
  };
  std::string out;
  out.reserve(text.size() / 2 - 1);
  for (size_t i = 2; i < text.size(); i += 2)
    out += static_cast<char>(nibble(text[i]) * 16 + nibble(text[i + 1]));
  return out;
}

Value cell_value(const TableSchema& t, size_t c, const Cell& cell, const Field& field, Arena& arena) {
  const Mapping m = t.mappings[c];
  if (cell.kind == Cell::Kind::Unchanged)
    return m == Mapping::String || m == Mapping::Unsupported ? Value::string(unavailable) : Value{};
  if (cell.kind == Cell::Kind::Null)
    return field.schema->optional() ? Value{} : zero_value(m, arena, *field.schema);
  auto text = cell.text;
  switch (m) {
    case Mapping::Boolean: return Value::boolean(text == "t");
    case Mapping::Int16: return Value::int16(integer<int16_t>(t, c, text));
    case Mapping::Int32: return Value::int32(integer<int32_t>(t, c, text));
    case Mapping::Int64: return Value::int64(integer<int64_t>(t, c, text));
    case Mapping::Float32: return Value::float32(static_cast<float>(floating(t, c, text)));
    case Mapping::Float64: return Value::float64(floating(t, c, text));
    case Mapping::Decimal:
      if (text == "NaN")
        bad_text(t, c, text);
      return Value::bytes(arena.copy(decimal_bytes(decimal_parse(text, t.scales[c]))));
    case Mapping::VariableDecimal: {
      if (text == "NaN")
        bad_text(t, c, text);
      auto parsed = decimal_parse_natural(text);
      auto v = Value::structure(arena, *field.schema);
      v.fields()[0] = Value::int32(parsed.scale);
      v.fields()[1] = Value::bytes(arena.copy(decimal_bytes(parsed.unscaled)));
      return v;
    }
    case Mapping::String:
    case Mapping::Unsupported: return Value::string(arena.copy(text));
    case Mapping::Bytes: return Value::bytes(arena.copy(hex_bytes(t, c, text)));
    case Mapping::Date: {
      int32_t days;
      if (!parse_date(text, days))
        bad_text(t, c, text);
      return Value::int32(days);
    }
    case Mapping::MicroTime: {
      int64_t us;
      if (!parse_time(text, us))
        bad_text(t, c, text);
      return Value::int64(us);
    }
    case Mapping::Timestamp:
    case Mapping::MicroTimestamp: {
      int64_t us;
      if (!parse_timestamp(text, us))
        bad_text(t, c, text);
      return Value::int64(m == Mapping::Timestamp ? us / 1000 : us);
    }
    case Mapping::ZonedTimestamp: {
      // `2024-01-02 03:04:05.5+00` (UTC session) -> `2024-01-02T03:04:05.5Z`
      auto zone = text.find_first_of("+-", 11);
      if (text.size() < 19 || text[10] != ' ' || zone == std::string_view::npos)
        bad_text(t, c, text);
      std::string iso{text.substr(0, zone)};
      iso[10] = 'T';
      auto offset = text.substr(zone);
      iso += offset == "+00" ? std::string{"Z"} : std::string{offset} + (offset.size() == 3 ? ":00" : "");
      return Value::string(arena.copy(iso));
    }
  }
  return Value{};
}

} // namespace

bool parse_date(std::string_view text, int32_t& days) {
  int y, m, d;
  if (text.size() != 10 || text[4] != '-' || text[7] != '-' || !digits(text, 0, 4, y)
      || !digits(text, 5, 2, m) || !digits(text, 8, 2, d) || m < 1 || m > 12 || d < 1 || d > 31)
    return false;
  days = static_cast<int32_t>(days_from_civil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)));
  return true;
}

bool parse_time(std::string_view text, int64_t& micros) {
  int h, m, s;
  if (text.size() < 8 || text[2] != ':' || text[5] != ':' || !digits(text, 0, 2, h)
      || !digits(text, 3, 2, m) || !digits(text, 6, 2, s))
    return false;
  int64_t fraction = 0;
  if (text.size() > 8) {
    if (text[8] != '.' || text.size() > 15 || text.size() == 9)
      return false;
    int f;
    size_t n = text.size() - 9;
    if (!digits(text, 9, n, f))
      return false;
    fraction = f;
    for (size_t i = n; i < 6; ++i)
      fraction *= 10;
  }
  micros = ((static_cast<int64_t>(h) * 60 + m) * 60 + s) * 1000000 + fraction;
  return true;
}

const SchemaPtr& source_schema() {
  static const SchemaPtr schema = [] {
    auto snapshot = SchemaBuilder(Type::String).name("io.debezium.data.Enum").version(1).optional()
                      .parameter("allowed", "true,last,false,incremental")
                      .default_value(Value::string("false")).build();
    return SchemaBuilder::struct_().name("io.debezium.connector.postgresql.Source")
      .field("version", schemas::string()).field("connector", schemas::string())
      .field("name", schemas::string()).field("ts_ms", schemas::int64())
      .field("snapshot", snapshot).field("db", schemas::string())
      .field("sequence", schemas::optional_string()).field("ts_us", schemas::optional_int64())
      .field("ts_ns", schemas::optional_int64()).field("schema", schemas::string())
      .field("table", schemas::string()).field("txId", schemas::optional_int64())
      .field("lsn", schemas::optional_int64()).field("xmin", schemas::optional_int64()).build();
  }();
  return schema;
}

namespace {

void check_width(const TableSchema& t, const Tuple& tuple) {
  if (tuple.cells.size() != t.columns.size())
    throw DataError("PostgresConnector: a row of " + t.schema + "." + t.table + " has "
                    + std::to_string(tuple.cells.size()) + " columns where the table has "
                    + std::to_string(t.columns.size()));
}

const SchemaPtr& transaction_schema() {
  static const SchemaPtr schema = SchemaBuilder::struct_().name("event.block").version(1).optional()
                                    .field("id", schemas::string())
                                    .field("total_order", schemas::int64())
                                    .field("data_collection_order", schemas::int64()).build();
  return schema;
}

} // namespace

std::shared_ptr<const TableSchema> make_table_schema(const std::string& topic_prefix, uint32_t oid,
                                                     std::string schema, std::string table,
                                                     std::vector<ColumnInfo> columns,
                                                     const OnUnsupported& unsupported) {
  auto t = std::make_shared<TableSchema>();
  t->oid = oid;
  t->schema = std::move(schema);
  t->table = std::move(table);
  t->topic = topic_prefix + "." + t->schema + "." + t->table;
  t->columns = std::move(columns);
  auto base = t->topic;
  SchemaBuilder row = SchemaBuilder::struct_().name(base + ".Value").optional();
  SchemaBuilder key = SchemaBuilder::struct_().name(base + ".Key");
  for (size_t c = 0; c < t->columns.size(); ++c) {
    const auto& col = t->columns[c];
    auto m = mapping_of(col);
    if (m == Mapping::Unsupported && unsupported)
      unsupported("PostgresConnector: column " + col.name + " of table " + t->schema + "."
                  + t->table + " has type " + col.type_name
                  + ", which weir does not map: it is emitted as its text (a STRING)");
    int32_t scale = m == Mapping::Decimal ? (col.type_modifier - 4) & 0xffff : 0;
    t->mappings.push_back(m);
    t->scales.push_back(scale);
    auto s = column_schema(col, m, scale, !col.primary_key && !col.not_null);
    row.field(col.name, s);
    if (col.primary_key) {
      t->key_columns.push_back(static_cast<uint32_t>(c));
      key.field(col.name, column_schema(col, m, scale, false));
    }
  }
  t->row = row.build();
  if (!t->key_columns.empty())
    t->key = key.build();
  t->envelope = SchemaBuilder::struct_().name(base + ".Envelope").version(2)
                  .field("before", t->row).field("after", t->row).field("source", source_schema())
                  .field("transaction", transaction_schema()).field("op", schemas::string())
                  .field("ts_ms", schemas::optional_int64()).field("ts_us", schemas::optional_int64())
                  .field("ts_ns", schemas::optional_int64()).build();
  return t;
}

Value row_value(const TableSchema& t, const Tuple& tuple, Arena& arena) {
  check_width(t, tuple);
  auto v = Value::structure(arena, *t.row);
  auto fields = v.fields();
  const auto& schema_fields = t.row->fields();
  for (size_t c = 0; c < t.columns.size(); ++c)
    fields[c] = cell_value(t, c, tuple.cells[c], schema_fields[c], arena);
  return v;
}

Value key_value(const TableSchema& t, const Tuple& tuple, Arena& arena) {
  if (!t.key)
    return Value{};
  check_width(t, tuple);
  auto v = Value::structure(arena, *t.key);
  auto fields = v.fields();
  const auto& schema_fields = t.key->fields();
  for (size_t k = 0; k < t.key_columns.size(); ++k)
    fields[k] = cell_value(t, t.key_columns[k], tuple.cells[t.key_columns[k]], schema_fields[k], arena);
  return v;
}

Value envelope_value(const TableSchema& t, const SourceInfo& s, char op, Value before, Value after,
                     int64_t now_micros, Arena& arena) {
  auto source = Value::structure(arena, *source_schema());
  auto sf = source.fields();
  sf[0] = Value::string(arena.copy(s.version));
  sf[1] = Value::string("postgresql");
  sf[2] = Value::string(arena.copy(s.server_name));
  sf[3] = Value::int64(s.commit_micros / 1000);
  sf[4] = Value::string(arena.copy(s.snapshot));
  sf[5] = Value::string(arena.copy(s.database));
  if (s.lsn >= 0) {
    // Debezium's sequence: ["<last commit LSN>","<this event's LSN>"], as JSON text.
    std::string seq = "[";
    seq += s.last_commit_lsn >= 0 ? "\"" + std::to_string(s.last_commit_lsn) + "\"" : "null";
    seq += ",\"" + std::to_string(s.lsn) + "\"]";
    sf[6] = Value::string(arena.copy(seq));
  }
  sf[7] = Value::int64(s.commit_micros);
  sf[8] = Value::int64(s.commit_micros * 1000);
  sf[9] = Value::string(arena.copy(t.schema));
  sf[10] = Value::string(arena.copy(t.table));
  if (s.tx_id >= 0)
    sf[11] = Value::int64(s.tx_id);
  if (s.lsn >= 0)
    sf[12] = Value::int64(s.lsn);
  auto v = Value::structure(arena, *t.envelope);
  auto f = v.fields();
  f[0] = before;
  f[1] = after;
  f[2] = source;
  static constexpr std::string_view ops = "cudrt";
  auto at = ops.find(op);
  f[4] = Value::string(ops.substr(at == std::string_view::npos ? 0 : at, 1));
  f[5] = Value::int64(now_micros / 1000);
  f[6] = Value::int64(now_micros);
  f[7] = Value::int64(now_micros * 1000);
  return v;
}

} // namespace weir::connectors::postgres_cdc
