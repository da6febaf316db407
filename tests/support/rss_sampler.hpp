// Samples a child process's resident memory (VmRSS) in the background, every 50 ms,
// for tests that bound it: the peak over the whole run and over phases.
#pragma once

#include "tests/support/process.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

namespace weir::testing {

/// Samples a process's RSS in the background.
class RssSampler {
public:
  explicit RssSampler(const ChildProcess& p) : thread_([this, &p] {
      while (!stop_) {
        auto kib = p.rss_kib();
        if (kib > 0) {
          std::lock_guard lock{mutex_};
          peak_ = std::max(peak_, kib);
          phase_peak_ = std::max(phase_peak_, kib);
          last_ = kib;
          ++samples_;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds{50});
      }
    }) {}
  ~RssSampler() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable())
      thread_.join();
  }
  long peak() { std::lock_guard lock{mutex_}; return peak_; }
  long last() { std::lock_guard lock{mutex_}; return last_; }
  size_t samples() { std::lock_guard lock{mutex_}; return samples_; }
  /// The peak since the previous call.
  long take_phase_peak() {
    std::lock_guard lock{mutex_};
    auto p = phase_peak_;
    phase_peak_ = 0;
    return p;
  }

private:
  std::mutex mutex_;
  long peak_ = 0, phase_peak_ = 0, last_ = 0;
  size_t samples_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

} // namespace weir::testing
