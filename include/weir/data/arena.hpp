// A bump allocator for one batch's decoded values.
//
// Everything a decoded record points to (strings, container element arrays, headers)
// is carved out of the arena of the DecodedBatch that holds it. Nothing is freed one
// by one: reset() rewinds the arena and keeps its blocks, so a batch that is reused
// for the next batch allocates nothing once it has seen its largest batch.
//
// Ownership and lifetime: memory handed out stays valid until reset() or destruction.
// Moving an Arena moves its blocks (heap memory), so pointers into it stay valid
// across a move; that is what makes a DecodedBatch cheap to move. Only trivially
// destructible objects may live in an arena: no destructor ever runs.
//
// Threading: none; an arena belongs to one batch, which one actor owns at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

namespace weir::data {

class Arena {
public:
  explicit Arena(size_t first_block_size = 16 * 1024) noexcept : first_block_size_(first_block_size) {}
  Arena(Arena&&) noexcept = default;
  Arena& operator=(Arena&&) noexcept = default;
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  /// Uninitialised memory for `bytes` bytes aligned to `align` (a power of two).
  void* allocate(size_t bytes, size_t align = alignof(std::max_align_t)) {
    auto p = (reinterpret_cast<uintptr_t>(ptr_) + (align - 1)) & ~(uintptr_t{align} - 1);
    if (ptr_ != nullptr && p + bytes <= reinterpret_cast<uintptr_t>(end_)) {
      ptr_ = reinterpret_cast<std::byte*>(p + bytes);
      return reinterpret_cast<void*>(p);
    }
    return allocate_slow(bytes, align);
  }

  /// Uninitialised room for `n` objects of a trivially destructible type.
  template <class T>
  T* allocate_array(size_t n) {
    static_assert(std::is_trivially_destructible_v<T>, "arena objects never run destructors");
    return static_cast<T*>(allocate(n * sizeof(T), alignof(T)));
  }

  /// A copy of `s` in the arena (not NUL-terminated).
  std::string_view copy(std::string_view s) {
    if (s.empty())
      return {};
    auto* p = static_cast<char*>(allocate(s.size(), 1));
    std::memcpy(p, s.data(), s.size());
    return {p, s.size()};
  }

  /// Forgets every allocation but keeps the blocks for reuse.
  void reset() noexcept;

  /// Bytes held in blocks (what the arena costs in memory, used or not).
  size_t capacity() const noexcept;

private:
  void* allocate_slow(size_t bytes, size_t align);

  struct Block {
    std::unique_ptr<std::byte[]> data;
    size_t size = 0;
  };
  std::vector<Block> blocks_;
  size_t current_ = 0; ///< index of the block ptr_ points into
  std::byte* ptr_ = nullptr;
  std::byte* end_ = nullptr;
  size_t first_block_size_;
};

} // namespace weir::data
