#include <boost/test/unit_test.hpp>

#include "runtime/convert/converter.hpp"

using namespace weir;
using namespace weir::runtime::convert;
using namespace weir::runtime::data;

BOOST_AUTO_TEST_SUITE(codec)

BOOST_AUTO_TEST_CASE(bad_records_become_record_errors) {
  RecordCodec codec(make_converter("StringConverter", {}, true),
                    make_converter("JsonConverter", {{"schemas.enable", "false"}}, false));
  Batch raw;
  raw.append("t", 0, 10, 1, std::string_view("k1"), std::string_view(R"({"a":1})"));
  raw.append("t", 0, 11, 1, std::string_view("k2"), std::string_view("{not json"));
  raw.append("t", 0, 12, 1, std::nullopt, std::nullopt);
  raw.add_header("h", std::string_view("v"));
  DecodedBatch b = codec.decode(std::move(raw));
  BOOST_TEST(b.size() == 3u);
  BOOST_TEST(b[0].live());
  BOOST_TEST(b[0].key.as_string() == "k1");
  BOOST_TEST((b[1].state == RecordState::Failed));
  BOOST_REQUIRE(b.errors().size() == 1u);
  const auto& e = b.errors().all()[0];
  BOOST_TEST(e.index == 1u);
  BOOST_TEST(to_string(e.stage) == "VALUE_CONVERTER");
  BOOST_TEST(e.class_name == "org.apache.kafka.connect.json.JsonConverter");
  BOOST_TEST(e.exception_class == "org.apache.kafka.connect.errors.DataException");
  BOOST_TEST(b[2].value.is_null());

  Batch out;
  codec.encode(b, out);
  BOOST_TEST(out.size() == 2u); // the failed record is not encoded
  BOOST_TEST(out.bytes(out[0].value) == R"({"a":1})");
  BOOST_TEST(out.bytes(out[0].key) == "k1");
  BOOST_TEST(out[1].offset == 12);
  BOOST_TEST(out[1].value.is_null());
  BOOST_TEST(out[1].key.is_null());
  BOOST_TEST(out.headers(out[1]).size() == 1u);
}

BOOST_AUTO_TEST_CASE(encode_errors_mark_the_record) {
  RecordCodec codec(make_converter("StringConverter", {}, true), make_converter("ByteArrayConverter", {}, false));
  Batch raw;
  raw.append("t", 0, 1, 1, std::nullopt, std::string_view("abc"));
  DecodedBatch b = codec.decode(std::move(raw));
  b[0].value = Value::int32(1); // not bytes
  b[0].value_schema = nullptr;
  Batch out;
  codec.encode(b, out);
  BOOST_TEST(out.size() == 0u);
  BOOST_TEST((b[0].state == RecordState::Failed));
  BOOST_TEST(b.errors().all()[0].message.find("ByteArrayConverter is not compatible") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(decode_reuses_memory) {
  RecordCodec codec(make_converter("StringConverter", {}, true),
                    make_converter("JsonConverter", {{"schemas.enable", "false"}}, false));
  DecodedBatch b;
  size_t capacity = 0;
  for (int round = 0; round < 3; ++round) {
    Batch raw;
    for (int i = 0; i < 100; ++i)
      raw.append("t", 0, i, 1, std::nullopt, std::string_view(R"({"a":"some text","b":[1,2,3]})"));
    codec.decode(std::move(raw), b);
    if (round == 1)
      capacity = b.arena().capacity();
    if (round == 2)
      BOOST_TEST(b.arena().capacity() == capacity);
  }
}

// Found by fuzzing (tests/fuzz/smt_config): decode prefetches the value two records
// ahead, and a tombstone's value has a null data pointer: null + 64 was undefined
// behaviour (UBSan reports it in the sanitizer build; the values must decode either way).
BOOST_AUTO_TEST_CASE(a_tombstone_two_records_ahead) {
  RecordCodec codec(make_converter("StringConverter", {}, true),
                    make_converter("JsonConverter", {{"schemas.enable", "false"}}, false));
  Batch raw;
  raw.append("t", 0, 0, 1, std::nullopt, std::string_view("1"));
  raw.append("t", 0, 1, 1, std::nullopt, std::string_view("2"));
  raw.append("t", 0, 2, 1, std::nullopt, std::nullopt);
  raw.append("t", 0, 3, 1, std::nullopt, std::string_view(""));
  DecodedBatch b = codec.decode(std::move(raw));
  BOOST_REQUIRE(b.size() == 4u);
  BOOST_TEST(b.errors().empty());
  BOOST_TEST(b[0].value.as_int() == 1);
  BOOST_TEST(b[1].value.as_int() == 2);
  BOOST_TEST(b[2].value.is_null());
  BOOST_TEST(b[3].value.is_null()); // blank JSON without schemas: null, as Jackson's missing node
}

BOOST_AUTO_TEST_SUITE_END()
