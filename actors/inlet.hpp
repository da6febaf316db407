// The receiving half of the credit protocol, one for every stage that takes batches
// (stage.cpp's transforms and sinks, the async sink stage, the producer): who the
// upstream is, the credit it was granted and what is held of it, the end of its
// stream, and who taps the records arriving. runtime::CreditLedger keeps the counts;
// this adds the messages.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include <caf/actor.hpp>
#include <caf/actor_cast.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"
#include "actors/taps.hpp"
#include "engine/pipeline/tap.hpp"
#include "runtime/credit.hpp"

namespace weir::actors {

class Inlet {
public:
  /// Grants `capacity` to the upstream that attaches.
  explicit Inlet(Credit capacity = {}) : ledger_(capacity) {}

  /// The sender of the current message attached: it gets the whole grant.
  template <class Self>
  void attach(Self* self) {
    upstream_ = caf::actor_cast<caf::actor>(self->current_sender());
    self->send(upstream_, credit_atom::value, ledger_.initial_grant());
  }

  /// A batch of `records` arrived, charged `charged` bytes; counted into `stats`.
  void arrived(StageStats& stats, size_t records, uint64_t charged) {
    ledger_.on_receive(charged);
    ++stats.batches_in;
    stats.records_in += records;
    stats.bytes_in += charged;
  }

  /// The stage is done with a batch charged `charged`: its credit goes back.
  template <class Self>
  void release(Self* self, uint64_t charged) {
    auto c = ledger_.on_release(charged);
    if (upstream_)
      self->send(upstream_, credit_atom::value, c);
  }

  /// Everything up to `offsets` is durable: reported towards the feed, which commits.
  template <class Self>
  void durable(Self* self, OffsetList offsets) {
    if (upstream_ && !offsets.empty())
      self->send(upstream_, durable_atom::value, std::move(offsets));
  }

  /// (tap, count, subscriber): `count` more records for `subscriber`; 0 cancels.
  void subscribe(int32_t count, caf::actor subscriber) {
    std::erase_if(taps_, [&](const auto& t) { return t.first == subscriber; });
    if (count > 0)
      taps_.emplace_back(std::move(subscriber), count);
  }

  /// Copies of `batch`'s records to whoever taps the stage; free when no one does.
  template <class Self>
  void tap(Self* self, const runtime::data::DecodedBatch& batch) {
    if (!taps_.empty())
      send_to_taps(self, taps_, tap_renderer_, batch);
  }

  void end_of_stream() noexcept { upstream_done_ = true; }
  bool upstream_done() const noexcept { return upstream_done_; }
  Credit capacity() const noexcept { return ledger_.capacity(); }
  /// Fills the held credit into `stats`.
  void fill_stats(StageStats& stats) const { stats.held = {ledger_.held_batches(), ledger_.held_bytes()}; }

private:
  runtime::CreditLedger ledger_;
  caf::actor upstream_;
  bool upstream_done_ = false;
  TapList taps_;
  std::unique_ptr<engine::pipeline::TapRenderer> tap_renderer_;
};

/// A stage failed: its figures say so (state, errors, last error) and the log names it.
/// What it holds stays held: no credit goes back, so the upstream stops.
inline void mark_failed(StageStats& stats, const std::string& what) {
  stats.state = "FAILED";
  ++stats.errors;
  stats.last_error = what;
  spdlog::error("stage {} failed: {}", stats.name, what);
}

} // namespace weir::actors
