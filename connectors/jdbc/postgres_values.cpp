#include "connectors/jdbc/postgres_values.hpp"

#include <bit>
#include <charconv>
#include <cstring>
#include <vector>

#include "runtime/data/decimal.hpp"
#include "runtime/data/errors.hpp"

namespace weir::connectors::jdbc {

namespace {

using namespace runtime::data;

// Well-known type oids (pg_type.dat); stable across PostgreSQL versions.
enum Oid : uint32_t {
  BoolOid = 16, ByteaOid = 17, CharOid = 18, NameOid = 19, Int8Oid = 20, Int2Oid = 21,
  Int4Oid = 23, TextOid = 25, OidOid = 26, JsonOid = 114, XmlOid = 142, Float4Oid = 700,
  Float8Oid = 701, BpcharOid = 1042, VarcharOid = 1043, DateOid = 1082, TimeOid = 1083,
  TimestampOid = 1114, TimestamptzOid = 1184, NumericOid = 1700, UuidOid = 2950, JsonbOid = 3802
};

// Confluent's dialect constants (GenericDatabaseDialect).
constexpr int32_t scale_high = 127;  // NUMERIC_TYPE_SCALE_HIGH, for a numeric without scale
constexpr int32_t max_integer_precision = 18;
// 2000-01-01, PostgreSQL's epoch, in days and µs after 1970-01-01.
constexpr int64_t pg_epoch_days = 10957;
constexpr int64_t pg_epoch_micros = pg_epoch_days * 86400LL * 1000000LL;

template <class T>
T read_be(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  if constexpr (std::endian::native == std::endian::little && sizeof(T) > 1) {
    auto u = std::bit_cast<std::make_unsigned_t<T>>(v);
    u = [&] {
      if constexpr (sizeof(T) == 2) return static_cast<decltype(u)>(__builtin_bswap16(u));
      else if constexpr (sizeof(T) == 4) return static_cast<decltype(u)>(__builtin_bswap32(u));
      else return static_cast<decltype(u)>(__builtin_bswap64(u));
    }();
    v = std::bit_cast<T>(u);
  }
  return v;
}

int64_t floor_div(int64_t a, int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

PgKind scalar_kind(uint32_t oid) {
  switch (oid) {
    case BoolOid: return PgKind::Boolean;
    case Int2Oid: return PgKind::Int16;
    case Int4Oid: return PgKind::Int32;
    case Int8Oid: return PgKind::Int64;
    case OidOid: return PgKind::Oid;
    case Float4Oid: return PgKind::Float32;
    case Float8Oid: return PgKind::Float64;
    case NumericOid: return PgKind::Decimal;
    case CharOid:
    case NameOid:
    case TextOid:
    case BpcharOid:
    case VarcharOid:
    case JsonOid:
    case XmlOid: return PgKind::Text;
    case JsonbOid: return PgKind::Jsonb;
    case UuidOid: return PgKind::Uuid;
    case ByteaOid: return PgKind::Bytes;
    case DateOid: return PgKind::Date;
    case TimeOid: return PgKind::Time;
    case TimestampOid:
    case TimestamptzOid: return PgKind::Timestamp;
    default: return PgKind::Unsupported;
  }
}

SchemaPtr integer_schema(int32_t precision, bool optional, PgKind& kind) {
  if (precision > 9) {
    kind = PgKind::NumericInt64;
    return schemas::of(Type::Int64, optional);
  }
  if (precision > 4) {
    kind = PgKind::NumericInt32;
    return schemas::of(Type::Int32, optional);
  }
  if (precision > 2) {
    kind = PgKind::NumericInt16;
    return schemas::of(Type::Int16, optional);
  }
  kind = PgKind::NumericInt8;
  return schemas::of(Type::Int8, optional);
}

/// NUMERIC's schema under numeric.mapping; `kind` becomes how its values are read.
SchemaPtr numeric_schema(int32_t type_modifier, NumericMapping mapping, bool optional, PgKind& kind,
                         int32_t& scale) {
  // An unconstrained numeric has no precision (PgJDBC reports 0) and no fixed scale.
  bool constrained = type_modifier >= 4;
  int32_t precision = constrained ? ((type_modifier - 4) >> 16) & 0xffff : 0;
  scale = constrained ? static_cast<int16_t>((type_modifier - 4) & 0xffff) : 0;
  if (constrained) {
    bool fits = precision <= max_integer_precision;
    switch (mapping) {
      case NumericMapping::PrecisionOnly:
        if (scale == 0 && fits)
          return integer_schema(precision, optional, kind);
        break;
      case NumericMapping::BestFit:
        if (fits && scale < 1)
          return integer_schema(precision, optional, kind);
        if (fits && scale > 0) {
          kind = PgKind::NumericDouble;
          return schemas::of(Type::Float64, optional);
        }
        break;
      case NumericMapping::BestFitEagerDouble:
        if (scale < 1 && fits)
          return integer_schema(precision, optional, kind);
        if (scale > 0) {
          kind = PgKind::NumericDouble;
          return schemas::of(Type::Float64, optional);
        }
        break;
      case NumericMapping::None: break;
    }
  } else {
    scale = scale_high;
  }
  kind = PgKind::Decimal;
  return SchemaBuilder::decimal(scale)
    .parameter("connect.decimal.precision", std::to_string(precision))
    .optional(optional)
    .build();
}

SchemaPtr scalar_schema(PgKind kind, bool optional) {
  switch (kind) {
    case PgKind::Boolean: return schemas::of(Type::Boolean, optional);
    case PgKind::Int16: return schemas::of(Type::Int16, optional);
    case PgKind::Int32: return schemas::of(Type::Int32, optional);
    case PgKind::Int64:
    case PgKind::Oid: return schemas::of(Type::Int64, optional);
    case PgKind::Float32: return schemas::of(Type::Float32, optional);
    case PgKind::Float64: return schemas::of(Type::Float64, optional);
    case PgKind::Text:
    case PgKind::Jsonb:
    case PgKind::Uuid: return schemas::of(Type::String, optional);
    case PgKind::Bytes: return schemas::of(Type::Bytes, optional);
    case PgKind::Date: return SchemaBuilder::date().optional(optional).build();
    case PgKind::Time: return SchemaBuilder::time().optional(optional).build();
    case PgKind::Timestamp: return SchemaBuilder::timestamp().optional(optional).build();
    default: return nullptr;
  }
}

[[noreturn]] void bad(std::string_view what, const std::string& why) {
  throw DataError("JdbcSourceConnector: " + std::string{what} + ": " + why);
}

void need(std::string_view bytes, size_t n, std::string_view what) {
  if (bytes.size() < n)
    bad(what, "a binary value of " + std::to_string(bytes.size()) + " bytes is too short");
}

/// Digits of |decimal text| at `scale` (rounded half up), without sign or point.
std::string unscaled_digits(std::string_view text, int32_t scale, bool& negative) {
  negative = !text.empty() && text[0] == '-';
  if (negative || (!text.empty() && text[0] == '+'))
    text.remove_prefix(1);
  auto point = text.find('.');
  std::string_view whole = text.substr(0, point);
  std::string_view fraction = point == std::string_view::npos ? std::string_view{} : text.substr(point + 1);
  std::string digits{whole};
  bool round_up = false;
  if (scale >= 0) {
    auto s = static_cast<size_t>(scale);
    if (fraction.size() > s) {
      round_up = fraction[s] >= '5';
      fraction = fraction.substr(0, s);
    }
    digits += fraction;
    digits.append(s - fraction.size(), '0');
  } else {
    // A negative scale drops whole digits.
    auto drop = static_cast<size_t>(-scale);
    if (digits.size() >= drop) {
      round_up = drop > 0 && digits.size() >= drop && digits[digits.size() - drop] >= '5';
      digits.resize(digits.size() - drop);
    } else {
      digits.clear();
    }
  }
  if (round_up) {
    size_t i = digits.size();
    while (i > 0 && digits[i - 1] == '9')
      digits[--i] = '0';
    if (i == 0)
      digits.insert(digits.begin(), '1');
    else
      ++digits[i - 1];
  }
  return digits;
}

/// A binary numeric as an unscaled integer at `scale`, without text: the common case
/// (up to 32 digits, no rounding needed). False when it does not fit, is NaN or
/// infinite, or has digits beyond `scale`: then the text path decides.
bool numeric_unscaled(std::string_view b, int32_t scale, int128& out) {
  if (b.size() < 8)
    return false;
  auto ndigits = read_be<int16_t>(b.data());
  auto weight = read_be<int16_t>(b.data() + 2);
  auto sign = read_be<uint16_t>(b.data() + 4);
  if ((sign != 0 && sign != 0x4000) || ndigits > 8 || ndigits < 0 || b.size() < 8 + 2 * static_cast<size_t>(ndigits))
    return false;
  int128 acc = 0;
  for (int i = 0; i < ndigits; ++i)
    acc = acc * 10000 + read_be<int16_t>(b.data() + 8 + 2 * i);
  // acc counts units of 10^-places.
  int32_t places = 4 * (ndigits - 1 - weight);
  if (ndigits == 0)
    places = 0;
  if (places > scale) {
    for (; places > scale; --places) {
      if (acc % 10 != 0)
        return false;
      acc /= 10;
    }
  }
  for (; places < scale; ++places) {
    if (acc > (int128{1} << 120))
      return false;
    acc *= 10;
  }
  out = sign == 0x4000 ? -acc : acc;
  return true;
}

Value decode_scalar(PgKind kind, int32_t scale, std::string_view b, Arena& arena, std::string_view what) {
  switch (kind) {
    case PgKind::Boolean: need(b, 1, what); return Value::boolean(b[0] != 0);
    case PgKind::Int16: need(b, 2, what); return Value::int16(read_be<int16_t>(b.data()));
    case PgKind::Int32: need(b, 4, what); return Value::int32(read_be<int32_t>(b.data()));
    case PgKind::Int64: need(b, 8, what); return Value::int64(read_be<int64_t>(b.data()));
    case PgKind::Oid: need(b, 4, what); return Value::int64(read_be<uint32_t>(b.data()));
    case PgKind::Float32: need(b, 4, what); return Value::float32(std::bit_cast<float>(read_be<uint32_t>(b.data())));
    case PgKind::Float64: need(b, 8, what); return Value::float64(std::bit_cast<double>(read_be<uint64_t>(b.data())));
    case PgKind::Text: return Value::string(b);
    case PgKind::Jsonb:
      // jsonb's binary form is a version byte (1) followed by the JSON text.
      if (b.empty() || b[0] != 1)
        bad(what, "unknown jsonb binary format version");
      return Value::string(b.substr(1));
    case PgKind::Uuid: {
      need(b, 16, what);
      static constexpr char hex[] = "0123456789abcdef";
      char text[36];
      size_t o = 0;
      for (size_t i = 0; i < 16; ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
          text[o++] = '-';
        auto byte = static_cast<unsigned char>(b[i]);
        text[o++] = hex[byte >> 4];
        text[o++] = hex[byte & 15];
      }
      return Value::plain_string(arena.copy({text, sizeof text}));
    }
    case PgKind::Bytes: return Value::bytes(b);
    case PgKind::Date: {
      need(b, 4, what);
      auto days = read_be<int32_t>(b.data());
      if (days == INT32_MAX || days == INT32_MIN)
        bad(what, "an infinite date has no Connect Date");
      return Value::int32(static_cast<int32_t>(days + pg_epoch_days));
    }
    case PgKind::Time:
      need(b, 8, what);
      return Value::int32(static_cast<int32_t>(read_be<int64_t>(b.data()) / 1000));
    case PgKind::Timestamp: {
      need(b, 8, what);
      auto micros = read_be<int64_t>(b.data());
      if (micros == INT64_MAX || micros == INT64_MIN)
        bad(what, "an infinite timestamp has no Connect Timestamp");
      return Value::int64(floor_div(micros + pg_epoch_micros, 1000));
    }
    case PgKind::Decimal:
    case PgKind::NumericDouble:
    case PgKind::NumericInt8:
    case PgKind::NumericInt16:
    case PgKind::NumericInt32:
    case PgKind::NumericInt64: {
      int128 unscaled = 0;
      if (kind == PgKind::Decimal && numeric_unscaled(b, scale, unscaled))
        return Value::bytes(arena.copy(decimal_bytes(unscaled)));
      if (kind != PgKind::Decimal && kind != PgKind::NumericDouble && numeric_unscaled(b, 0, unscaled)) {
        auto v = static_cast<int64_t>(unscaled);
        switch (kind) {
          case PgKind::NumericInt8: return Value::int8(static_cast<int8_t>(v));
          case PgKind::NumericInt16: return Value::int16(static_cast<int16_t>(v));
          case PgKind::NumericInt32: return Value::int32(static_cast<int32_t>(v));
          default: return Value::int64(v);
        }
      }
      auto text = numeric_text(b);
      if (!text)
        bad(what, "NaN or infinity has no Connect " + std::string{kind == PgKind::NumericDouble ? "FLOAT64" : kind == PgKind::Decimal ? "Decimal" : "integer"});
      if (kind == PgKind::Decimal)
        return Value::bytes(arena.copy(decimal_bytes_of(*text, scale)));
      if (kind == PgKind::NumericDouble) {
        double d = 0;
        std::from_chars(text->data(), text->data() + text->size(), d);
        return Value::float64(d);
      }
      // Java's getLong/getInt/...: the integer part, its low bits.
      int64_t v = 0;
      auto whole = std::string_view{*text}.substr(0, text->find('.'));
      if (std::from_chars(whole.data(), whole.data() + whole.size(), v).ec != std::errc{})
        bad(what, "numeric " + *text + " does not fit 64 bits");
      switch (kind) {
        case PgKind::NumericInt8: return Value::int8(static_cast<int8_t>(v));
        case PgKind::NumericInt16: return Value::int16(static_cast<int16_t>(v));
        case PgKind::NumericInt32: return Value::int32(static_cast<int32_t>(v));
        default: return Value::int64(v);
      }
    }
    default: bad(what, "unsupported type");
  }
}

} // namespace

NumericMapping numeric_mapping(std::string_view text) {
  if (text == "best_fit")
    return NumericMapping::BestFit;
  if (text == "best_fit_eager_double")
    return NumericMapping::BestFitEagerDouble;
  if (text == "precision_only")
    return NumericMapping::PrecisionOnly;
  return NumericMapping::None;
}

bool is_integer_type(uint32_t oid) noexcept { return oid == Int2Oid || oid == Int4Oid || oid == Int8Oid; }
bool is_timestamp_type(uint32_t oid) noexcept { return oid == TimestampOid || oid == TimestamptzOid; }
bool is_zoned_timestamp_type(uint32_t oid) noexcept { return oid == TimestamptzOid; }

ColumnPlan plan_column(const PgColumn& column, NumericMapping mapping) {
  ColumnPlan plan;
  plan.name = column.name;
  bool optional = !column.not_null;
  if (column.element_oid != 0) {
    plan.element = scalar_kind(column.element_oid);
    if (plan.element == PgKind::Unsupported)
      return plan;
    SchemaPtr element;
    if (plan.element == PgKind::Decimal)
      // An array's type modifier is its element's.
      element = numeric_schema(column.type_modifier, NumericMapping::None, true, plan.element, plan.scale);
    else
      element = scalar_schema(plan.element, true);
    plan.kind = PgKind::Array;
    plan.schema = SchemaBuilder::array(element).optional(optional).build();
    return plan;
  }
  plan.kind = scalar_kind(column.type_oid);
  if (plan.kind == PgKind::Decimal)
    plan.schema = numeric_schema(column.type_modifier, mapping, optional, plan.kind, plan.scale);
  else
    plan.schema = scalar_schema(plan.kind, optional);
  return plan;
}

Value decode_binary(const ColumnPlan& plan, std::string_view b, Arena& arena, std::string_view what) {
  if (plan.kind != PgKind::Array)
    return decode_scalar(plan.kind, plan.scale, b, arena, what);
  // ndim, has-nulls flag, element oid, then per dimension (size, lower bound), then
  // the elements as (length or -1, bytes).
  need(b, 12, what);
  auto dims = read_be<int32_t>(b.data());
  if (dims == 0)
    return Value::array(arena, 0);
  if (dims != 1)
    bad(what, "an array of " + std::to_string(dims) + " dimensions has no Connect schema (one dimension only)");
  need(b, 20, what);
  auto count = read_be<int32_t>(b.data() + 12);
  size_t at = 20;
  Value out = Value::array(arena, static_cast<uint32_t>(count));
  for (int32_t i = 0; i < count; ++i) {
    need(b, at + 4, what);
    auto n = read_be<int32_t>(b.data() + at);
    at += 4;
    if (n < 0) {
      out.push_back(arena, Value{});
      continue;
    }
    need(b, at + static_cast<size_t>(n), what);
    out.push_back(arena, decode_scalar(plan.element, plan.scale, b.substr(at, static_cast<size_t>(n)), arena, what));
    at += static_cast<size_t>(n);
  }
  return out;
}

int64_t binary_integer(std::string_view b) {
  switch (b.size()) {
    case 2: return read_be<int16_t>(b.data());
    case 4: return read_be<int32_t>(b.data());
    case 8: return read_be<int64_t>(b.data());
    default: throw DataError("JdbcSourceConnector: an integer of " + std::to_string(b.size()) + " bytes");
  }
}

int64_t binary_timestamp_micros(std::string_view b) {
  if (b.size() != 8)
    throw DataError("JdbcSourceConnector: a timestamp of " + std::to_string(b.size()) + " bytes");
  return read_be<int64_t>(b.data()) + pg_epoch_micros;
}

std::optional<std::string> numeric_text(std::string_view b) {
  // ndigits, weight (of the first digit, in base 10000), sign, dscale, then digits.
  if (b.size() < 8)
    throw DataError("JdbcSourceConnector: a numeric of " + std::to_string(b.size()) + " bytes");
  auto ndigits = read_be<int16_t>(b.data());
  auto weight = read_be<int16_t>(b.data() + 2);
  auto sign = read_be<uint16_t>(b.data() + 4);
  auto dscale = read_be<int16_t>(b.data() + 6);
  if (sign == 0xC000 || sign == 0xD000 || sign == 0xF000)
    return std::nullopt;
  if (b.size() < 8 + 2 * static_cast<size_t>(ndigits))
    throw DataError("JdbcSourceConnector: a numeric's digits are cut short");
  auto digit = [&](int i) -> int { return i >= 0 && i < ndigits ? read_be<int16_t>(b.data() + 8 + 2 * i) : 0; };
  std::string out = sign == 0x4000 ? "-" : "";
  if (weight < 0) {
    out += '0';
  } else {
    for (int i = 0; i <= weight; ++i) {
      char group[8];
      std::snprintf(group, sizeof group, i == 0 ? "%d" : "%04d", digit(i));
      out += group;
    }
  }
  if (dscale > 0) {
    out += '.';
    std::string fraction;
    for (int i = weight + 1; static_cast<int>(fraction.size()) < dscale; ++i) {
      char group[8];
      std::snprintf(group, sizeof group, "%04d", digit(i));
      fraction += group;
    }
    fraction.resize(static_cast<size_t>(dscale));
    out += fraction;
  }
  if (out == "-0" || (out.starts_with("-0.") && out.find_first_not_of("0.", 1) == std::string::npos))
    out.erase(0, 1);
  return out;
}

std::string decimal_bytes_of(std::string_view text, int32_t scale) {
  bool negative = false;
  auto digits = unscaled_digits(text, scale, negative);
  // Decimal digits to a little-endian magnitude in base 256.
  std::vector<uint8_t> magnitude;
  for (char c : digits) {
    unsigned carry = static_cast<unsigned>(c - '0');
    for (auto& byte : magnitude) {
      unsigned v = byte * 10u + carry;
      byte = static_cast<uint8_t>(v & 0xff);
      carry = v >> 8;
    }
    if (carry)
      magnitude.push_back(static_cast<uint8_t>(carry));
  }
  while (!magnitude.empty() && magnitude.back() == 0)
    magnitude.pop_back();
  if (magnitude.empty())
    return std::string(1, '\0');
  magnitude.push_back(0); // room for the sign bit
  if (negative) {
    unsigned carry = 1;
    for (auto& byte : magnitude) {
      unsigned v = static_cast<uint8_t>(~byte) + carry;
      byte = static_cast<uint8_t>(v & 0xff);
      carry = v >> 8;
    }
  }
  // Minimal two's complement: drop leading bytes that only repeat the sign.
  while (magnitude.size() > 1) {
    uint8_t top = magnitude.back(), next = magnitude[magnitude.size() - 2];
    if ((top == 0 && !(next & 0x80)) || (top == 0xff && (next & 0x80)))
      magnitude.pop_back();
    else
      break;
  }
  return {magnitude.rbegin(), magnitude.rend()};
}

} // namespace weir::connectors::jdbc
