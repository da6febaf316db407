#include "runtime/credit.hpp"

#include <algorithm>
#include <string>

namespace weir::runtime {

namespace {

bool fits(uint32_t held_batches, uint64_t held_bytes, uint64_t bytes, Credit cap) {
  if (held_batches >= cap.batches)
    return false;
  // An oversized batch is admitted alone (see CreditWindow::can_send).
  return held_bytes == 0 || held_bytes + bytes <= cap.bytes;
}

} // namespace

void CreditWindow::grant(Credit c) {
  // The first grant is the receiver's capacity; later ones return consumed credit.
  if (!attached_) {
    capacity_ = c;
    attached_ = true;
    return;
  }
  if (c.batches > in_flight_batches_ || c.bytes > in_flight_bytes_)
    throw CreditViolation("credit returned for batches that were never sent");
  in_flight_batches_ -= c.batches;
  in_flight_bytes_ -= c.bytes;
}

bool CreditWindow::can_send(uint64_t bytes) const noexcept {
  return attached_ && fits(in_flight_batches_, in_flight_bytes_, bytes, capacity_);
}

uint64_t CreditWindow::sendable_bytes() const noexcept {
  if (!attached_ || in_flight_batches_ >= capacity_.batches)
    return 0;
  return in_flight_bytes_ >= capacity_.bytes ? 0 : capacity_.bytes - in_flight_bytes_;
}

Credit CreditWindow::available() const noexcept {
  if (!attached_)
    return {};
  return {capacity_.batches - std::min(capacity_.batches, in_flight_batches_),
          capacity_.bytes - std::min(capacity_.bytes, in_flight_bytes_)};
}

void CreditWindow::on_send(uint64_t bytes) {
  if (!can_send(bytes))
    throw CreditViolation("batch of " + std::to_string(bytes) + " bytes sent without credit");
  ++in_flight_batches_;
  in_flight_bytes_ += bytes;
  max_batches_ = std::max(max_batches_, in_flight_batches_);
  max_bytes_ = std::max(max_bytes_, in_flight_bytes_);
}

void CreditLedger::on_receive(uint64_t bytes) {
  if (!fits(held_batches_, held_bytes_, bytes, capacity_))
    throw CreditViolation("received a batch of " + std::to_string(bytes)
                          + " bytes beyond the granted credit");
  ++held_batches_;
  held_bytes_ += bytes;
}

Credit CreditLedger::on_release(uint64_t bytes) {
  if (held_batches_ == 0 || bytes > held_bytes_)
    throw CreditViolation("released a batch that was never received");
  --held_batches_;
  held_bytes_ -= bytes;
  return {1, bytes};
}

} // namespace weir::runtime
