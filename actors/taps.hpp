// Copies of a batch's records for whoever taps a stage (`weir shell tap`), shared by
// the stage actors (stage.cpp) and the async sink stage.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include <caf/actor.hpp>

#include "actors/messages.hpp"
#include "engine/pipeline/tap.hpp"
#include "runtime/data/decoded_batch.hpp"

namespace weir::actors {

/// Subscribers and how many records each still wants.
using TapList = std::vector<std::pair<caf::actor, int32_t>>;

/// Sends each subscriber up to what it still wants of `batch`, rendered by
/// `renderer` (made on first use); subscribers that have all they wanted are dropped.
template <class Self>
void send_to_taps(Self* self, TapList& taps, std::unique_ptr<engine::pipeline::TapRenderer>& renderer,
                  const runtime::data::DecodedBatch& batch) {
  if (!renderer)
    renderer = std::make_unique<engine::pipeline::TapRenderer>();
  for (auto& [subscriber, wanted] : taps) {
    auto lines = renderer->render(batch, static_cast<size_t>(wanted));
    wanted -= static_cast<int32_t>(lines.size());
    if (!lines.empty())
      self->send(subscriber, tap_atom::value, std::move(lines));
  }
  std::erase_if(taps, [](const auto& t) { return t.second <= 0; });
}

} // namespace weir::actors
