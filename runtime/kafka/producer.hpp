// A Kafka producer that sends weir record batches and acknowledges whole batches.
//
// Threading: not thread-safe. One owner (the producer actor) calls every method
// from one thread; the delivery callback runs on that thread, inside poll(),
// flush() or produce() (produce polls while librdkafka's queue is full).
//
// Ownership: produce() copies every record into librdkafka, so the batch may be
// reused or dropped as soon as it returns.
#pragma once

#include "runtime/kafka/broker_watch.hpp"
#include "runtime/kafka/client_config.hpp"
#include "runtime/batch.hpp"

#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

namespace weir::runtime::kafka {

/// Reports a batch once every one of its records has a delivery report.
/// `delivered + failed` equals the batch size; `first_error` is empty when
/// nothing failed.
using DeliveryCallback = std::function<void(uint64_t token, size_t delivered, size_t failed,
                                            const std::string& first_error)>;

class Producer {
public:
  /// `props` are librdkafka producer properties; `bootstrap.servers` is required.
  /// Defaults (overridable): enable.idempotence=true, linger.ms=5,
  /// partitioner=murmur2_random (Java's). Throws KafkaError.
  Producer(const Properties& props, DeliveryCallback on_delivery);
  /// Waits up to close_timeout() for outstanding deliveries without calling the
  /// callback (the owner is going away): call flush() first to hear about them.
  ~Producer();

  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  /// Enqueues every record of `batch` (topic, partition if >= 0 else the
  /// partitioner's choice, key, value, headers, timestamp if >= 0). While
  /// librdkafka's queue is full it polls and retries, for at most
  /// queue_full_timeout(); a record that cannot be enqueued counts as failed.
  void produce(const weir::Batch& batch, uint64_t token);

  /// Serves delivery reports and client errors, waiting up to `timeout` for one.
  /// Returns the number of events served; throws KafkaError on a fatal error
  /// (e.g. the idempotent producer lost its guarantees).
  int poll(std::chrono::milliseconds timeout);

  /// Sends and waits for everything outstanding; true when nothing is in flight.
  bool flush(std::chrono::milliseconds timeout);

  /// Whether the brokers are reachable: from a failed connection until a delivery or a
  /// metadata request (poll() asks, see BrokerWatch) succeeds again.
  const BrokerWatch& brokers() const noexcept { return brokers_; }

  /// Transactions (needs `transactional.id`), librdkafka's API with its error
  /// handling folded in: a retriable error is retried until `timeout`; an error
  /// that requires an abort aborts the transaction; each then throws KafkaError
  /// (a commit that throws did not commit). Delivery reports are served inside.
  void init_transactions(std::chrono::milliseconds timeout);
  void begin_transaction();
  void commit_transaction(std::chrono::milliseconds timeout);
  void abort_transaction(std::chrono::milliseconds timeout);

  /// Records enqueued whose delivery report has not arrived yet.
  size_t in_flight() const noexcept { return in_flight_; }

  void set_queue_full_timeout(std::chrono::milliseconds t) noexcept { queue_full_timeout_ = t; }
  std::chrono::milliseconds queue_full_timeout() const noexcept { return queue_full_timeout_; }
  void set_close_timeout(std::chrono::milliseconds t) noexcept { close_timeout_ = t; }
  std::chrono::milliseconds close_timeout() const noexcept { return close_timeout_; }

private:
  // One per produced batch, the opaque of each of its messages.
  struct Pending {
    uint64_t token = 0;
    size_t remaining = 0;
    size_t delivered = 0;
    size_t failed = 0;
    std::string first_error;
    std::list<Pending>::iterator self;
  };

  static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* msg, void* opaque);
  static void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  void settle(Pending& p, rd_kafka_resp_err_t err, size_t records);
  rd_kafka_topic_t* topic(const std::string& name);
  void throw_if_fatal();

  HandlePtr rk_;
  DeliveryCallback on_delivery_;
  std::list<Pending> pending_;
  std::unordered_map<std::string, rd_kafka_topic_t*> topics_;
  size_t in_flight_ = 0;
  std::exception_ptr callback_error_; // thrown by on_delivery_, rethrown to the owner
  bool fatal_ = false;
  BrokerWatch brokers_;
  bool closing_ = false;
  std::chrono::milliseconds queue_full_timeout_{30000};
  std::chrono::milliseconds close_timeout_{10000};
};

} // namespace weir::runtime::kafka
