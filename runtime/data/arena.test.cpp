#include "runtime/data/arena.hpp"

#include <boost/test/unit_test.hpp>

using weir::runtime::data::Arena;

BOOST_AUTO_TEST_SUITE(arena)

BOOST_AUTO_TEST_CASE(allocations_are_aligned_and_distinct) {
  Arena a(64);
  auto* p = static_cast<char*>(a.allocate(3, 1));
  auto* q = a.allocate(8, 8);
  BOOST_TEST(reinterpret_cast<uintptr_t>(q) % 8 == 0u);
  BOOST_TEST(static_cast<void*>(p) != q);
  auto s = a.copy("hello");
  BOOST_TEST(s == "hello");
}

BOOST_AUTO_TEST_CASE(reset_reuses_blocks_without_growing) {
  Arena a(128);
  for (int i = 0; i < 100; ++i)
    a.allocate(50, 8);
  size_t cap = a.capacity();
  for (int round = 0; round < 5; ++round) {
    a.reset();
    for (int i = 0; i < 100; ++i)
      a.allocate(50, 8);
    BOOST_TEST(a.capacity() == cap);
  }
}

BOOST_AUTO_TEST_CASE(oversized_requests_get_their_own_block) {
  Arena a(64);
  auto* p = static_cast<char*>(a.allocate(10000, 16));
  p[9999] = 1; // writable
  BOOST_TEST(a.capacity() >= 10000u);
}

BOOST_AUTO_TEST_CASE(moving_keeps_pointers_valid) {
  Arena a(64);
  auto s = a.copy("stays");
  Arena b(std::move(a));
  BOOST_TEST(s == "stays");
  b.copy("more");
  BOOST_TEST(s == "stays");
}

BOOST_AUTO_TEST_SUITE_END()
