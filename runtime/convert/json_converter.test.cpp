#include "runtime/convert/json_converter.hpp"

#include <cmath>

#include <boost/test/unit_test.hpp>

#include "runtime/convert/json_text.hpp"
#include "runtime/data/decimal.hpp"

using namespace weir::runtime::convert;
using namespace weir::runtime::data;

namespace {

// Decodes `json` with a converter and encodes the result again.
struct RoundTrip {
  JsonConverter conv;
  DecodedBatch batch;
  Value value;
  const Schema* schema = nullptr;

  explicit RoundTrip(JsonConverter::Options o) : conv(o) {}

  std::string operator()(std::string_view json) {
    conv.to_connect(json, batch, value, schema);
    std::string out;
    if (!conv.from_connect(value, schema, out))
      return "<null>";
    return out;
  }
};

constexpr JsonConverter::Options plain{false, false, true, 1000};
constexpr JsonConverter::Options enveloped{true, false, true, 1000};

} // namespace

BOOST_AUTO_TEST_SUITE(json_converter)

BOOST_AUTO_TEST_CASE(schemaless_types) {
  RoundTrip rt(plain);
  BOOST_TEST(rt(R"({"a":1,"b":2.5,"c":"x","d":[true,null],"e":{"f":-3}})")
             == R"({"a":1,"b":2.5,"c":"x","d":[true,null],"e":{"f":-3}})");
  rt(R"({"i":1,"d":1.0})");
  BOOST_TEST((rt.value.kind() == Kind::Map));
  BOOST_TEST((rt.value.find("i")->kind() == Kind::Int64));
  BOOST_TEST((rt.value.find("d")->kind() == Kind::Float64));
  BOOST_TEST(rt("1.0") == "1.0");
  BOOST_TEST(rt("-0.0") == "0.0", "Connect reads fractions as BigDecimal, which has no -0");
  BOOST_TEST(rt(R"({"a":-0.0,"b":[-0.0]})") == R"({"a":0.0,"b":[0.0]})");
  BOOST_TEST(rt("\"s\"") == "\"s\"");
  BOOST_TEST(rt("null") == "<null>");
  BOOST_TEST(rt("") == "<null>"); // Jackson: missing node -> null
}

// The schemaless writer copies plain keys and strings at their size and checks its
// room entry by entry: every short length, an object that outgrows the buffer part
// way, and keys or strings to escape after plain ones must come out exact.
BOOST_AUTO_TEST_CASE(schemaless_writer_lengths_growth_and_escapes) {
  RoundTrip rt(plain);
  for (size_t n = 0; n <= 40; ++n) {
    std::string s;
    for (size_t i = 0; i < n; ++i)
      s += static_cast<char>('a' + i % 26);
    for (const std::string& json : {"{\"" + s + "\":\"" + s + "\",\"n\":" + std::to_string(n) + "}",
                                    "{\"n\":" + std::to_string(-1 - static_cast<int>(n)) + ",\"" + s + "\":[\"" + s + "\"]}"})
      BOOST_TEST(rt(json) == json);
  }
  std::string big = "{";
  for (int i = 0; i < 2000; ++i)
    big += "\"key" + std::to_string(i) + "\":\"" + std::string(static_cast<size_t>(i % 50), 'v') + "\",";
  big.back() = '}';
  BOOST_TEST(rt(big) == big);
  const std::string escapes[][2] = {
      {R"({"a":1,"b\"c":2})", R"({"a":1,"b\"c":2})"},
      {R"({"a":"x","b":"y\u0001z","c":3.5})", R"({"a":"x","b":"y\u0001z","c":3.5})"},
      {R"({"a":{"b":1,"c\nd":[1,"\t"]},"e":"f"})", R"({"a":{"b":1,"c\nd":[1,"\t"]},"e":"f"})"},
      {R"({"\u0061":"\u0062","c":"\/"})", R"({"a":"b","c":"/"})"},
  };
  for (const auto& [in, out] : escapes)
    BOOST_TEST(rt(in) == out);
}

// Found by fuzzing (tests/fuzz/offline_transform): an empty string whose view has a
// null data pointer (Arena::copy of "" gives one) went to memcpy as its source, plain
// or escaped, which is undefined even for 0 bytes (UBSan reports it in the sanitizer
// build).
BOOST_AUTO_TEST_CASE(empty_strings_with_a_null_view) {
  JsonConverter conv(plain);
  Arena arena;
  Value m = Value::map(arena, 2);
  m.put(arena, "a", Value::plain_string({}));
  m.put(arena, "b", Value::string(std::string_view{}));
  std::string out;
  BOOST_REQUIRE(conv.from_connect(m, nullptr, out));
  BOOST_TEST(out == R"({"a":"","b":""})");
  JsonBuffer buffer;
  buffer += std::string_view{};
  BOOST_TEST(buffer.view().empty());
}

BOOST_AUTO_TEST_CASE(negative_zero_and_wide_integers_with_schemas) {
  RoundTrip rt(enveloped);
  BOOST_TEST(rt(R"({"schema":{"type":"double","optional":false},"payload":-0.0})") ==
             R"({"schema":{"type":"double","optional":false},"payload":0.0})");
  // Wider than int64 (up to uint64): the low 64 bits, as Jackson's BigInteger.longValue().
  BOOST_TEST(rt(R"({"schema":{"type":"int64","optional":false},"payload":18446744073709551615})") ==
             R"({"schema":{"type":"int64","optional":false},"payload":-1})");
}

BOOST_AUTO_TEST_CASE(envelope_required_when_schemas_enabled) {
  RoundTrip rt(enveloped);
  BOOST_CHECK_EXCEPTION(rt(R"({"a":1})"), DataError, [](const DataError& e) {
    return std::string(e.what()).find("requires \"schema\" and \"payload\"") != std::string::npos
           && e.exception_class() == "org.apache.kafka.connect.errors.DataException";
  });
  BOOST_CHECK_THROW(rt(R"({"schema":null,"payload":1,"x":2})"), DataError);
  BOOST_CHECK_THROW(rt("not json"), DataError);
  BOOST_TEST(rt(R"({"schema":null,"payload":{"a":1}})") == R"({"schema":null,"payload":{"a":1}})");
}

BOOST_AUTO_TEST_CASE(struct_envelope_round_trips_exactly) {
  RoundTrip rt(enveloped);
  std::string in =
      R"({"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},)"
      R"({"type":"string","optional":true,"field":"name"},)"
      R"({"type":"array","items":{"type":"double","optional":false},"optional":true,"field":"xs"},)"
      R"({"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int64","optional":false},"optional":true,"field":"m"}],)"
      R"("optional":false,"name":"com.example.V","version":3},)"
      R"("payload":{"id":7,"name":"n","xs":[1.5,2.0],"m":{"k":1}}})";
  BOOST_TEST(rt(in) == in);
  BOOST_TEST((rt.value.kind() == Kind::Struct));
  BOOST_TEST(rt.schema->version().value() == 3);
  // Same schema text -> same interned schema.
  const Schema* first = rt.schema;
  rt(in);
  BOOST_TEST(rt.schema == first);
}

// A record that starts with the schema its predecessor started with reuses that schema
// (intern_leading): only when its schema's text is exactly the same, braces and quotes
// inside strings included, and when that member is the record's only "schema".
BOOST_AUTO_TEST_CASE(a_leading_schema_is_reused_only_for_the_same_text) {
  RoundTrip rt(enveloped);
  auto doc = [](std::string_view d) {
    return R"({"type":"int32","optional":false,"doc":")" + std::string(d) + R"("})";
  };
  auto record = [](const std::string& schema, std::string_view payload) {
    return R"({"schema":)" + schema + R"(,"payload":)" + std::string(payload) + "}";
  };
  rt(record(doc(R"(a}\"{)"), "1"));
  const Schema* first = rt.schema;
  BOOST_TEST(first->doc().value() == R"(a}"{)");
  rt(record(doc(R"(a}\"{)"), "2"));
  BOOST_TEST(rt.schema == first);
  BOOST_TEST(rt.value.as_int() == 2);
  // The same first bytes, up to the quote the scan must not take for the string's end.
  rt(record(doc(R"(a}\"{x)"), "3"));
  BOOST_TEST(rt.schema->doc().value() == R"(a}"{x)");
  // Longer than the last schema's text, which is a prefix of it but for the brace.
  rt(record(R"({"type":"int64","optional":false})", "4"));
  rt(record(R"({"type":"int64","optional":false,"doc":"d"})", "5"));
  BOOST_TEST(rt.schema->doc().value() == "d");
  // A repeated "schema": the last one counts, as in Jackson's tree.
  rt(record(R"({"type":"int64","optional":false,"doc":"d"})", R"("6","schema":{"type":"string","optional":false})"));
  BOOST_TEST((rt.schema->type() == Type::String));
  BOOST_CHECK_THROW(rt(R"({"schema":{"type":"int64","optional":false,"doc":"d"},"payload":7,"schema":"x"})"),
                    DataError);
  // After a known schema only payloads are read, and the envelope's rules still hold.
  const std::string known = R"({"schema":{"type":"int64","optional":false,"doc":"d"})";
  rt(known + R"(,"payload":1})");
  rt(known + R"( , "payload":1,"payload":2})");
  BOOST_TEST(rt.value.as_int() == 2);
  BOOST_TEST(rt.schema->doc().value() == "d");
  auto error_of = [&](const std::string& record) {
    try {
      rt(record);
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  BOOST_TEST(error_of(known + R"(,"payload":1,"extra":2})").find("may not contain additional fields")
             != std::string::npos);
  BOOST_TEST(error_of(known + "}").find("requires \"schema\" and \"payload\" fields") != std::string::npos);
  BOOST_TEST(error_of(known + R"(,"payload":"x"})") == "Invalid type for INT64 field: expected int64 but JSON was STRING");
  BOOST_TEST(error_of(known + R"(,"payload":)").find("serialization error") != std::string::npos);
  // Whitespace before the schema is part of its text.
  rt(R"({"schema": {"type":"boolean","optional":false},"payload":true})");
  BOOST_TEST((rt.schema->type() == Type::Boolean));
  rt(R"({"schema": {"type":"boolean","optional":false},"payload":false})");
  BOOST_TEST((rt.schema->type() == Type::Boolean));
  BOOST_TEST(rt.value.as_bool() == false);
}

BOOST_AUTO_TEST_CASE(missing_and_null_fields) {
  RoundTrip rt(enveloped);
  const char* schema =
      R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},)"
      R"({"type":"int32","optional":true,"default":5,"field":"n"}],"optional":false})";
  std::string missing_required = std::string(R"({"schema":)") + schema + R"(,"payload":{}})";
  BOOST_CHECK_EXCEPTION(rt(missing_required), DataError, [](const DataError& e) {
    return std::string(e.what()) == "Invalid null value for required INT32 field";
  });
  std::string null_default = std::string(R"({"schema":)") + schema + R"(,"payload":{"id":1,"n":null}})";
  BOOST_TEST(rt(null_default).find(R"("payload":{"id":1,"n":5})") != std::string::npos);

  RoundTrip keep(JsonConverter::Options{true, false, false, 1000});
  BOOST_TEST(keep(null_default).find(R"("payload":{"id":1,"n":null})") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(type_mismatch_is_a_data_error) {
  RoundTrip rt(enveloped);
  BOOST_CHECK_THROW(rt(R"({"schema":{"type":"int32","optional":false},"payload":"x"})"), DataError);
  BOOST_CHECK_THROW(rt(R"({"schema":{"type":"nope","optional":false},"payload":1})"), DataError);
  BOOST_CHECK_THROW(rt(R"({"schema":{"type":"struct","optional":false},"payload":{}})"), DataError);
}

BOOST_AUTO_TEST_CASE(logical_types) {
  RoundTrip rt(enveloped);
  // Decimal 12.34 at scale 2: unscaled 1234 = 0x04D2 -> base64 "BNI=".
  std::string dec =
      R"({"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},"payload":"BNI="})";
  BOOST_TEST(rt(dec) == dec);
  BOOST_TEST((decimal_unscaled(rt.value.as_string()) == 1234));
  // A numeric payload is accepted on input too.
  std::string numeric_in =
      R"({"schema":{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2"}},"payload":12.34})";
  BOOST_TEST(rt(numeric_in) == dec);
  RoundTrip num(JsonConverter::Options{true, true, true, 1000});
  BOOST_TEST(num(dec) == numeric_in);

  std::string ts =
      R"({"schema":{"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1},"payload":1700000000000})";
  BOOST_TEST(rt(ts) == ts);
  BOOST_CHECK_THROW(
      rt(R"({"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1},"payload":1.5})"),
      DataError);
}

BOOST_AUTO_TEST_CASE(bytes_are_base64) {
  RoundTrip rt(enveloped);
  std::string in = R"({"schema":{"type":"bytes","optional":false},"payload":"aGVsbG8="})";
  BOOST_TEST(rt(in) == in);
  BOOST_TEST(rt.value.as_string() == "hello");
}

BOOST_AUTO_TEST_CASE(required_null_cannot_be_serialized) {
  JsonConverter conv(enveloped);
  auto s = SchemaBuilder(Type::Int32).build();
  std::string out;
  BOOST_CHECK_THROW(conv.from_connect(Value(), s.get(), out), DataError);
  BOOST_TEST(!conv.from_connect(Value(), nullptr, out)); // null schema + null value: Kafka null
}

// Jackson's tree keeps one member per key: the last value, at the key's first
// position. Without schemas the fast decoder reads the record; with schemas (and a
// null schema) the envelope path does. Both must agree.
BOOST_AUTO_TEST_CASE(repeated_keys_keep_the_last_value_at_the_first_position) {
  struct Case {
    const char* name;
    const char* in;
    const char* out;
  };
  const Case cases[] = {
      {"top level", R"({"a":1,"b":2,"a":3})", R"({"a":3,"b":2})"},
      {"nested", R"({"x":{"a":1,"b":2,"a":3},"y":[{"k":1,"k":2}]})", R"({"x":{"a":3,"b":2},"y":[{"k":2}]})"},
      {"three times", R"({"a":1,"b":2,"a":3,"c":4,"a":5})", R"({"a":5,"b":2,"c":4})"},
      {"another type", R"({"a":"s","b":2,"a":{"c":[1]}})", R"({"a":{"c":[1]},"b":2})"},
      {"object replaced whole, not merged", R"({"a":{"x":1},"a":{"y":2}})", R"({"a":{"y":2}})"},
      {"null is a value too", R"({"a":1,"a":null})", R"({"a":null})"},
      {"escaped form of the same key", R"({"a":1,"\u0061":2,"\n":3,"\n":4})", R"({"a":2,"\n":4})"},
      {"empty key", R"({"":1,"b":2,"":3})", R"({"":3,"b":2})"},
      {"no repeats: unchanged, order kept", R"({"z":1,"y":2,"x":{"b":1,"a":2},"w":[3]})",
       R"({"z":1,"y":2,"x":{"b":1,"a":2},"w":[3]})"},
      {"same length and last byte, different keys", R"({"ab":1,"bb":2,"cb":3})", R"({"ab":1,"bb":2,"cb":3})"},
  };
  RoundTrip plain_rt(plain), envelope_rt(enveloped);
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(plain_rt(c.in) == c.out);
      std::string env = std::string(R"({"schema":null,"payload":)") + c.in + "}";
      BOOST_TEST(envelope_rt(env) == std::string(R"({"schema":null,"payload":)") + c.out + "}");
    }
  }
  // Lookups see the one entry.
  plain_rt(R"({"a":1,"b":2,"a":3})");
  BOOST_TEST(plain_rt.value.entries().size() == 2u);
  BOOST_TEST(plain_rt.value.find("a")->as_int() == 3);
}

BOOST_AUTO_TEST_CASE(repeated_keys_in_large_objects) {
  // Past the small-object path: 300 keys, each written twice, the second time with
  // its value + 1000, so the filter hits everywhere and the hash table decides.
  std::string in = "{", out = "{";
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < 300; ++i)
      in += (in.size() > 1 ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i + 1000 * round);
  for (int i = 0; i < 300; ++i)
    out += (i ? ",\"k" : "\"k") + std::to_string(i) + "\":" + std::to_string(i + 1000);
  in += "}";
  out += "}";
  RoundTrip rt(plain);
  BOOST_TEST(rt(in) == out);
  RoundTrip env(enveloped);
  BOOST_TEST(env(R"({"schema":null,"payload":)" + in + "}") == R"({"schema":null,"payload":)" + out + "}");
}

BOOST_AUTO_TEST_CASE(repeated_keys_with_schemas) {
  RoundTrip rt(enveloped);
  const std::string schema =
      R"({"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},)"
      R"({"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int64","optional":false},"optional":true,"field":"m"}],)"
      R"("optional":false})";
  struct Case {
    const char* name;
    std::string in;
    std::string out; ///< the payload written back
  };
  const Case cases[] = {
      {"struct field: the last value", R"({"id":1,"m":{},"id":2})", R"({"id":2,"m":{}})"},
      {"struct field: a wrong type earlier is not read", R"({"id":"x","id":3,"m":null})", R"({"id":3,"m":null})"},
      {"map with string keys", R"({"id":1,"m":{"k":1,"j":2,"k":3}})", R"({"id":1,"m":{"k":3,"j":2}})"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      BOOST_TEST(rt(R"({"schema":)" + schema + R"(,"payload":)" + c.in + "}")
                 == R"({"schema":)" + schema + R"(,"payload":)" + c.out + "}");
    }
  }
  // The envelope itself: each of its two keys may repeat, the last counts.
  BOOST_TEST(rt(R"({"schema":null,"payload":1,"payload":{"a":2}})") == R"({"schema":null,"payload":{"a":2}})");
  BOOST_TEST(rt(R"({"schema":{"type":"string","optional":false},"payload":1,"schema":null})") == R"({"schema":null,"payload":1})");
  BOOST_CHECK_THROW(rt(R"({"schema":null,"payload":1,"payload":2,"x":3})"), DataError);
  // Schemas: the last "type" counts; a parameter's earlier, non-string value is not checked.
  BOOST_TEST(rt(R"({"schema":{"type":"string","optional":false,"type":"int32"},"payload":5})")
             == R"({"schema":{"type":"int32","optional":false},"payload":5})");
  BOOST_TEST(rt(R"({"schema":{"type":"string","optional":false,"parameters":{"p":1,"q":"b","p":"a"}},"payload":"s"})")
             == R"({"schema":{"type":"string","optional":false,"parameters":{"p":"a","q":"b"}},"payload":"s"})");
}

// Numbers as Connect reads them (issue 19 item 21, bench/results/fuzz.md finding 3).
// Expected values are what JsonConverter's TO_CONNECT_CONVERTERS and logical
// converters give for the node Jackson builds (BigIntegerNode for integers beyond
// int64, DecimalNode for fractions): INT8/INT16 (byte)/(short) intValue(), INT32
// intValue(), INT64 and Timestamp longValue() (low bits; fractions truncated first),
// FLOAT32/FLOAT64 floatValue()/doubleValue() (correctly rounded), Date/Time only for
// isInt(), schemaless integers longValue(), Decimal decimalValue() (exact). The
// figures are worked out with exact integer arithmetic, as in json_number.test.cpp.
namespace {

const std::string big = "123456789012345678901234567890"; // > 2^96
const std::string minus_2_70 = "-1180591620717411315769";    // -2^70 - 12345

std::string enveloped_json(std::string_view schema, std::string_view payload) {
  return R"({"schema":)" + std::string(schema) + R"(,"payload":)" + std::string(payload) + "}";
}

std::string typed(std::string_view type) { return R"({"type":")" + std::string(type) + R"(","optional":false})"; }

std::string decimal_schema(int scale) {
  return R"({"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":")"
         + std::to_string(scale) + R"("}})";
}

} // namespace

BOOST_AUTO_TEST_CASE(integers_wider_than_64_bits_with_and_without_schemas) {
  RoundTrip with(enveloped), without(plain);
  struct Case {
    const char* type;
    std::string payload;
    Value want;
  };
  const Case cases[] = {
      {"int8", big, Value::int8(-46)},
      {"int16", big, Value::int16(2770)},
      {"int32", big, Value::int32(1312754386)},
      {"int64", big, Value::int64(-4362896299872285998)},
      {"float", big, Value::float32(0x1.8ee91p+96f)},
      {"double", big, Value::float64(0x1.8ee90ff6c373ep+96)},
      {"int8", minus_2_70, Value::int8(-57)},
      {"int16", minus_2_70, Value::int16(-12345)},
      {"int32", minus_2_70, Value::int32(-12345)},
      {"int64", minus_2_70, Value::int64(-12345)},
      {"int64", "-1180591620717411303424", Value::int64(0)}, // -2^70
      // (float) of the long 2^60 + 2^36 + 1: rounded once, up (through a double it
      // would be a tie rounded to even, 2^60).
      {"float", "1152921573326323713", Value::float32(0x1.000002p+60f)},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.type << " " << c.payload) {
      // A new converter (its first parse is a plain one: json_dom_numbers.hpp), then
      // one that has just needed the indexed parse.
      RoundTrip fresh(enveloped);
      fresh(enveloped_json(typed(c.type), c.payload));
      BOOST_TEST((fresh.value == c.want), to_debug_string(fresh.value));
      with(enveloped_json(typed("int64"), big));
      with(enveloped_json(typed(c.type), c.payload));
      BOOST_TEST((with.value == c.want), to_debug_string(with.value));
    }
  }
  // Without a schema (schemas.enable=false, or a null schema): INT64, longValue().
  without("[" + big + "," + minus_2_70 + ",-1180591620717411303424]");
  BOOST_TEST(without.value.items()[0].as_int() == -4362896299872285998);
  BOOST_TEST(without.value.items()[1].as_int() == -12345);
  BOOST_TEST(without.value.items()[2].as_int() == 0);
  BOOST_TEST(with(enveloped_json("null", "{\"a\":" + big + "}")) == R"({"schema":null,"payload":{"a":-4362896299872285998}})");
  BOOST_TEST(with(enveloped_json(typed("int64"), big)) == enveloped_json(typed("int64"), "-4362896299872285998"));
  // Timestamp takes any integral node's longValue(); Date and Time only an IntNode.
  const std::string timestamp = R"({"type":"int64","optional":false,"name":"org.apache.kafka.connect.data.Timestamp","version":1})";
  with(enveloped_json(timestamp, big));
  BOOST_TEST(with.value.as_int() == -4362896299872285998);
  const std::string date = R"({"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1})";
  for (const char* not_int : {"18446744073709551615", "2147483648", "4294967296", "1.0"})
    BOOST_CHECK_EXCEPTION(with(enveloped_json(date, not_int)), DataError, [](const DataError& e) {
      return std::string(e.what()) == "Invalid type for Date, underlying representation should be integer but was NUMBER";
    });
  with(enveloped_json(date, "-2147483648"));
  BOOST_TEST(with.value.as_int() == INT32_MIN);
  // A schema's version: isIntegralNumber(), then intValue().
  with(enveloped_json(R"({"type":"int32","optional":false,"version":4294967297})", "1"));
  BOOST_TEST(with.schema->version().value() == 1);
}

BOOST_AUTO_TEST_CASE(fractions_into_integer_fields_truncate_then_wrap) {
  // BigDecimal.longValue()/intValue(): truncated toward zero, then the low bits (not
  // saturated, as a double's cast would be).
  RoundTrip rt(enveloped);
  struct Case {
    const char* type;
    const char* payload;
    Value want;
  };
  const Case cases[] = {
      {"int64", "1e19", Value::int64(-8446744073709551616)},
      {"int64", "-1e20", Value::int64(-7766279631452241920)},
      {"int64", "1e400", Value::int64(0)},
      {"int32", "4294967297.5", Value::int32(1)},
      {"int32", "1e19", Value::int32(-1981284352)},
      {"int8", "-3.99", Value::int8(-3)},
      {"int16", "12345.678e2", Value::int16(-10617)}, // (short) 1234567
      {"double", "-0.0", Value::float64(0.0)},
      {"float", "0.1", Value::float32(0.1f)},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.type << " " << c.payload) {
      RoundTrip fresh(enveloped); // its first parse is a plain one
      fresh(enveloped_json(typed(c.type), c.payload));
      BOOST_TEST((fresh.value == c.want), to_debug_string(fresh.value));
      rt(enveloped_json(typed(c.type), c.payload));
      BOOST_TEST((rt.value == c.want), to_debug_string(rt.value));
    }
  }
  double tiny = (rt(enveloped_json(typed("double"), "-1e-400")), rt.value.as_double());
  BOOST_TEST((tiny == 0 && std::signbit(tiny)), "BigDecimal(-1e-400).doubleValue() is -0.0");
}

BOOST_AUTO_TEST_CASE(numbers_jackson_refuses_fail_the_record) {
  // Jackson 2.16 (Kafka's) refuses numbers of more than 1000 digits, and BigDecimal
  // exponents beyond an int, before JsonConverter sees them: a DataException.
  RoundTrip with(enveloped), without(plain);
  const std::string thousand(1000, '9'), too_long = thousand + "9";
  BOOST_TEST(without(thousand) == "-1"); // 10^1000 - 1: its low 64 bits are all ones
  BOOST_TEST(with(enveloped_json("null", thousand)) == enveloped_json("null", "-1"));
  for (const std::string& bad : {too_long, "-" + too_long, "0." + thousand, std::string("1e9999999999"),
                                 std::string("[1,2.5e-12345678901]")}) {
    BOOST_TEST_CONTEXT(bad.substr(0, 20)) {
      BOOST_CHECK_THROW(without(bad), DataError);
      BOOST_CHECK_THROW(with(enveloped_json("null", bad)), DataError);
      BOOST_CHECK_THROW(with(enveloped_json(typed("int64"), bad)), DataError);
    }
  }
  BOOST_CHECK_EXCEPTION(without(too_long), DataError, [](const DataError& e) {
    return std::string(e.what()).find("Number value length (1001) exceeds the maximum allowed (1000") != std::string::npos;
  });
}

// Leading zeros, which Connect's JsonDeserializer allows (KAFKA-15012), in both readers
// and in a Decimal.
BOOST_AUTO_TEST_CASE(leading_zeros_as_connect_reads_them) {
  RoundTrip with(enveloped), without(plain);
  BOOST_TEST(without(R"({"a":007,"b":-00.50})") == R"({"a":7,"b":-0.5})");
  BOOST_TEST(with(enveloped_json("null", R"({"a":007,"b":-00.50})")) == enveloped_json("null", R"({"a":7,"b":-0.5})"));
  with(enveloped_json(typed("int32"), "-000042"));
  BOOST_TEST(with.value.as_int() == -42);
  const std::string date = R"({"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date","version":1})";
  with(enveloped_json(date, "00019000"));
  BOOST_TEST(with.value.as_int() == 19000);
  with(enveloped_json(decimal_schema(2), "0012.50"));
  BOOST_TEST(int128_digits(decimal_unscaled(with.value.as_string())) == "1250");
}

// A lone UTF-16 surrogate escape reads as U+FFFD in both readers (simdjson, behind
// the envelope reader, refuses it; found by the json_converter fuzz harness).
BOOST_AUTO_TEST_CASE(lone_surrogates_read_alike_in_both_readers) {
  RoundTrip with(enveloped), without(plain);
  BOOST_TEST(without(R"({"a":"x\udc00y"})") == "{\"a\":\"x\xEF\xBF\xBDy\"}");
  BOOST_TEST(with(enveloped_json("null", R"({"a":"x\udc00y"})")) == enveloped_json("null", "{\"a\":\"x\xEF\xBF\xBDy\"}"));
  BOOST_TEST(with(enveloped_json(typed("string"), R"("\ud800")")) == enveloped_json(typed("string"), "\"\xEF\xBF\xBD\""));
}

// bench/results/fuzz.md finding 3: a Decimal given as a JSON number is read from the
// number's exact digits (Connect: JsonNode.decimalValue(), an exact BigDecimal), not
// through a double.
BOOST_AUTO_TEST_CASE(numeric_decimals_keep_every_digit) {
  RoundTrip rt(enveloped), numeric(JsonConverter::Options{true, true, true, 1000});
  struct Case {
    int scale;
    const char* payload;
    const char* unscaled; ///< at the schema's scale
  };
  const Case cases[] = {
      {2, "4712347873508446.26", "471234787350844626"},
      {2, "-4712347873508446.26", "-471234787350844626"},
      {2, "12345678901234567890123456789012345.67", "1234567890123456789012345678901234567"},
      {0, "123456789012345678901234567890", "123456789012345678901234567890"},
      {3, "0.001", "1"},
      {2, "1e2", "10000"},
      {2, "1.230", "123"},
      // Connect keeps 1.5 at scale 1; weir's Decimal carries the schema's scale, so it
      // is 1.50: the same number (docs/transforms.md, "Decimals").
      {2, "1.5", "150"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.payload << " at scale " << c.scale) {
      std::string in = enveloped_json(decimal_schema(c.scale), c.payload);
      RoundTrip fresh(enveloped); // its first parse is a plain one
      fresh(in);
      BOOST_TEST((fresh.value == (rt(in), rt.value)));
      BOOST_TEST(int128_digits(decimal_unscaled(rt.value.as_string())) == std::string(c.unscaled).substr(c.unscaled[0] == '-'));
      BOOST_TEST((decimal_unscaled(rt.value.as_string()) < 0) == (c.unscaled[0] == '-'));
      // Written as a number again, every digit is there.
      std::string out = numeric(in);
      BOOST_TEST(out.substr(out.find("\"payload\":") + 10) == decimal_to_string(decimal_unscaled(rt.value.as_string()), c.scale) + "}");
    }
  }
  BOOST_TEST(numeric(enveloped_json(decimal_schema(2), "4712347873508446.26"))
             == enveloped_json(decimal_schema(2), "4712347873508446.26"));
  // More digits than the scale holds would need rounding, which Connect never does: an
  // error naming the value, not a silently different number.
  BOOST_CHECK_EXCEPTION(rt(enveloped_json(decimal_schema(2), "1.234")), DataError, [](const DataError& e) {
    return std::string(e.what()).find("1.234") != std::string::npos;
  });
  // In a struct field, too.
  const std::string schema =
      R"({"type":"struct","fields":[{"type":"bytes","optional":false,"name":"org.apache.kafka.connect.data.Decimal","parameters":{"scale":"2"},"field":"d"}],"optional":false})";
  rt(enveloped_json(schema, R"({"d":98765432109876543.21})"));
  BOOST_TEST(int128_digits(decimal_unscaled(rt.value.fields()[0].as_string())) == "9876543210987654321");
}

BOOST_AUTO_TEST_CASE(config_is_declared_and_strict) {
  auto c = make_converter("org.apache.kafka.connect.json.JsonConverter", {{"schemas.enable", "false"}}, false,
                          "value.converter.");
  BOOST_TEST(c->class_name() == JsonConverter::class_name_v);
  BOOST_CHECK_EXCEPTION(make_converter("JsonConverter", {{"schemas.enabled", "false"}}, false, "value.converter."),
                        weir::ConfigError, [](const weir::ConfigError& e) {
                          return e.key() == "value.converter.schemas.enabled";
                        });
  BOOST_CHECK_EXCEPTION(make_converter("JsonConverter", {{"decimal.format", "HEX"}}, true, "key.converter."),
                        weir::ConfigError,
                        [](const weir::ConfigError& e) { return e.key() == "key.converter.decimal.format"; });
  BOOST_CHECK_EXCEPTION(make_converter("NoSuchConverter", {}, true, "key.converter."), weir::ConfigError,
                        [](const weir::ConfigError& e) { return e.key() == "key.converter"; });
  BOOST_TEST(make_converter("Json", {}, true)->class_name() == JsonConverter::class_name_v);
  // Another converter's key is ignored, as Kafka Connect ignores it: a connector that
  // moved from JsonConverter to StringConverter keeps working.
  BOOST_TEST(make_converter("StringConverter", {{"schemas.enable", "false"}}, false, "value.converter.")->class_name()
             == "org.apache.kafka.connect.storage.StringConverter");
  BOOST_CHECK_THROW(make_converter("StringConverter", {{"schemas.enabled", "false"}}, false, "value.converter."),
                    weir::ConfigError);
}

BOOST_AUTO_TEST_SUITE_END()
