#include "transforms/support.hpp"

#include <boost/test/unit_test.hpp>

#include "runtime/convert/converter.hpp"
#include "transforms/chain.hpp"

using namespace weir;
using namespace weir::transforms;
using namespace weir::runtime::data;

namespace {

Value map_of_keys(Arena& arena, std::initializer_list<std::string_view> keys) {
  Value m = Value::map(arena, static_cast<uint32_t>(keys.size()));
  int64_t i = 0;
  for (auto k : keys)
    m.append(arena, Value::string(k), Value::int64(i++));
  return m;
}

} // namespace

BOOST_AUTO_TEST_CASE(name_table_finds_names_and_rejects_the_rest) {
  std::string long_name(70, 'x');
  NameTable t({"cust", "internal", "", "customer_id", long_name, "cust"});
  BOOST_TEST(t.find("cust") == 0); // the first of equal names
  BOOST_TEST(t.find("internal") == 1);
  BOOST_TEST(t.find("") == 2);
  BOOST_TEST(t.find("customer_id") == 3);
  BOOST_TEST(t.find(long_name) == 4);
  // Same lengths, same ends or other ends: the filter may pass them, the bytes decide.
  for (std::string_view miss : {"card", "cuxt", "quantity", "internaL", "customer_iD", "c", "x"})
    BOOST_TEST(t.find(miss) == -1, miss);
  BOOST_TEST(t.find(std::string(70, 'y')) == -1);
  BOOST_TEST(t.find(std::string(71, 'x')) == -1); // shares the long chain
  BOOST_TEST(NameTable().find("") == -1);
}

BOOST_AUTO_TEST_CASE(find_hinted_never_returns_another_field) {
  Arena arena(1024);
  Value a = map_of_keys(arena, {"id", "card", "email"});
  Value b = map_of_keys(arena, {"email", "cust", "card", "zz"}); // "card" moved; "cust" where it was
  Value c = map_of_keys(arena, {"id"});
  uint32_t hint = 0;
  Value* x = find_hinted(a, "card", hint);
  BOOST_REQUIRE(x != nullptr);
  BOOST_TEST(x->as_int() == 1);
  BOOST_TEST(hint == 1u);
  x = find_hinted(b, "card", hint); // the hint points at "cust": same length, other key
  BOOST_REQUIRE(x != nullptr);
  BOOST_TEST(x->as_int() == 2);
  BOOST_TEST(hint == 2u);
  BOOST_TEST(find_hinted(c, "card", hint) == nullptr); // hint past the end
  BOOST_TEST(hint == 2u);                              // kept for the next record
  x = find_hinted(b, "card", hint);
  BOOST_REQUIRE(x != nullptr);
  BOOST_TEST(x->as_int() == 2);
  // An object that changes shape under the hint (an entry erased before it).
  BOOST_TEST(b.erase("email"));
  x = find_hinted(b, "card", hint);
  BOOST_REQUIRE(x != nullptr);
  BOOST_TEST(x->as_int() == 2);
  BOOST_TEST(hint == 1u);
  // A non-string key at the hint is never taken for a string one.
  Value d = Value::map(arena, 2);
  d.append(arena, Value::int32(4), Value::int64(7));
  d.append(arena, Value::string("card"), Value::int64(8));
  hint = 0;
  x = find_hinted(d, "card", hint);
  BOOST_REQUIRE(x != nullptr);
  BOOST_TEST(x->as_int() == 8);
}

// One MaskField and one Cast stage (whose lookups are hinted) over a batch of records
// of different shapes: every record gets its own fields, wherever they are.
BOOST_AUTO_TEST_CASE(hinted_stages_over_records_of_changing_shape) {
  auto chain = Chain::from_config({
      {"transforms", "mask,cast"},
      {"transforms.mask.type", "org.apache.kafka.connect.transforms.MaskField$Value"},
      {"transforms.mask.fields", "card,email"},
      {"transforms.cast.type", "org.apache.kafka.connect.transforms.Cast$Value"},
      {"transforms.cast.spec", "amount:float64,qty:int32"},
  });
  runtime::convert::RecordCodec codec(
      runtime::convert::make_converter("StringConverter", {}, true),
      runtime::convert::make_converter("JsonConverter", {{"schemas.enable", "false"}}, false));
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"({"card":"4111","email":"a@b","amount":"1.5","qty":3})",
       R"({"card":"","email":"","amount":1.5,"qty":3})"},
      {R"({"qty":4,"amount":"2.25","email":"c@d","card":"4222"})",
       R"({"qty":4,"amount":2.25,"email":"","card":""})"},
      {R"({"cart":"x","emaip":"y","amount":"3","qtz":1})", // same lengths, other keys
       R"({"cart":"x","emaip":"y","amount":3.0,"qtz":1,"card":null,"email":null,"qty":null})"},
      {R"({"nested":{"card":"4333","amount":"9"},"card":"4444"})",
       R"({"nested":{"card":"4333","amount":"9"},"card":"","email":null,"amount":null,"qty":null})"},
      {R"({"card":"4555","email":"e@f","amount":"4.5","qty":5})",
       R"({"card":"","email":"","amount":4.5,"qty":5})"},
  };
  Batch raw;
  for (size_t i = 0; i < cases.size(); ++i)
    raw.append("t", 0, static_cast<int64_t>(i), 0, std::nullopt, cases[i].first);
  auto batch = codec.decode(std::move(raw));
  chain.apply_all(batch);
  Batch out;
  codec.encode(batch, out);
  BOOST_TEST(batch.errors().empty());
  BOOST_REQUIRE(out.size() == cases.size());
  for (size_t i = 0; i < cases.size(); ++i)
    BOOST_TEST(out.bytes(out[i].value) == cases[i].second, "record " << i);
}
