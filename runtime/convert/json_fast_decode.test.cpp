#include "runtime/convert/json_fast_decode.hpp"

#include <boost/test/unit_test.hpp>
#include <charconv>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <simdjson.h>

#include "runtime/data/errors.hpp"

using namespace weir::runtime::convert;
using namespace weir::runtime::data;

namespace {

// The same JSON through simdjson's DOM, as the reference value tree. A repeated key
// is put() like Jackson's ObjectNode does: its last value at its first position.
Value reference(simdjson::dom::element e, Arena& arena) {
  using T = simdjson::dom::element_type;
  switch (e.type()) {
    case T::OBJECT: {
      Value m = Value::map(arena, 0);
      simdjson::dom::object o = e.get_object().value_unsafe();
      for (auto [k, v] : o)
        m.put(arena, Value::string(arena.copy(k)), reference(v, arena));
      return m;
    }
    case T::ARRAY: {
      Value a = Value::array(arena, 0);
      simdjson::dom::array arr = e.get_array().value_unsafe();
      for (auto v : arr)
        a.push_back(arena, reference(v, arena));
      return a;
    }
    case T::STRING: return Value::string(arena.copy(e.get_string().value_unsafe()));
    case T::INT64: return Value::int64(e.get_int64().value_unsafe());
    case T::UINT64: return Value::int64(static_cast<int64_t>(e.get_uint64().value_unsafe()));
    case T::DOUBLE: return Value::float64(e.get_double().value_unsafe());
    case T::BOOL: return Value::boolean(e.get_bool().value_unsafe());
    case T::NULL_VALUE: return Value();
  }
  return Value();
}

std::string random_number(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0: return std::to_string(static_cast<int64_t>(rng() >> (rng() % 63)) * (rng() % 2 ? 1 : -1));
    case 1: return std::to_string(rng() % 10);
    case 2: return std::to_string(rng() % 100000) + "." + std::to_string(rng() % 1000);
    case 3: return "-" + std::to_string(rng() % 1000) + "e" + std::to_string(static_cast<int>(rng() % 40) - 20);
    case 4: return "0." + std::to_string(rng() % 100000000) + "E+3";
    default: return std::to_string(1700000000000ULL + rng() % 1000000000ULL);
  }
}

std::string random_string(std::mt19937_64& rng) {
  static const char* pieces[] = {"a", "xyz", "0123456789abcdef", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", "é",
                                 " ", "\\\\", "/", "\\/", "long text with spaces "};
  std::string s = "\"";
  for (size_t n = rng() % 8; n > 0; --n)
    s += pieces[rng() % std::size(pieces)];
  return s + "\"";
}

// Keys from a small pool, so that objects often repeat one (also in another escaped form).
std::string random_key(std::mt19937_64& rng) {
  static const char* keys[] = {"\"a\"", "\"\\u0061\"", "\"b\"", "\"ab\"", "\"bb\"", "\"\"", "\"id\"", "\"\\n\""};
  return rng() % 2 ? keys[rng() % std::size(keys)] : random_string(rng);
}

std::string random_json(std::mt19937_64& rng, int depth) {
  switch (depth > 3 ? rng() % 4 : rng() % 7) {
    case 0: return random_number(rng);
    case 1: return random_string(rng);
    case 2: return rng() % 2 ? "true" : "null";
    case 3: return "false";
    case 4:
    case 5: {
      std::string s = "{";
      for (size_t n = rng() % 10, i = 0; i < n; ++i)
        s += (i ? (rng() % 3 ? "," : " , ") : "") + random_key(rng) + (rng() % 3 ? ":" : " :\n ") + random_json(rng, depth + 1);
      return s + "}";
    }
    default: {
      std::string s = "[";
      for (size_t n = rng() % 6, i = 0; i < n; ++i)
        s += (i ? "," : "") + random_json(rng, depth + 1);
      return s + "]";
    }
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(json_fast_decode)

// The one-pass decoder must build exactly the tree simdjson's DOM describes.
BOOST_AUTO_TEST_CASE(matches_simdjson_dom_on_random_documents) {
  std::mt19937_64 rng(7);
  simdjson::dom::parser parser;
  FastJsonDecoder decoder;
  Arena arena;
  for (int i = 0; i < 5000; ++i) {
    std::string json = random_json(rng, 0);
    arena.reset();
    simdjson::padded_string padded(json);
    auto doc = parser.parse(padded);
    BOOST_REQUIRE_MESSAGE(!doc.error(), json);
    Value want = reference(doc.value_unsafe(), arena);
    Value got = decoder.decode(json, arena);
    if (!(got == want))
      BOOST_TEST(to_debug_string(got) == to_debug_string(want), json);
  }
}

// Repeated keys, one per row: the decoder keeps the key's first position and its
// last value, at every level (json_converter.test.cpp checks the same through both
// of the converter's paths).
BOOST_AUTO_TEST_CASE(repeated_keys) {
  struct Case {
    const char* name;
    const char* in;
    const char* want; ///< to_debug_string of the result
  };
  const Case cases[] = {
      {"top level", R"({"a":1,"b":2,"a":3})", R"({"a":3,"b":2})"},
      {"nested", R"({"o":{"a":1,"b":2,"a":3}})", R"({"o":{"a":3,"b":2}})"},
      {"in an array", R"([{"a":1,"a":2},{"a":3}])", R"([{"a":2},{"a":3}])"},
      {"three times", R"({"a":1,"b":2,"a":3,"a":4})", R"({"a":4,"b":2})"},
      {"string, then object", R"({"a":"s","b":2,"a":{"c":1}})", R"({"a":{"c":1},"b":2})"},
      {"no repeats: order kept", R"({"c":1,"b":{"y":1,"x":2},"a":3})", R"({"c":1,"b":{"y":1,"x":2},"a":3})"},
      // Keys alike in length, first and last byte: the filter cannot tell them apart.
      {"look-alikes, none repeated", R"({"a1b":1,"a2b":2,"a3b":3})", R"({"a1b":1,"a2b":2,"a3b":3})"},
      {"look-alikes, one repeated", R"({"a1b":1,"a2b":2,"a1b":3})", R"({"a1b":3,"a2b":2})"},
      {"empty key", R"({"":1,"x":2,"":3})", R"({"":3,"x":2})"},
      {"escaped and plain", R"({"ab":1,"a\u0062":2,"c":3})", R"({"ab":2,"c":3})"},
      {"the bench's event keys", R"({"event_id":1,"user_id":"u","event":"e","region":"r","session":"s","amount":1.5,"ts":2,"email":"m","ts":3})",
       R"({"event_id":1,"user_id":"u","event":"e","region":"r","session":"s","amount":1.5,"ts":3,"email":"m"})"},
  };
  FastJsonDecoder decoder;
  Arena arena;
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      Value got = decoder.decode(c.in, arena);
      // The reference form, through the same debug printer.
      simdjson::dom::parser parser;
      Value want = reference(parser.parse(simdjson::padded_string(std::string_view(c.want))).value_unsafe(), arena);
      BOOST_TEST(to_debug_string(got) == to_debug_string(want));
    }
  }
  // Large objects: 100 distinct keys, then the same with "k42" again at the end.
  std::string many = "{";
  for (int i = 0; i < 100; ++i)
    many += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  std::string repeated = many + "\"k42\":-1}";
  many.back() = '}';
  BOOST_TEST(decoder.decode(many, arena).entries().size() == 100u);
  Value dedup = decoder.decode(repeated, arena);
  BOOST_TEST(dedup.entries().size() == 100u);
  BOOST_TEST(dedup.entries()[42].value.as_int() == -1);
  // The root object's capacity follows the last root's size: after a deduplicated
  // root, the next (larger) record still decodes whole.
  decoder.decode(R"({"a":1,"a":2,"a":3,"a":4})", arena);
  BOOST_TEST(decoder.decode(R"({"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7})", arena).entries().size() == 7u);
}

// A root object is checked for repeated keys against the keys of the root before it
// (records of a topic mostly share their shape): keys equal to those, in order, are
// unique. Each row is decoded right after the one above it by the same decoder, and
// must still come out as Jackson has it: one entry per key, its last value.
BOOST_AUTO_TEST_CASE(root_objects_in_sequence) {
  std::string many = "{";
  for (int i = 0; i < 40; ++i)
    many += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  std::string many_repeated = many + "\"k7\":-7}";
  many.back() = '}';
  const std::string sequence[] = {
      R"({"a":1,"b":2})",
      R"({"a":3,"b":4})",          // the same keys
      R"({"a":5})",                // a prefix of them
      R"({"a":1,"b":2,"a":3})",    // the same keys, then one again
      R"({"a":1,"b":2,"a":3})",    // and once more (the remembered keys are "a", "b")
      R"({"a":1,"b":2,"c":3})",    // more keys than remembered
      R"({"a":1,"b":2,"c":3,"b":4})",
      R"({"\u0061":1,"b":2,"c":3})", // an escaped key equal to a remembered one
      R"({"a":1,"b":2,"\u0061":3})",
      R"({"c":1,"b":2,"a":3})",    // the same keys in another order
      R"({"ab":1,"b":2,"a":3})",   // a key longer than the remembered one
      R"({"":1,"":2})",
      R"({"":5})",
      R"({})",
      R"({"a":1})",
      many,                        // grows past the capacity of the last root
      many,
      many_repeated,
      R"({"k0":0,"k1":1,"k0":2})", // a prefix of the remembered keys, then a repeat
      R"([{"a":1,"a":2}])",        // not a root object: the filter's path
      R"({"a":{"b":1,"b":2},"a":{"c":3}})",
  };
  FastJsonDecoder decoder;
  Arena arena;
  simdjson::dom::parser parser;
  for (const auto& json : sequence) {
    BOOST_TEST_CONTEXT(json) {
      Value got = decoder.decode(json, arena);
      Value want = reference(parser.parse(simdjson::padded_string(json)).value_unsafe(), arena);
      BOOST_TEST(to_debug_string(got) == to_debug_string(want));
    }
  }
}

// Strings end at the next quote of the quote index, which the parsing loops walk in
// registers and set again after a nested container: strings and containers at
// every offset around the index's 64-byte words, long strings spanning words, and
// unterminated strings must decode as simdjson's DOM has them (or fail).
BOOST_AUTO_TEST_CASE(strings_at_every_offset_of_the_quote_index) {
  FastJsonDecoder decoder;
  Arena arena;
  simdjson::dom::parser parser;
  const std::string long_text(150, 'x');
  for (size_t pad = 0; pad < 140; ++pad) {
    std::string p(pad, 'p');
    for (const std::string& json :
         {"{\"" + p + "\":\"v\",\"a\":[{\"b\":\"c\"},\"d\"],\"e\":{\"f\":\"" + long_text + "\"},\"g\":\"h\"}",
          "[\"" + p + "\",{\"k\":[\"" + long_text + "\",1]},\"\",\"z\"]",
          "{\"k\":1,\"" + p + "\":{},\"s\":\"" + p + "\",\"t\":[],\"u\":\"" + p + p + "\"}",
          "\"" + p + "\""}) {
      BOOST_TEST_CONTEXT(json) {
        Value got = decoder.decode(json, arena);
        Value want = reference(parser.parse(simdjson::padded_string(json)).value_unsafe(), arena);
        BOOST_TEST(to_debug_string(got) == to_debug_string(want));
      }
    }
    BOOST_CHECK_THROW(decoder.decode("{\"a\":\"" + p, arena), DataError);
    BOOST_CHECK_THROW(decoder.decode("{\"" + p + "\":1,\"b", arena), DataError);
    BOOST_CHECK_THROW(decoder.decode("[\"" + p + "\",\"", arena), DataError);
  }
}

BOOST_AUTO_TEST_CASE(numbers_and_strings_of_every_length) {
  FastJsonDecoder decoder;
  Arena arena;
  std::string digits;
  for (int n = 1; n <= 19; ++n) {
    digits += static_cast<char>('1' + n % 9);
    // Followed by the end, by one byte, and by enough bytes for an 8-byte load.
    for (const std::string& text : {digits, "-" + digits, "[" + digits + "]", "{\"k\":" + digits + "}",
                                    "{\"k\":-" + digits + ",\"next\":true}", "[" + digits + ",12345678]"}) {
      Value v = decoder.decode(text, arena);
      while (v.kind() == Kind::Array || v.kind() == Kind::Map)
        v = v.kind() == Kind::Array ? v.items()[0] : v.entries()[0].value;
      int64_t want = std::stoll(text.substr(text.find_first_of("-0123456789")));
      BOOST_TEST(v.as_int() == want, text);
    }
  }
  // Wider than int64: wraps to the low 64 bits, as BigInteger.longValue().
  BOOST_TEST(decoder.decode("18446744073709551617", arena).as_int() == 1);
}

// Decimals are the double from_chars gives, bit for bit: short ones take a fast path,
// so cover every digit count and dot position on both sides of its 15-digit limit.
BOOST_AUTO_TEST_CASE(decimals_are_the_nearest_double) {
  FastJsonDecoder decoder;
  Arena arena;
  std::mt19937_64 rng(7);
  auto check = [&](const std::string& text) {
    double want = 0;
    std::from_chars(text.data(), text.data() + text.size(), want);
    if (want == 0)
      want = 0.0; // an exact zero has no sign (BigDecimal): -0.0 reads as 0.0
    double got = decoder.decode(text, arena).as_double();
    BOOST_TEST(std::memcmp(&got, &want, sizeof got) == 0, text << ": " << got << " != " << want);
  };
  for (int digits = 2; digits <= 20; ++digits)
    for (int round = 0; round < 200; ++round) {
      std::string text;
      for (int i = 0; i < digits; ++i)
        text += static_cast<char>('0' + rng() % 10);
      size_t dot = 1 + rng() % static_cast<uint64_t>(digits - 1);
      if (dot > 1 && text[0] == '0')
        text[0] = '1'; // JSON has no leading zeros
      text.insert(dot, ".");
      check(text);
      check("-" + text);
    }
  for (const char* text : {"0.0", "-0.0", "0.1", "0.3", "123.45", "9007199254740.993", "999999999999999.9",
                           "0.000000000000001", "1.5e3", "-2.25E-2", "-0e5", "-0.000e-3", "-0.00000000000000000000"})
    check(text);
  double tiny = decoder.decode("-1e-400", arena).as_double();
  BOOST_TEST((tiny == 0 && std::signbit(tiny)), "a nonzero negative too small for a double keeps its sign");
}

BOOST_AUTO_TEST_CASE(malformed_input_throws) {
  FastJsonDecoder decoder;
  Arena arena;
  for (const char* bad : {"{", "[1,", "{\"a\"}", "{\"a\":}", "-", "1.", "1e", "1.e5", "00x", "-01.", "\"abc", "\"a\\x\"",
                          "tru", "nul", "{\"a\":1,}", "[1 2]", "12345678x", "123456789012345678a", "{\"a\":1}x",
                          "\"\x01\"", "[\"\\u12\"]"}) {
    BOOST_CHECK_THROW(decoder.decode(bad, arena), DataError);
    // The decoder stays usable after an error.
    BOOST_TEST(decoder.decode(R"({"ok":[1,2]})", arena).entries().size() == 1u);
  }
}

// Connect's JsonDeserializer accepts leading zeros (ALLOW_LEADING_ZEROS_FOR_NUMBERS,
// KAFKA-15012); they count for nothing.
BOOST_AUTO_TEST_CASE(leading_zeros_are_read_as_connect_reads_them) {
  FastJsonDecoder decoder;
  Arena arena;
  Value v = decoder.decode(R"({"a":007,"b":-00,"c":00.50,"d":-0001e2,"e":[00018446744073709551617]})", arena);
  BOOST_TEST(v.find("a")->as_int() == 7);
  BOOST_TEST(v.find("b")->as_int() == 0);
  BOOST_TEST(v.find("c")->as_double() == 0.5);
  BOOST_TEST(v.find("d")->as_double() == -100.0);
  BOOST_TEST(v.find("e")->items()[0].as_int() == 1);
}

// Jackson (2.16, Kafka's) refuses a number of more than 1000 digits; every length
// around the limit, signed or not, at the end of the input or followed by more.
BOOST_AUTO_TEST_CASE(numbers_past_jacksons_digit_limit_are_refused) {
  FastJsonDecoder decoder;
  Arena arena;
  for (size_t digits = 985; digits <= 1012; ++digits)
    for (const char* sign : {"", "-"})
      for (const char* after : {"", "]", ",1]", ".5]", "e2]"}) {
        std::string number = sign + std::string(digits, '9');
        std::string text = (*after != 0 ? "[" : "") + number + after;
        bool refused = digits + (after[0] == '.' || after[0] == 'e' ? 1 : 0) > 1000;
        BOOST_TEST_CONTEXT(digits << " digits, sign '" << sign << "', then '" << after << "'") {
          if (refused) {
            BOOST_CHECK_THROW(decoder.decode(text, arena), DataError);
          } else {
            Value v = decoder.decode(text, arena);
            if (v.kind() == Kind::Array)
              v = v.items()[0];
            if (after[0] == '.' || after[0] == 'e')
              BOOST_TEST(std::isinf(v.as_double()));
            else
              BOOST_TEST(v.as_int() == (*sign != 0 ? 1 : -1)); // (10^n - 1) mod 2^64 is -1
          }
        }
      }
}

// Issue 20, item 10: the error names the offset of the bad byte, not 0.
BOOST_AUTO_TEST_CASE(invalid_utf8_is_reported_at_its_offset) {
  FastJsonDecoder decoder;
  Arena arena;
  auto message = [&](const std::string& bytes) -> std::string {
    try {
      decoder.decode(bytes, arena);
    } catch (const DataError& e) {
      return e.what();
    }
    return "(no error)";
  };
  const std::string prefix = "Converting byte[] to Kafka Connect data failed due to serialization error: invalid UTF-8 at offset ";
  BOOST_TEST(message("{\"name\":\"ab\xff" "cd\"}") == prefix + "11");
  BOOST_TEST(message("{\"caf\xc3\xa9\":\"\xc3\x28\"}") == prefix + "10");   // a bad continuation byte
  BOOST_TEST(message("[\"\xe2\x82\xac\", \"\xc0\xaf\"]") == prefix + "9"); // overlong '/'
  BOOST_TEST(message("\"\xed\xa0\x80\"") == prefix + "1");                    // a surrogate
  BOOST_TEST(message("\"\xf4\x90\x80\x80\"") == prefix + "1");                // above U+10FFFF
  BOOST_TEST(message("\"abc\xe2\x82") == prefix + "4");                          // cut short at the end
  BOOST_TEST(message(std::string(14, ' ') + "\xff") == prefix + "14");
}

BOOST_AUTO_TEST_SUITE_END()
