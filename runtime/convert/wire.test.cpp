#include <boost/test/unit_test.hpp>

#include "runtime/convert/converter.hpp"
#include "runtime/convert/json_converter.hpp"

using namespace weir;
using namespace weir::runtime::convert;
using namespace weir::runtime::data;

namespace {

// A minimal inspector pair with CAF's protocol (reads_state / writes_state), to
// prove inspect() round-trips without pulling CAF into runtime/.
struct Saver {
  static constexpr bool reads_state = true;
  static constexpr bool writes_state = false;
  Batch batch;
  std::vector<uint8_t> states;
  std::vector<uint32_t> raw_indexes;
  RecordErrors errors;
  bool operator()(Batch& b, std::vector<uint8_t>& s, std::vector<uint32_t>& r, RecordErrors& e) {
    batch = b;
    states = s;
    raw_indexes = r;
    errors = e;
    return true;
  }
};
struct Loader {
  static constexpr bool reads_state = false;
  static constexpr bool writes_state = true;
  Saver* from;
  bool operator()(Batch& b, std::vector<uint8_t>& s, std::vector<uint32_t>& r, RecordErrors& e) {
    b = from->batch;
    s = from->states;
    r = from->raw_indexes;
    e = from->errors;
    return true;
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(wire)

BOOST_AUTO_TEST_CASE(decoded_batch_round_trips_through_inspect) {
  RecordCodec codec(make_converter("StringConverter", {}, true), make_converter("JsonConverter", {}, false));
  Batch raw;
  raw.append("t", 1, 5, 99, std::string_view("key"),
             std::string_view(
                 R"({"schema":{"type":"struct","fields":[{"type":"int32","optional":true,"default":3,"field":"a"}],"optional":false},"payload":{"a":null}})"));
  raw.add_header("h", std::string_view("v"));
  raw.append("t", 1, 6, 99, std::nullopt, std::string_view("broken"));
  DecodedBatch b = codec.decode(std::move(raw));
  b[0].headers.push_back(b.arena(), Header{"n", Value::int32(4), schemas::int32().get()});
  b.view(0).set_topic("other");
  BOOST_TEST(b[0].value.fields()[0].as_int() == 3); // the converter applied the default
  b[0].value.fields()[0] = Value();                 // an SMT may set it back to null

  Saver saver;
  inspect(saver, b);
  DecodedBatch copy;
  Loader loader{&saver};
  inspect(loader, copy);

  BOOST_TEST(copy.size() == 2u);
  BOOST_TEST(copy[0].topic == "other");
  BOOST_TEST(copy[0].offset == 5);
  BOOST_TEST(copy[0].key.as_string() == "key");
  // The null stays null on the wire (no default substituted on the way).
  BOOST_TEST(copy[0].value.fields()[0].is_null());
  BOOST_TEST(copy[0].value_schema->equals(*b[0].value_schema));
  BOOST_TEST(copy[0].headers.size() == 2u);
  BOOST_TEST(copy[0].headers[1].value.as_int() == 4);
  BOOST_TEST((copy[1].state == RecordState::Failed));
  BOOST_TEST(copy.errors().size() == 1u);
  BOOST_TEST((copy.errors().all()[0] == b.errors().all()[0]));
}

BOOST_AUTO_TEST_SUITE_END()
