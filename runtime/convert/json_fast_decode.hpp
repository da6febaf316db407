// Schemaless JSON -> value model in one pass: the hot path of JsonConverter with
// schemas.enable=false.
//
// A small recursive-descent parser specialised for building weir's tree, instead of
// simdjson's DOM (which would need a second pass over its tape and a copy of every
// string) or On-Demand (whose inline code runs at the instruction set the compiler
// targets, i.e. its slow fallback kernel in a portable build, and is slowed further
// by its internal asserts in non-NDEBUG builds). It reads the original bytes in
// place: strings and keys without escapes are views of them, which the caller
// guarantees live as long as the batch (RecordCodec passes views into
// DecodedBatch::raw()); escaped strings are unescaped into the arena. UTF-8 is
// validated up front with simdjson (run-time dispatched SIMD). Nested containers
// are collected on scratch stacks and copied once, at their exact size, into the
// arena; the root object is built in the arena directly, sized like the previous
// record's plus a little slack for fields SMTs insert.
//
// Semantics are Jackson's as Kafka's JsonConverter uses it: integers become int64
// (wider ones wrap to their low 64 bits, as BigInteger.longValue()), other numbers
// float64 (correctly rounded), numbers Jackson refuses (over 1000 digits, exponents
// BigDecimal cannot hold) are errors (json_number.hpp), a repeated key keeps its first
// position and its last value (json_keys.hpp), strict JSON otherwise.
//
// Internal to runtime/convert (json_converter.cpp).
#pragma once

#include <memory>
#include <string_view>

#include "runtime/data/arena.hpp"
#include "runtime/data/value.hpp"

namespace weir::runtime::convert {

class FastJsonDecoder {
public:
  FastJsonDecoder();
  ~FastJsonDecoder();
  FastJsonDecoder(const FastJsonDecoder&) = delete;
  FastJsonDecoder& operator=(const FastJsonDecoder&) = delete;

  /// Decodes `bytes`; throws data::DataError like Kafka's JsonConverter.
  data::Value decode(std::string_view bytes, data::Arena& arena);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace weir::runtime::convert
