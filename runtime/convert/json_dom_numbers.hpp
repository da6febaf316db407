// The numbers of a record parsed by simdjson's DOM, read as Connect reads them
// (json_number.hpp): JsonConverter's envelope reader.
//
// simdjson's DOM keeps no number's text and refuses integers beyond 64 bits, while
// Connect reads every number from its exact digits (Jackson's BigInteger and
// BigDecimal nodes). Most records need no more than the values simdjson gives:
// integers within 64 bits, and fractions read as doubles into double fields. So a
// record is first parsed as it is (parse_plain). Where its values do not settle the
// result, the accessors throw NeedsText, and the caller parses the record again with
// parse_indexed: simdjson then reads a copy in which every number is the ordinal of
// its token (index_for_simdjson), and each number is read from its exact text.
// What needs the text: an integer beyond 64 bits or with leading zeros (the plain
// parse fails), a fraction read into an integer, float or Decimal field, or into a
// schema's cache key, and a negative zero fraction (`-0.0` is 0.0 in Connect, but an
// underflow such as `-1e-400` is -0.0).
//
// The indexed copy also has each lone UTF-16 surrogate escape (`"\udc00"`, which
// simdjson refuses) replaced by `\uFFFD`, as the fast decoder reads it.
//
// One gap of the plain parse: a fraction of more than 1000 digits whose value is a
// nonzero double is read as that double, where Jackson refuses the record
// (json_number::problem); the indexed parse and the fast decoder refuse it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <simdjson.h>

namespace weir::runtime::convert {

/// Copies `json` to `out`, followed by `padding` more bytes, with every number token
/// replaced by its ordinal (0, 1, ...) and each lone surrogate escape by `\uFFFD`, and
/// appends the number tokens to `tokens` in that order (views of `json`). A run of
/// number characters that is not a valid token (json_number::is_token) is copied
/// unchanged, so the copy is JSON exactly when `json` is, but for lone surrogates.
void index_for_simdjson(std::string_view json, std::vector<char>& out, size_t padding,
                        std::vector<std::string_view>& tokens);

class DomNumbers {
public:
  /// Thrown by an accessor after a plain parse when only the number's text can give
  /// Connect's result.
  struct NeedsText {};

  /// Parses `bytes` as they are; false when simdjson refuses them (which an indexed
  /// parse may not: wide integers, leading zeros). Elements view the parser's memory.
  bool parse_plain(simdjson::dom::parser& parser, std::string_view bytes, simdjson::dom::element& root);
  /// Parses `bytes` with every number indexed; throws data::DataError in Kafka's words
  /// when they are not JSON or Jackson refuses one of their numbers. Elements view
  /// `bytes` too, which must outlive their use.
  simdjson::dom::element parse_indexed(simdjson::dom::parser& parser, std::string_view bytes);

  static bool is_number(simdjson::dom::element e) noexcept;
  /// Jackson's isIntegralNumber() and isInt() (is_int also requires a number).
  bool is_integral(simdjson::dom::element e) const;
  bool is_int(simdjson::dom::element e) const;
  /// longValue(), intValue(), floatValue(), doubleValue() of a number element.
  int64_t long_value(simdjson::dom::element e) const;
  int32_t int_value(simdjson::dom::element e) const;
  float float_value(simdjson::dom::element e) const;
  double double_value(simdjson::dom::element e) const;
  /// The number's exact decimal text (its token, or an integer's digits), valid until
  /// the next call.
  std::string_view decimal_text(simdjson::dom::element e);
  /// Jackson's isLong(): an integer within int64's range.
  bool is_long(simdjson::dom::element e) const;
  /// Appends `e` as compact JSON, numbers as their text (a token keeps its exact
  /// digits); a canonical form of the document (strings escaped as weir writes them).
  void write_json(simdjson::dom::element e, std::string& out) const;

private:
  std::string_view token(simdjson::dom::element e) const;

  bool indexed_ = false;
  std::vector<char> buffer_;               ///< the record for simdjson, padded
  std::vector<std::string_view> tokens_;   ///< an indexed record's number tokens, by ordinal
  std::string digits_;                     ///< decimal_text() of a plain integer
};

} // namespace weir::runtime::convert
