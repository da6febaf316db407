#include "connectors/jdbc/copy_text.hpp"

#include <charconv>
#include <cmath>

#include "connectors/jdbc/sql_text.hpp"
#include "runtime/data/decimal.hpp"

namespace weir::connectors::jdbc {

using runtime::data::Kind;
using runtime::data::Logical;
using runtime::data::Schema;
using runtime::data::Type;

namespace {

constexpr char hex_digits[] = "0123456789abcdef";

template <typename T>
void append_number(std::string& out, T value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, static_cast<size_t>(end - buf));
}

void append_double(std::string& out, double d, bool single) {
  if (std::isnan(d)) {
    out += "NaN";
  } else if (std::isinf(d)) {
    out += d < 0 ? "-Infinity" : "Infinity";
  } else if (single) {
    append_number(out, static_cast<float>(d)); // shortest text that reads back the same float
  } else {
    append_number(out, d);
  }
}

} // namespace

// Arrays, maps and structs become JSON as the JSON converter writes payloads: schemas
// off, Decimals as numbers (JSONB keeps them exact), defaults for null fields.
CopyTextEncoder::CopyTextEncoder()
    : json_(runtime::convert::JsonConverter::Options{false, true, true, 1000}) {}

void CopyTextEncoder::append_escaped(std::string& out, std::string_view text) {
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i], escape;
    switch (c) {
      case '\\': escape = '\\'; break;
      case '\t': escape = 't'; break;
      case '\n': escape = 'n'; break;
      case '\r': escape = 'r'; break;
      default: continue;
    }
    out.append(text.data() + start, i - start);
    out += '\\';
    out += escape;
    start = i + 1;
  }
  out.append(text.data() + start, text.size() - start);
}

void CopyTextEncoder::append_value(std::string& out, const Column& column) {
  const auto& v = column.value;
  const Logical logical = column.schema ? column.schema->logical() : Logical::None;
  switch (v.kind()) {
    case Kind::Null:
      out += "\\N";
      return;
    case Kind::Boolean:
      out += v.as_bool() ? 't' : 'f';
      return;
    case Kind::Int8: case Kind::Int16: case Kind::Int32: case Kind::Int64:
      if (logical == Logical::Date || logical == Logical::Time || logical == Logical::Timestamp) {
        format_time(logical, v.as_int(), scratch_);
        out += scratch_;
        return;
      }
      append_number(out, v.as_int());
      return;
    case Kind::Float32: case Kind::Float64:
      append_double(out, v.as_double(), v.kind() == Kind::Float32);
      return;
    case Kind::String:
      append_escaped(out, v.as_string());
      return;
    case Kind::Bytes: {
      if (logical == Logical::Decimal) {
        out += runtime::data::decimal_to_string(runtime::data::decimal_unscaled(v.as_string()),
                                                column.schema->decimal_scale());
        return;
      }
      out += "\\\\x"; // bytea's hex input `\x`, its backslash escaped for COPY
      for (unsigned char b : v.as_string()) {
        out += hex_digits[b >> 4];
        out += hex_digits[b & 0xf];
      }
      return;
    }
    case Kind::Array: case Kind::Map: case Kind::Struct:
      scratch_.clear();
      json_.write_payload(v, column.schema, scratch_);
      append_escaped(out, scratch_);
      return;
  }
}

std::string_view postgres_type(const Column& column) noexcept {
  if (const Schema* s = column.schema) {
    switch (s->logical()) {
      case Logical::Decimal: return "NUMERIC";
      case Logical::Date: return "DATE";
      case Logical::Time: return "TIME";
      case Logical::Timestamp: return "TIMESTAMP";
      case Logical::None: break;
    }
    switch (s->type()) {
      case Type::Int8: case Type::Int16: return "SMALLINT";
      case Type::Int32: return "INTEGER";
      case Type::Int64: return "BIGINT";
      case Type::Boolean: return "BOOLEAN";
      case Type::Float32: return "REAL";
      case Type::Float64: return "DOUBLE PRECISION";
      case Type::String: return "TEXT";
      case Type::Bytes: return "BYTEA";
      case Type::Array: case Type::Map: case Type::Struct: return "JSONB";
    }
    return "TEXT";
  }
  switch (column.value.kind()) {
    case Kind::Null: return "TEXT";
    case Kind::Boolean: return "BOOLEAN";
    case Kind::Int8: case Kind::Int16: case Kind::Int32: case Kind::Int64: return "BIGINT";
    case Kind::Float32: case Kind::Float64: return "DOUBLE PRECISION";
    case Kind::String: return "TEXT";
    case Kind::Bytes: return "BYTEA";
    case Kind::Array: case Kind::Map: case Kind::Struct: return "JSONB";
  }
  return "TEXT";
}

} // namespace weir::connectors::jdbc
