#include "runtime/cluster/leadership.hpp"

#include "runtime/cluster/state_log.hpp"
#include "runtime/kafka/producer.hpp"
#include "runtime/batch.hpp"

namespace weir::runtime::cluster {

bool is_fenced(rd_kafka_resp_err_t code) noexcept {
  return code == RD_KAFKA_RESP_ERR__FENCED || code == RD_KAFKA_RESP_ERR_PRODUCER_FENCED
         || code == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH;
}

Leadership::Leadership(kafka::Properties props, std::string topic, std::string transactional_id)
  : props_(std::move(props)), topic_(std::move(topic)), transactional_id_(std::move(transactional_id)) {
  props_["transactional.id"] = transactional_id_;
  props_.try_emplace("client.id", "weir-leader");
  // An assignment is one small record: a leader that cannot write it this fast
  // gives the leadership up rather than hold the cluster still.
  props_.try_emplace("transaction.timeout.ms", "30000");
}

Leadership::~Leadership() = default;

void Leadership::acquire(std::chrono::milliseconds timeout) {
  release();
  auto producer = std::make_unique<kafka::Producer>(props_, kafka::DeliveryCallback{});
  producer->set_close_timeout(std::chrono::milliseconds{500});
  producer->init_transactions(timeout);
  producer_ = std::move(producer);
}

void Leadership::publish(const PublishedAssignment& assignment, std::chrono::milliseconds timeout) {
  transact("assignment generation " + std::to_string(assignment.generation),
           {{std::string{assignment_key}, encode(assignment)}}, timeout);
}

void Leadership::publish_task_configs(const std::string& name,
                                      const std::vector<std::map<std::string, std::string>>& configs,
                                      std::chrono::milliseconds timeout) {
  transact("the task configs of connector " + name, task_config_records(name, configs), timeout);
}

void Leadership::transact(const std::string& written,
                          const std::vector<std::pair<std::string, std::string>>& records,
                          std::chrono::milliseconds timeout) {
  if (!producer_)
    throw kafka::KafkaError("leadership: not held (acquire() first)", RD_KAFKA_RESP_ERR__STATE);
  const std::string what = "leadership " + transactional_id_ + ": writing " + written;
  try {
    producer_->begin_transaction();
    weir::Batch batch;
    for (const auto& [key, value] : records) // the config topic's one partition
      batch.append(topic_, 0, -1, -1, std::string_view{key}, std::string_view{value});
    producer_->produce(batch, 0);
    producer_->commit_transaction(timeout);
  } catch (const kafka::KafkaError& e) {
    release();
    if (is_fenced(e.code()))
      throw Fenced(what + ": another node took the leadership (" + e.what() + ")", e.code());
    throw kafka::KafkaError(what + ": " + e.what(), e.code());
  }
}

void Leadership::release() { producer_.reset(); }

} // namespace weir::runtime::cluster
