// Small stage logics for tests: a deterministic generator, a transform, and a
// sink that checks order and can be slowed down on purpose.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/stage_logic.hpp"

namespace weir::testing {

/// Emits `total` records "record-<n>" with offsets 0..total-1, in batches of at
/// most `per_batch` records.
class Generator : public runtime::BatchFeed {
public:
  Generator(uint64_t total, size_t per_batch, size_t value_size = 100)
    : total_(total), per_batch_(per_batch), padding_(value_size, 'x') {}

  Status fill(Batch& out, uint64_t max_bytes) override {
    std::string value;
    while (next_ < total_ && out.size() < per_batch_) {
      value = "record-" + std::to_string(next_) + ":" + padding_;
      auto before = out.byte_size();
      out.append("test", 0, static_cast<int64_t>(next_), 0, std::nullopt, value);
      if (out.byte_size() > max_bytes && before > 0) {
        // Did not fit: rebuild without it (tests only; real feeds size first).
        Batch trimmed;
        for (size_t i = 0; i + 1 < out.size(); ++i)
          trimmed.append("test", 0, out[i].offset, 0, std::nullopt, out.bytes(out[i].value));
        trimmed.sequence = out.sequence;
        out = std::move(trimmed);
        break;
      }
      ++next_;
    }
    return next_ < total_ ? Status::ready : Status::end;
  }

  std::string_view kind() const noexcept override { return "generator"; }

private:
  uint64_t total_;
  size_t per_batch_;
  std::string padding_;
  uint64_t next_ = 0;
};

/// Appends "|seen" to every value: a stand-in transform that changes sizes.
class Tagger : public runtime::StageLogic {
public:
  runtime::RetryAfter process(Batch& b) override {
    for (size_t i = 0; i < b.size(); ++i) {
      std::string v{b.bytes(b[i].value)};
      v += "|seen";
      b.set_value(i, v);
    }
    return {};
  }
  std::string_view kind() const noexcept override { return "transform"; }
};

/// Counts records, checks offsets arrive in order, optionally sleeps per batch.
class CheckingSink : public runtime::StageLogic {
public:
  explicit CheckingSink(std::chrono::milliseconds delay = {}) : delay_(delay) {}

  runtime::RetryAfter process(Batch& b) override {
    if (delay_.count() > 0)
      std::this_thread::sleep_for(delay_);
    for (const auto& r : b.records()) {
      if (r.offset != expected_)
        out_of_order_.fetch_add(1);
      expected_ = r.offset + 1;
      if (!b.bytes(r.value).ends_with("|seen"))
        untransformed_.fetch_add(1);
    }
    received_.fetch_add(b.size());
    return {};
  }
  std::string_view kind() const noexcept override { return "sink"; }

  uint64_t received() const { return received_.load(); }
  uint64_t out_of_order() const { return out_of_order_.load(); }
  uint64_t untransformed() const { return untransformed_.load(); }

private:
  std::chrono::milliseconds delay_;
  int64_t expected_ = 0;
  std::atomic<uint64_t> received_{0};
  std::atomic<uint64_t> out_of_order_{0};
  std::atomic<uint64_t> untransformed_{0};
};

} // namespace weir::testing
