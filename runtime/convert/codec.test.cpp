#include <boost/test/unit_test.hpp>

#include "runtime/convert/converter.hpp"

using namespace weir;
using namespace weir::runtime::convert;
using namespace weir::runtime::data;

BOOST_AUTO_TEST_SUITE(codec)

namespace {

/// A header converter that reads `<n>` as an int64 header and writes it back so;
/// anything else is bad data.
class AngleHeaders final : public HeaderConverter {
public:
  std::string_view class_name() const noexcept override { return "test.AngleHeaders"; }
  void to_connect(std::string_view, std::string_view key, const std::optional<std::string_view>& bytes,
                  DecodedBatch&, Value& out, const Schema*& schema) override {
    if (!bytes || bytes->size() < 2 || bytes->front() != '<' || bytes->back() != '>')
      throw DataError("header " + std::string(key) + " is not <n>");
    out = Value::int64(std::stoll(std::string(bytes->substr(1, bytes->size() - 2))));
    schema = schemas::int64().get();
  }
  bool from_connect(std::string_view, std::string_view, const Value& v, const Schema*, std::string& out) override {
    if (v.is_null())
      return false;
    out += "<" + std::to_string(v.as_int() + 1) + ">";
    return true;
  }
};

} // namespace

BOOST_AUTO_TEST_CASE(a_header_converter_decodes_and_encodes_every_header_and_bad_ones_fail_their_record) {
  RecordCodec codec(make_converter("StringConverter", {}, true), make_converter("StringConverter", {}, false),
                    std::make_unique<AngleHeaders>());
  Batch raw;
  raw.append("t", 0, 1, 1, std::string_view("k1"), std::string_view("v1"));
  raw.add_header("a", std::string_view("<41>"));
  raw.add_header("b", std::string_view("<7>"));
  raw.append("t", 0, 2, 1, std::string_view("k2"), std::string_view("v2"));
  raw.add_header("a", std::string_view("seven"));
  DecodedBatch b = codec.decode(std::move(raw));
  BOOST_TEST(b[0].live());
  BOOST_REQUIRE(b[0].headers.size() == 2u);
  BOOST_TEST(b[0].headers[0].value.as_int() == 41);
  BOOST_TEST(b[0].headers[0].schema == schemas::int64().get());
  BOOST_TEST((b[1].state == RecordState::Failed));
  BOOST_REQUIRE(b.errors().size() == 1u);
  BOOST_TEST(to_string(b.errors().all()[0].stage) == "HEADER_CONVERTER");
  BOOST_TEST(b.errors().all()[0].class_name == "test.AngleHeaders");
  BOOST_TEST(b.errors().all()[0].message == "header a is not <n>");

  Batch out;
  codec.encode(b, out);
  BOOST_REQUIRE(out.size() == 1u);
  auto headers = out.headers(out[0]);
  BOOST_REQUIRE(headers.size() == 2u);
  BOOST_TEST(out.bytes(headers[0].key) == "a");
  BOOST_TEST(out.bytes(headers[0].value) == "<42>");
  BOOST_TEST(out.bytes(headers[1].value) == "<8>");
}

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
