// Credit: how much a downstream actor lets its upstream send.
//
// weir's flow control is "batches down, credit up". A receiver grants its
// capacity once when an upstream attaches, then returns, for every batch it has
// finished with (forwarded downstream, or written durably by a sink), exactly the
// credit that batch consumed: one batch and the bytes Batch::byte_size() reported
// when it arrived. A sender never has more batches or bytes in flight than it was
// granted, so the memory between two stages is bounded by the receiver's capacity.
#pragma once

#include <cstdint>

namespace weir {

/// An amount of credit, counted both in batches and in bytes.
struct Credit {
  uint32_t batches = 0;
  uint64_t bytes = 0;

  friend bool operator==(const Credit&, const Credit&) = default;
};

template <class Inspector>
auto inspect(Inspector& f, Credit& x) {
  return f(x.batches, x.bytes);
}

} // namespace weir
