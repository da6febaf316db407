#include "runtime/data/value.hpp"

#include <boost/test/unit_test.hpp>

#include "runtime/data/decoded_batch.hpp"
#include "runtime/data/schema.hpp"

using namespace weir::runtime::data;

BOOST_AUTO_TEST_SUITE(value)

BOOST_AUTO_TEST_CASE(scalars) {
  BOOST_TEST(Value().is_null());
  BOOST_TEST(Value::int32(5).as_int() == 5);
  BOOST_TEST(Value::int8(-3).is_integer());
  BOOST_TEST(Value::float32(1.5f).as_double() == 1.5);
  BOOST_TEST(Value::string("abc").as_string() == "abc");
  BOOST_TEST((Value::bytes("abc").kind() == Kind::Bytes));
  BOOST_TEST(java_class_name(Kind::Int64) == "java.lang.Long");
}

BOOST_AUTO_TEST_CASE(maps_put_find_erase_keep_order) {
  Arena arena;
  Value m = Value::map(arena, 1);
  m.put(arena, "a", Value::int64(1));
  m.put(arena, "b", Value::int64(2)); // grows
  m.put(arena, "c", Value::int64(3));
  m.put(arena, "a", Value::int64(10)); // replaces in place
  BOOST_TEST(m.size() == 3u);
  BOOST_TEST(m.find("a")->as_int() == 10);
  BOOST_TEST(m.erase("b"));
  BOOST_TEST(!m.erase("b"));
  BOOST_TEST(to_debug_string(m) == R"({"a":10,"c":3})");
}

BOOST_AUTO_TEST_CASE(arrays_grow) {
  Arena arena;
  Value a = Value::array(arena, 0);
  for (int i = 0; i < 10; ++i)
    a.push_back(arena, Value::int32(i));
  BOOST_TEST(a.size() == 10u);
  BOOST_TEST(a.items()[9].as_int() == 9);
}

BOOST_AUTO_TEST_CASE(structs_follow_their_schema) {
  Arena arena;
  auto s = SchemaBuilder::struct_().field("x", schemas::int32()).field("y", schemas::optional_string()).build();
  Value v = Value::structure(arena, *s);
  BOOST_TEST(v.fields().size() == 2u);
  BOOST_TEST(v.field("y")->is_null());
  *v.field("x") = Value::int32(4);
  BOOST_TEST(to_debug_string(v) == "Struct{x=4,y=null}");
  BOOST_TEST(v.field("z") == nullptr);
}

BOOST_AUTO_TEST_CASE(deep_copy_is_independent_and_equal) {
  Arena a, b;
  Value m = Value::map(a, 2);
  m.put(a, a.copy("k"), Value::string(a.copy("v")));
  Value arr = Value::array(a, 1);
  arr.push_back(a, m);
  Value copy = arr.deep_copy(b);
  BOOST_TEST((copy == arr));
  copy.items()[0].put(b, "k", Value::int64(1));
  BOOST_TEST(!(copy == arr));
}

BOOST_AUTO_TEST_CASE(map_equality_ignores_order) {
  Arena a;
  Value x = Value::map(a, 2), y = Value::map(a, 2);
  x.put(a, "a", Value::int64(1));
  x.put(a, "b", Value::int64(2));
  y.put(a, "b", Value::int64(2));
  y.put(a, "a", Value::int64(1));
  BOOST_TEST((x == y));
}

BOOST_AUTO_TEST_CASE(decoded_batch_reads_metadata_and_headers) {
  weir::Batch raw;
  raw.append("orders", 3, 42, 1000, std::string_view("k"), std::nullopt);
  raw.add_header("trace", std::string_view("abc"));
  raw.add_header("empty", std::nullopt);
  DecodedBatch b(std::move(raw));
  BOOST_TEST(b.size() == 1u);
  BOOST_TEST(b[0].topic == "orders");
  BOOST_TEST(b[0].partition == 3);
  BOOST_TEST(b[0].offset == 42);
  BOOST_TEST(b[0].headers.size() == 2u);
  BOOST_TEST(b[0].headers[0].key == "trace");
  BOOST_TEST(b[0].headers[0].value.as_string() == "abc");
  BOOST_TEST(b[0].headers[1].value.is_null());
  auto view = b.view(0);
  view.set_topic("renamed");
  BOOST_TEST(b[0].topic == "renamed");
  DecodedBatch moved = std::move(b);
  BOOST_TEST(moved[0].topic == "renamed");
  BOOST_TEST(moved[0].headers[0].key == "trace");
}

BOOST_AUTO_TEST_CASE(retain_keeps_schemas_alive) {
  DecodedBatch b;
  const Schema* raw = nullptr;
  {
    auto s = SchemaBuilder::struct_().field("x", schemas::int32()).build();
    raw = b.retain(s);
    b.retain(s);
  }
  BOOST_TEST(raw->fields()[0].name == "x");
}

BOOST_AUTO_TEST_SUITE_END()
