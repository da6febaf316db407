// Credit: how much a downstream actor lets its upstream send, and the two halves of
// the credit protocol as plain state machines, so that every stage (consumer,
// transform, sink writer, producer) shares one implementation and the accounting is
// unit-tested without an actor system.
//
// weir's flow control is "batches down, credit up". A receiver grants its
// capacity once when an upstream attaches, then returns, for every batch it has
// finished with (forwarded downstream, or written durably by a sink), exactly the
// credit that batch consumed: one batch and the bytes Batch::byte_size() reported
// when it arrived. A sender never has more batches or bytes in flight than it was
// granted, so the memory between two stages is bounded by the receiver's capacity.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace weir {

/// An amount of credit, counted both in batches and in bytes.
struct Credit {
  uint32_t batches = 0;
  uint64_t bytes = 0;

  friend bool operator==(const Credit&, const Credit&) = default;
};

/// CAF's serialization hook (Credit travels in credit messages between actors).
template <class Inspector>
auto inspect(Inspector& f, Credit& x) {
  return f(x.batches, x.bytes);
}

} // namespace weir

namespace weir::runtime {

/// Raised when a peer breaks the protocol (sends without credit, returns credit
/// it never consumed). It is a bug in a stage, never a data condition.
struct CreditViolation : std::logic_error {
  using std::logic_error::logic_error;
};

/// Sender side: the credit a downstream granted and how much of it is in flight.
class CreditWindow {
public:
  /// Credit arrived from downstream (its capacity on attach, or a return).
  void grant(Credit c);

  /// True when a batch of `bytes` may be sent now. A batch larger than the whole
  /// byte capacity may be sent only when nothing else is in flight; otherwise one
  /// oversized record would stall the pipeline forever.
  bool can_send(uint64_t bytes) const noexcept;

  /// The largest batch (in bytes) that can be sent now; 0 without batch credit.
  uint64_t sendable_bytes() const noexcept;

  /// Accounts for a batch sent; throws CreditViolation when !can_send(bytes).
  void on_send(uint64_t bytes);

  uint32_t in_flight_batches() const noexcept { return in_flight_batches_; }
  uint64_t in_flight_bytes() const noexcept { return in_flight_bytes_; }
  /// Capacity = everything granted minus everything in flight plus in flight:
  /// the most that can ever be outstanding at once.
  Credit capacity() const noexcept { return capacity_; }
  Credit available() const noexcept;
  uint32_t max_in_flight_batches() const noexcept { return max_batches_; }
  uint64_t max_in_flight_bytes() const noexcept { return max_bytes_; }

private:
  Credit capacity_;
  uint32_t in_flight_batches_ = 0;
  uint64_t in_flight_bytes_ = 0;
  uint32_t max_batches_ = 0;
  uint64_t max_bytes_ = 0;
  bool attached_ = false;
};

/// Receiver side: the capacity a stage grants and the batches it holds.
class CreditLedger {
public:
  explicit CreditLedger(Credit capacity) : capacity_(capacity) {}

  /// The grant sent to an upstream when it attaches.
  Credit initial_grant() const noexcept { return capacity_; }

  /// A batch of `bytes` arrived; throws CreditViolation if it exceeds the grant.
  void on_receive(uint64_t bytes);

  /// The stage is done with a batch of `bytes` (as counted on arrival); returns the
  /// credit to send back upstream.
  Credit on_release(uint64_t bytes);

  Credit capacity() const noexcept { return capacity_; }
  uint32_t held_batches() const noexcept { return held_batches_; }
  uint64_t held_bytes() const noexcept { return held_bytes_; }

private:
  Credit capacity_;
  uint32_t held_batches_ = 0;
  uint64_t held_bytes_ = 0;
};

} // namespace weir::runtime
