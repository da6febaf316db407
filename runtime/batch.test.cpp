#include <boost/test/unit_test.hpp>

#include "runtime/batch.hpp"

using weir::Batch;

BOOST_AUTO_TEST_SUITE(batch)

BOOST_AUTO_TEST_CASE(append_keeps_bytes_nulls_and_metadata) {
  Batch b;
  b.append("users", 3, 42, 1700000000000, std::string_view{"k1"}, std::string_view{R"({"a":1})"});
  b.add_header("h", std::string_view{"v"});
  b.add_header("null-header", std::nullopt);
  b.append("orders", 0, 7, -1, std::nullopt, std::nullopt);
  b.append("users", 1, 8, 5, std::string_view{""}, std::string_view{""});

  BOOST_TEST(b.size() == 3u);
  BOOST_TEST(b.topics().size() == 2u);
  BOOST_TEST(b.topic(b[0]) == "users");
  BOOST_TEST(b.topic(b[1]) == "orders");
  BOOST_TEST(b[0].partition == 3);
  BOOST_TEST(b[0].offset == 42);
  BOOST_TEST(b.bytes(b[0].key) == "k1");
  BOOST_TEST(b.bytes(b[0].value) == R"({"a":1})");
  auto hs = b.headers(b[0]);
  BOOST_TEST(hs.size() == 2u);
  BOOST_TEST(b.bytes(hs[0].key) == "h");
  BOOST_TEST(b.bytes(hs[0].value) == "v");
  BOOST_TEST(hs[1].value.is_null());
  BOOST_TEST(b[1].key.is_null());
  BOOST_TEST(b[1].value.is_null());
  BOOST_TEST(b.headers(b[1]).empty());
  // Empty is not null: Kafka tells them apart, so must we.
  BOOST_TEST(!b[2].key.is_null());
  BOOST_TEST(b[2].key.length() == 0u);
}

BOOST_AUTO_TEST_CASE(reserved_batch_does_not_reallocate) {
  Batch b;
  b.reserve(100, 100 * 16);
  b.append("t", 0, 0, 0, std::string_view{"key"}, std::string_view{"value"});
  const char* first = b.bytes(b[0].key).data();
  for (int i = 1; i < 100; ++i)
    b.append("t", 0, i, 0, std::string_view{"key"}, std::string_view{"value"});
  BOOST_TEST(b.bytes(b[0].key).data() == first);
}

BOOST_AUTO_TEST_CASE(setters_replace_without_disturbing_other_records) {
  Batch b;
  b.append("a", 0, 0, 0, std::string_view{"k0"}, std::string_view{"v0"});
  b.append("a", 0, 1, 0, std::string_view{"k1"}, std::string_view{"v1"});
  b.set_value(0, std::string_view{"a much longer replacement value"});
  b.set_key(1, std::nullopt);
  b.set_topic(1, "routed");
  BOOST_TEST(b.bytes(b[0].value) == "a much longer replacement value");
  BOOST_TEST(b.bytes(b[1].value) == "v1");
  BOOST_TEST(b[1].key.is_null());
  BOOST_TEST(b.topic(b[1]) == "routed");
  BOOST_TEST(b.topic(b[0]) == "a");
}

BOOST_AUTO_TEST_CASE(byte_size_grows_with_content_and_clear_resets) {
  Batch b;
  BOOST_TEST(b.byte_size() == 0u);
  b.append("t", 0, 0, 0, std::string_view{"abc"}, std::string_view{"defgh"});
  BOOST_TEST(b.byte_size() >= 8u);
  auto one = b.byte_size();
  b.append("t", 0, 1, 0, std::string_view{"abc"}, std::string_view{"defgh"});
  BOOST_TEST(b.byte_size() == 2 * one);
  b.clear();
  BOOST_TEST(b.empty());
  BOOST_TEST(b.byte_size() == 0u);
}

BOOST_AUTO_TEST_CASE(header_before_record_is_an_error) {
  Batch b;
  BOOST_CHECK_THROW(b.add_header("h", std::nullopt), std::logic_error);
}

BOOST_AUTO_TEST_CASE(equality_compares_content_not_layout) {
  Batch a, b;
  a.append("t", 0, 0, 0, std::string_view{"k"}, std::string_view{"old"});
  a.set_value(0, std::string_view{"v"});
  b.append("t", 0, 0, 0, std::string_view{"k"}, std::string_view{"v"});
  BOOST_TEST((a == b));
  b.set_key(0, std::nullopt);
  BOOST_TEST(!(a == b));
}

BOOST_AUTO_TEST_SUITE_END()
