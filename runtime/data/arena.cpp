#include "weir/data/arena.hpp"

#include <algorithm>

namespace weir::data {

void* Arena::allocate_slow(size_t bytes, size_t align) {
  // Try the blocks kept from before the last reset first, then grow geometrically so
  // a batch needs O(log n) blocks.
  while (true) {
    if (!blocks_.empty() && ptr_ != nullptr && current_ + 1 < blocks_.size()) {
      ++current_;
    } else if (!blocks_.empty() && ptr_ == nullptr) {
      current_ = 0;
    } else {
      size_t size = blocks_.empty() ? first_block_size_ : blocks_.back().size * 2;
      size = std::max(size, bytes + align);
      blocks_.push_back({std::make_unique_for_overwrite<std::byte[]>(size), size});
      current_ = blocks_.size() - 1;
    }
    auto& b = blocks_[current_];
    ptr_ = b.data.get();
    end_ = ptr_ + b.size;
    auto p = (reinterpret_cast<uintptr_t>(ptr_) + (align - 1)) & ~(uintptr_t{align} - 1);
    if (p + bytes <= reinterpret_cast<uintptr_t>(end_)) {
      ptr_ = reinterpret_cast<std::byte*>(p + bytes);
      return reinterpret_cast<void*>(p);
    }
    // The kept block is too small for this request: move on to the next one.
  }
}

void Arena::reset() noexcept {
  current_ = 0;
  ptr_ = nullptr;
  end_ = nullptr;
}

size_t Arena::capacity() const noexcept {
  size_t n = 0;
  for (const auto& b : blocks_)
    n += b.size;
  return n;
}

} // namespace weir::data
