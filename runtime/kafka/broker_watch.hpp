// Whether a Kafka client can reach its brokers, for the task status: librdkafka reports
// lost connections but says nothing when a broker comes back.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <librdkafka/rdkafka.h>

namespace weir::runtime::kafka {

/// Fed by a client's error callback and by its successes; asks for metadata while the
/// brokers seem away. Not thread-safe: its client's owner thread calls everything (the
/// error and delivery callbacks run inside that thread's polls).
class BrokerWatch {
public:
  /// An error from librdkafka's error callback. A lost connection may be a broker that
  /// died or one that closed an idle connection, and "all brokers are down" comes only
  /// when librdkafka sees every one go (not always, with a bootstrap entry and the
  /// broker it names): so any of them starts the wait, and the next probe() asks at once.
  /// Returns whether it was such an error.
  bool on_error(int err);
  /// A broker answered (a commit or a delivery acknowledged; not records, which may come
  /// from the client's local queue).
  void answered() { down_since_.reset(); }
  /// While waiting: asks `rk` for metadata (at most once a second, up to 500 ms),
  /// which ends the wait if a broker answers.
  void probe(rd_kafka_t* rk);

  std::optional<std::chrono::system_clock::time_point> down_since() const noexcept { return down_since_; }
  /// "waiting for the broker since 2026-12-02T07:51:50Z", or empty.
  std::string describe() const;

private:
  std::optional<std::chrono::system_clock::time_point> down_since_;
  std::chrono::steady_clock::time_point probed_at_;
};

} // namespace weir::runtime::kafka
