// Avro's binary encoding, written here rather than through Avro C's value interface:
// decoding walks the writer's schema (avro::Node) and builds weir's values straight in
// the batch arena, viewing strings and bytes in the record's own bytes; encoding walks
// the Connect schema, whose Avro form (avro_schema.hpp) fixes the layout. Avro C would
// put an avro_value_t between the bytes and the value model, one more copy per field.
//
// The format: zigzag varints for int and long, little-endian IEEE floats, a varint
// length before bytes and strings, arrays and maps as blocks (a count, negative when a
// byte size follows, ending with 0), a varint branch index before a union's value.
#pragma once

#include <string>
#include <string_view>

#include "runtime/convert/avro_schema.hpp"
#include "runtime/data/value.hpp"

namespace weir::runtime::convert::avro {

/// The value of `root` encoded in `in`, which must hold exactly one (DataError
/// otherwise). Strings and bytes view `in`; containers live in `arena`.
data::Value decode(const Node& root, std::string_view in, data::Arena& arena);

/// Appends the Avro binary of `v`, whose Connect schema is `schema`, in the layout of
/// schema_json(schema). Throws DataError when `v` does not fit `schema`. `enums`:
/// WriteOptions::enhanced_schema_support, strings with enum parameters as Avro enums.
void encode(const data::Schema& schema, const data::Value& v, std::string& out, bool enums = false);

/// Appends the Avro binary of `v` (a Connect value) in the layout of `target`, a
/// schema other than the value's own, as Avro's schema resolution reads one into the
/// other: record fields matched by name, a field `v` lacks written as its default
/// (null where the field is a union with null), int -> long -> float -> double,
/// string <-> bytes, a union branch chosen by the value's type. Throws DataError
/// naming the field where `v` cannot be written in `target`.
void encode_as(const Node& target, const data::Value& v, std::string& out);

/// Zigzag varint helpers (exposed for tests).
void write_long(int64_t v, std::string& out);

} // namespace weir::runtime::convert::avro
