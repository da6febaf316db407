// JSON text output with Jackson's conventions (what Kafka Connect's JsonConverter
// writes), so weir's bytes match Kafka Connect's for the same data:
// - strings: `"` `\` and control characters escaped, everything else (including
//   non-ASCII UTF-8 and `/`) written as is;
// - doubles and floats: Java's Double/Float.toString (`1.0`, `1.0E10`, `1.0E-4`);
//   NaN and infinities as the strings "NaN", "Infinity", "-Infinity".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/data/schema.hpp"

namespace weir::runtime::convert {

void append_json_string(std::string_view s, std::string& out);
/// Java's Double.toString / Float.toString (JDK 19+: shortest round-trip digits).
void append_java_double(double d, std::string& out);
void append_java_float(float f, std::string& out);
/// As a JSON number, or a quoted string for NaN and infinities (Jackson's default).
void append_json_double(double d, std::string& out);
void append_json_float(float f, std::string& out);
void append_int(int64_t i, std::string& out);

/// What Java's toString() gives for the object Kafka Connect would hold: numbers and
/// booleans as Java prints them, strings as is, Decimal as BigDecimal.toString(),
/// lists `[a, b]`, maps `{k=v}`, structs `Struct{a=1,b=x}` (null fields skipped).
/// Bytes are appended raw. Used by StringConverter and Cast.
void append_java_to_string(const data::Value& v, const data::Schema* schema, std::string& out);

} // namespace weir::runtime::convert
