#include "runtime/data/schema.hpp"

#include <boost/test/unit_test.hpp>

#include "runtime/data/errors.hpp"

using namespace weir::runtime::data;

BOOST_AUTO_TEST_SUITE(schema)

BOOST_AUTO_TEST_CASE(struct_fields_and_lookup) {
  auto s = SchemaBuilder::struct_()
               .name("com.example.User")
               .version(2)
               .field("id", schemas::int64())
               .field("name", schemas::optional_string())
               .build();
  BOOST_TEST(s->fields().size() == 2u);
  BOOST_TEST(s->field("name")->index == 1u);
  BOOST_TEST(s->field("nope") == nullptr);
  BOOST_TEST(*s->name() == "com.example.User");
  BOOST_TEST(s->describe() == "Schema{com.example.User:STRUCT}");
}

BOOST_AUTO_TEST_CASE(duplicate_field_is_a_data_error) {
  auto b = SchemaBuilder::struct_();
  b.field("a", schemas::int32());
  BOOST_CHECK_THROW(b.field("a", schemas::int32()), DataError);
  BOOST_CHECK_THROW(SchemaBuilder(Type::Int32).field("x", schemas::int32()), DataError);
}

BOOST_AUTO_TEST_CASE(logical_types_are_recognised) {
  BOOST_TEST((SchemaBuilder::decimal(2).build()->logical() == Logical::Decimal));
  BOOST_TEST(SchemaBuilder::decimal(2).build()->decimal_scale() == 2);
  BOOST_TEST((schemas::timestamp()->logical() == Logical::Timestamp));
  BOOST_TEST((SchemaBuilder::date().build()->logical() == Logical::Date));
  BOOST_TEST((SchemaBuilder::time().build()->logical() == Logical::Time));
  // A logical name on the wrong type is just a name.
  BOOST_TEST((SchemaBuilder(Type::String).name(std::string(logical_names::date)).build()->logical() == Logical::None));
}

BOOST_AUTO_TEST_CASE(defaults_are_owned_and_validated) {
  SchemaPtr s;
  {
    Arena a;
    std::string text = "fallback";
    s = SchemaBuilder(Type::String).default_value(Value::string(a.copy(text))).build();
  }
  BOOST_TEST(s->default_value()->as_string() == "fallback");
  BOOST_CHECK_THROW(SchemaBuilder(Type::Int32).default_value(Value::string("x")).build(), DataError);
}

BOOST_AUTO_TEST_CASE(equality_is_structural) {
  auto a = SchemaBuilder::struct_().field("x", schemas::int32()).build();
  auto b = SchemaBuilder::struct_().field("x", SchemaBuilder(Type::Int32).build()).build();
  auto c = SchemaBuilder::struct_().field("x", schemas::optional_int32()).build();
  BOOST_TEST(a->equals(*b));
  BOOST_TEST(!a->equals(*c));
}

BOOST_AUTO_TEST_CASE(cache_derives_once_per_input) {
  SchemaCache cache;
  auto in = SchemaBuilder::struct_().field("x", schemas::int32()).build();
  int made = 0;
  auto make = [&](const Schema&) {
    ++made;
    return SchemaBuilder::struct_().build();
  };
  auto& first = cache.get(*in, make);
  auto& second = cache.get(*in, make);
  BOOST_TEST(made == 1);
  BOOST_TEST(first.get() == second.get());
}

BOOST_AUTO_TEST_CASE(field_value_applies_defaults_on_request) {
  Arena arena;
  auto s = SchemaBuilder::struct_()
               .field("n", SchemaBuilder(Type::Int32).optional().default_value(Value::int32(7)).build())
               .build();
  Value v = Value::structure(arena, *s);
  BOOST_TEST(field_value(v, s->fields()[0], arena, true).as_int() == 7);
  BOOST_TEST(field_value(v, s->fields()[0], arena, false).is_null());
}

BOOST_AUTO_TEST_SUITE_END()
