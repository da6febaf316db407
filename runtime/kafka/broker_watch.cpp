#include "runtime/kafka/broker_watch.hpp"

#include <ctime>

#include <spdlog/spdlog.h>

namespace weir::runtime::kafka {

bool BrokerWatch::on_error(int err) {
  bool unreachable = err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN || err == RD_KAFKA_RESP_ERR__TRANSPORT
                     || err == RD_KAFKA_RESP_ERR__RESOLVE;
  if (unreachable && !down_since_) {
    down_since_ = std::chrono::system_clock::now();
    probed_at_ = {};
  }
  return unreachable;
}

void BrokerWatch::probe(rd_kafka_t* rk) {
  auto now = std::chrono::steady_clock::now();
  if (!down_since_ || now - probed_at_ < std::chrono::seconds{1})
    return;
  probed_at_ = now;
  const rd_kafka_metadata_t* metadata = nullptr;
  if (rd_kafka_metadata(rk, 0, nullptr, &metadata, 500) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    spdlog::info("kafka client {}: the broker answers again", rd_kafka_name(rk));
    down_since_.reset();
  }
  if (metadata)
    rd_kafka_metadata_destroy(metadata);
}

std::string BrokerWatch::describe() const {
  if (!down_since_)
    return {};
  std::time_t t = std::chrono::system_clock::to_time_t(*down_since_);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char at[32];
  std::strftime(at, sizeof at, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return std::string{"waiting for the broker since "} + at;
}

} // namespace weir::runtime::kafka
