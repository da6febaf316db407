// Header values as Kafka Connect's SimpleHeaderConverter writes them
// (Values.convertToString): what a Connect header holds, as text.
//
// Strings as they are; numbers and booleans as Java prints them; Decimal as its
// decimal text; bytes as Base64; Date, Time and Timestamp (by schema, or a schemaless
// java.util.Date: Value::java_date) in ISO-8601: `2024-03-01`, `12:30:00.000Z`,
// `2024-03-01T12:30:00.000Z` (Connect picks the form from the value: under a day is
// a time, a whole day a date); arrays `[a,b]`, maps `{k:v}` and structs `{"f":v}`,
// with strings inside them quoted.
//
// The other way (header_parse.cpp): Values.parseString, which reads a header's text.
#pragma once

#include <string>
#include <string_view>

#include "runtime/data/arena.hpp"

#include "runtime/data/schema.hpp"
#include "runtime/data/value.hpp"

namespace weir::runtime::convert {

/// Appends the text SimpleHeaderConverter writes for a non-null header value.
void append_header_text(const data::Value& v, const data::Schema* schema, std::string& out);

} // namespace weir::runtime::convert

namespace weir::runtime::convert {

/// What Kafka Connect's header converter reads from a header's text
/// (Values.parseString): null (no schema) for `null`, booleans, the narrowest integer
/// type of an exact integer, else float32, float64 or Decimal, ISO-8601 dates, times
/// and timestamps, arrays and maps (with a schema when their items share one), and
/// anything else a string. Strings and containers live in `arena`.
struct ParsedHeader {
  data::Value value;
  data::SchemaPtr schema;
};
ParsedHeader parse_header_text(std::string_view text, data::Arena& arena);

/// A raw header's bytes as Kafka Connect re-writes them when a header passes through
/// its default header converter (SimpleHeaderConverter: Values.parseString, then
/// Values.convertToString): `1.50` becomes `1.5`, `007` becomes `7`, `[1, 2.5]` becomes
/// `[1.0,2.5]`, `{ "a" : 1 }` becomes `{"a":1}`, ISO-8601 dates and times are
/// normalised; anything that is not a literal, number, temporal, array or map stays as
/// it is. Returns false for a header Connect reads as null (`null`).
bool reserialize_header_text(std::string_view raw, std::string& out);

} // namespace weir::runtime::convert
