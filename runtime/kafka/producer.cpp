#include "runtime/kafka/producer.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <climits>
#include <utility>

namespace weir::runtime::kafka {

namespace {

int clamp_ms(std::chrono::milliseconds timeout) {
  return static_cast<int>(std::clamp<int64_t>(timeout.count(), 0, INT_MAX));
}

// librdkafka tells a null from an empty key or value by the pointer alone.
const char* bytes_ptr(const weir::Batch& b, weir::Slice s) {
  static const char empty = 0;
  if (s.is_null())
    return nullptr;
  return s.size == 0 ? &empty : b.bytes(s).data();
}

} // namespace

Producer::Producer(const Properties& props, DeliveryCallback on_delivery)
  : on_delivery_(std::move(on_delivery)) {
  if (!props.contains("bootstrap.servers") && !props.contains("metadata.broker.list"))
    throw KafkaError("kafka property 'bootstrap.servers': required");
  auto p = props;
  p.try_emplace("enable.idempotence", "true");
  p.try_emplace("linger.ms", "5");
  // The Java client's partitioner, so a key lands where Kafka Connect puts it.
  p.try_emplace("partitioner", "murmur2_random");
  auto conf = make_conf(p);
  rd_kafka_conf_set_opaque(conf.get(), this);
  rd_kafka_conf_set_dr_msg_cb(conf.get(), &Producer::on_delivery);
  rd_kafka_conf_set_error_cb(conf.get(), &Producer::on_error);
  rk_ = make_handle(RD_KAFKA_PRODUCER, std::move(conf));
}

Producer::~Producer() {
  // The owner is going away: reports only free their batch from here on.
  closing_ = true;
  if (in_flight_ > 0 && !fatal_)
    rd_kafka_flush(rk_.get(), clamp_ms(close_timeout_));
  rd_kafka_purge(rk_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  rd_kafka_poll(rk_.get(), 0);
  for (auto& [name, rkt] : topics_)
    rd_kafka_topic_destroy(rkt);
  if (in_flight_ > 0)
    spdlog::warn("kafka producer {}: closed with {} records unacknowledged", rd_kafka_name(rk_.get()),
                 in_flight_);
  rk_.reset();
}

rd_kafka_topic_t* Producer::topic(const std::string& name) {
  auto it = topics_.find(name);
  if (it != topics_.end())
    return it->second;
  rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk_.get(), name.c_str(), nullptr);
  if (!rkt)
    throw KafkaError(describe("kafka producer: topic '" + name + "'", rd_kafka_last_error()));
  topics_.emplace(name, rkt);
  return rkt;
}

void Producer::produce(const weir::Batch& batch, uint64_t token) {
  throw_if_fatal();
  // The batch's topic handles; local because the callback may produce again.
  const size_t topic_count = batch.topics().size();
  rd_kafka_topic_t* few[8];
  std::vector<rd_kafka_topic_t*> many(topic_count > 8 ? topic_count : 0);
  rd_kafka_topic_t** handles = topic_count > 8 ? many.data() : few;
  for (size_t i = 0; i < topic_count; ++i)
    handles[i] = topic(batch.topics()[i]);

  auto& p = pending_.emplace_back();
  p.self = std::prev(pending_.end());
  p.token = token;
  p.remaining = batch.size() + 1; // +1 until every record is enqueued

  const auto deadline = std::chrono::steady_clock::now() + queue_full_timeout_;
  for (const auto& r : batch.records()) {
    rd_kafka_headers_t* headers = nullptr;
    if (r.header_count > 0) {
      headers = rd_kafka_headers_new(r.header_count);
      for (const auto& h : batch.headers(r)) {
        rd_kafka_header_add(headers, bytes_ptr(batch, h.key), h.key.length(),
                            bytes_ptr(batch, h.value), h.value.length());
      }
    }
    rd_kafka_resp_err_t err;
    for (;;) {
      err = rd_kafka_producev(
        rk_.get(), RD_KAFKA_V_RKT(handles[r.topic]),
        RD_KAFKA_V_PARTITION(r.partition >= 0 ? r.partition : RD_KAFKA_PARTITION_UA),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
        RD_KAFKA_V_KEY(bytes_ptr(batch, r.key), r.key.length()),
        RD_KAFKA_V_VALUE(const_cast<char*>(bytes_ptr(batch, r.value)), r.value.length()),
        RD_KAFKA_V_TIMESTAMP(r.timestamp >= 0 ? r.timestamp : 0), RD_KAFKA_V_HEADERS(headers),
        RD_KAFKA_V_OPAQUE(&p), RD_KAFKA_V_END);
      if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL || std::chrono::steady_clock::now() >= deadline)
        break;
      // Delivery reports free queue space (and may settle earlier batches).
      rd_kafka_poll(rk_.get(), 10);
      if (fatal_)
        break;
    }
    if (err) {
      if (headers)
        rd_kafka_headers_destroy(headers); // only a successful producev takes them
      settle(p, err, 1);
    } else {
      ++in_flight_;
    }
  }
  settle(p, RD_KAFKA_RESP_ERR_NO_ERROR, 0); // drop the +1; may complete the batch now
  throw_if_fatal();
}

void Producer::settle(Pending& p, rd_kafka_resp_err_t err, size_t records) {
  if (records > 0) {
    if (err) {
      ++p.failed;
      if (p.first_error.empty())
        p.first_error = rd_kafka_err2str(err);
    } else {
      ++p.delivered;
      brokers_.answered();
    }
  }
  if (--p.remaining > 0)
    return;
  // Take the batch off the list before the callback, which may produce again.
  auto token = p.token;
  auto delivered = p.delivered;
  auto failed = p.failed;
  auto first_error = std::move(p.first_error);
  pending_.erase(p.self);
  if (!closing_ && on_delivery_)
    on_delivery_(token, delivered, failed, first_error);
}

void Producer::on_delivery(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque) {
  auto* self = static_cast<Producer*>(opaque);
  --self->in_flight_;
  auto* p = static_cast<Pending*>(msg->_private);
  try {
    self->settle(*p, msg->err, 1);
  } catch (...) {
    // Never unwind through librdkafka: rethrown by poll(), flush() or produce().
    if (!self->callback_error_)
      self->callback_error_ = std::current_exception();
  }
}

void Producer::on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  auto* self = static_cast<Producer*>(opaque);
  if (err == RD_KAFKA_RESP_ERR__FATAL) {
    self->fatal_ = true;
    spdlog::critical("kafka producer {}: fatal error: {}", rd_kafka_name(rk), reason);
    return;
  }
  // Connection trouble and the like: librdkafka retries on its own.
  self->brokers_.on_error(err);
  spdlog::warn("kafka producer {}: {}", rd_kafka_name(rk), reason);
}

void Producer::throw_if_fatal() {
  if (callback_error_)
    std::rethrow_exception(std::exchange(callback_error_, nullptr));
  if (!fatal_)
    return;
  char reason[512];
  auto err = rd_kafka_fatal_error(rk_.get(), reason, sizeof reason);
  throw KafkaError(std::string("kafka producer: fatal error: ") + reason, err);
}

int Producer::poll(std::chrono::milliseconds timeout) {
  int served = rd_kafka_poll(rk_.get(), clamp_ms(timeout));
  brokers_.probe(rk_.get());
  throw_if_fatal();
  return served;
}

bool Producer::flush(std::chrono::milliseconds timeout) {
  auto err = rd_kafka_flush(rk_.get(), clamp_ms(timeout));
  throw_if_fatal();
  return err == RD_KAFKA_RESP_ERR_NO_ERROR && in_flight_ == 0;
}

namespace {

/// Takes a librdkafka error object; throws KafkaError with `what` and its text.
void throw_error(rd_kafka_error_t* error, const std::string& what) {
  std::string text = what + ": " + rd_kafka_error_string(error);
  auto code = rd_kafka_error_code(error);
  rd_kafka_error_destroy(error);
  throw KafkaError(text, code);
}

} // namespace

void Producer::init_transactions(std::chrono::milliseconds timeout) {
  if (auto* error = rd_kafka_init_transactions(rk_.get(), clamp_ms(timeout)))
    throw_error(error, "kafka producer: init_transactions");
}

void Producer::begin_transaction() {
  throw_if_fatal();
  if (auto* error = rd_kafka_begin_transaction(rk_.get()))
    throw_error(error, "kafka producer: begin_transaction");
}

void Producer::commit_transaction(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
    auto* error = rd_kafka_commit_transaction(rk_.get(), clamp_ms(left));
    if (!error)
      break;
    if (rd_kafka_error_is_retriable(error) && std::chrono::steady_clock::now() < deadline) {
      rd_kafka_error_destroy(error);
      continue;
    }
    if (rd_kafka_error_txn_requires_abort(error)) {
      std::string why = rd_kafka_error_string(error);
      rd_kafka_error_destroy(error);
      abort_transaction(timeout);
      throw KafkaError("kafka producer: transaction aborted: " + why);
    }
    throw_error(error, "kafka producer: commit_transaction");
  }
  throw_if_fatal();
}

void Producer::abort_transaction(std::chrono::milliseconds timeout) {
  if (auto* error = rd_kafka_abort_transaction(rk_.get(), clamp_ms(timeout)))
    throw_error(error, "kafka producer: abort_transaction");
}

} // namespace weir::runtime::kafka
