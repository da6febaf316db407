#include "runtime/convert/json_dom_numbers.hpp"

#include <cmath>
#include <cstring>

#include "runtime/convert/json_number.hpp"
#include "runtime/convert/json_text.hpp"
#include "runtime/data/errors.hpp"

namespace weir::runtime::convert {

namespace dom = simdjson::dom;
using T = dom::element_type;

namespace {

[[noreturn]] void needs_text() { throw DomNumbers::NeedsText{}; }

[[noreturn]] void serialization_error(std::string_view what) {
  throw data::DataError("Converting byte[] to Kafka Connect data failed due to serialization error: "
                        + std::string(what));
}

} // namespace

bool DomNumbers::parse_plain(dom::parser& parser, std::string_view bytes, dom::element& root) {
  indexed_ = false;
  if (buffer_.size() < bytes.size() + simdjson::SIMDJSON_PADDING)
    buffer_.resize(bytes.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(buffer_.data(), bytes.data(), bytes.size());
  return parser.parse(buffer_.data(), bytes.size(), false).get(root) == simdjson::SUCCESS;
}

dom::element DomNumbers::parse_indexed(dom::parser& parser, std::string_view bytes) {
  indexed_ = true;
  tokens_.clear();
  json_number::index_tokens(bytes, buffer_, simdjson::SIMDJSON_PADDING, tokens_);
  dom::element root;
  if (auto error = parser.parse(buffer_.data(), buffer_.size() - simdjson::SIMDJSON_PADDING, false).get(root))
    serialization_error(simdjson::error_message(error));
  for (std::string_view t : tokens_)
    if (auto why = json_number::problem(t)) [[unlikely]]
      serialization_error(*why);
  return root;
}

bool DomNumbers::is_number(dom::element e) noexcept {
  auto t = e.type();
  return t == T::INT64 || t == T::UINT64 || t == T::DOUBLE;
}

std::string_view DomNumbers::token(dom::element e) const {
  return tokens_[static_cast<size_t>(e.get_int64().value_unsafe())];
}

bool DomNumbers::is_integral(dom::element e) const {
  if (indexed_)
    return is_number(e) && json_number::integral(token(e));
  return e.type() == T::INT64 || e.type() == T::UINT64;
}

bool DomNumbers::is_int(dom::element e) const {
  if (indexed_)
    return is_number(e) && json_number::is_int(token(e));
  if (e.type() != T::INT64)
    return false;
  int64_t v = e.get_int64().value_unsafe();
  return v == static_cast<int32_t>(v);
}

int64_t DomNumbers::long_value(dom::element e) const {
  if (indexed_)
    return json_number::long_value(token(e));
  switch (e.type()) {
    case T::INT64: return e.get_int64().value_unsafe();
    case T::UINT64: return static_cast<int64_t>(e.get_uint64().value_unsafe()); // its low 64 bits
    default: needs_text(); // a fraction: BigDecimal truncates its exact value
  }
}

int32_t DomNumbers::int_value(dom::element e) const {
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(long_value(e))));
}

float DomNumbers::float_value(dom::element e) const {
  if (indexed_)
    return json_number::float_value(token(e));
  switch (e.type()) { // an integer converts with one rounding; a double would round twice
    case T::INT64: return static_cast<float>(e.get_int64().value_unsafe());
    case T::UINT64: return static_cast<float>(e.get_uint64().value_unsafe());
    default: needs_text();
  }
}

double DomNumbers::double_value(dom::element e) const {
  if (indexed_)
    return json_number::double_value(token(e));
  switch (e.type()) {
    case T::INT64: return static_cast<double>(e.get_int64().value_unsafe());
    case T::UINT64: return static_cast<double>(e.get_uint64().value_unsafe());
    default: {
      double d = e.get_double().value_unsafe();
      if (d == 0 && std::signbit(d))
        needs_text(); // -0.0 (Connect: 0.0) or an underflow (-0.0)
      return d;
    }
  }
}

std::string_view DomNumbers::decimal_text(dom::element e) {
  if (indexed_)
    return token(e);
  digits_.clear();
  switch (e.type()) {
    case T::INT64: append_int(e.get_int64().value_unsafe(), digits_); break;
    case T::UINT64: digits_ = std::to_string(e.get_uint64().value_unsafe()); break;
    default: needs_text(); // a double has lost digits
  }
  return digits_;
}

void DomNumbers::append_text(dom::element e, std::string& out) const {
  if (indexed_) {
    out += token(e);
    return;
  }
  switch (e.type()) {
    case T::INT64: append_int(e.get_int64().value_unsafe(), out); break;
    case T::UINT64: out += std::to_string(e.get_uint64().value_unsafe()); break;
    default: needs_text(); // keys from a fraction's text: the same in both parses
  }
}

} // namespace weir::runtime::convert
