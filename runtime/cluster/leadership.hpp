// The cluster's leadership, fenced by Kafka ("Membership places, Kafka fences"):
// membership names the leader candidate (the oldest Up member); the candidate takes
// the leadership by initialising a transactional producer whose transactional.id is
// the cluster's (`GROUP.ID-leader`). Kafka gives each initialisation a new producer
// epoch, so a new leader's acquire() fences the old one: the old leader's next
// transaction fails (librdkafka's fatal fenced error), and it steps down. The
// leader writes every assignment, and every connector's task configs, inside a
// transaction of that producer to config.storage.topic; nodes read it with
// read_committed and run only what the newest committed assignment gives them.
// A deposed leader that has not noticed yet can write neither. So two nodes never both assign, whatever
// each one's view of the membership, and a cluster of any size (two included)
// fails over.
//
// Threading: one owner (the node actor) calls every method. CAF-free.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cluster/published_assignment.hpp"
#include "runtime/kafka/client_config.hpp"

namespace weir::runtime::kafka {
class Producer;
}

namespace weir::runtime::cluster {

/// Another node took the leadership (its producer fenced this one).
class Fenced : public kafka::KafkaError {
public:
  using KafkaError::KafkaError;
};

class Leadership {
public:
  /// `props`: client properties (bootstrap.servers, security); `topic`: the config
  /// topic; `transactional_id`: the same on every node of the cluster.
  Leadership(kafka::Properties props, std::string topic, std::string transactional_id);
  ~Leadership();
  Leadership(const Leadership&) = delete;
  Leadership& operator=(const Leadership&) = delete;

  /// Takes the leadership: a fresh transactional producer, initialised (which
  /// fences every earlier holder and aborts its open transaction). Read the config
  /// topic only after this returns: everything an earlier leader committed is
  /// there, and it can commit nothing more. Throws KafkaError (the broker did not
  /// answer within `timeout`, ...).
  void acquire(std::chrono::milliseconds timeout);
  /// Writes `assignment` in one transaction. Throws Fenced when another node holds
  /// the leadership now, KafkaError for any other failure; either way nothing was
  /// committed and this node no longer holds the leadership (acquire() again).
  void publish(const PublishedAssignment& assignment, std::chrono::milliseconds timeout);
  /// Writes connector `name`'s task configs (task_config_records) in one
  /// transaction; throws as publish().
  void publish_task_configs(const std::string& name, const std::vector<std::map<std::string, std::string>>& configs,
                            std::chrono::milliseconds timeout);
  /// Gives the leadership up (closes the producer; a later acquire() starts anew).
  void release();
  bool held() const noexcept { return producer_ != nullptr; }
  const std::string& transactional_id() const noexcept { return transactional_id_; }

private:
  /// Writes `records` (key, value) in one transaction; `what` names it in errors.
  void transact(const std::string& what, const std::vector<std::pair<std::string, std::string>>& records,
                std::chrono::milliseconds timeout);

  kafka::Properties props_;
  std::string topic_;
  std::string transactional_id_;
  std::unique_ptr<kafka::Producer> producer_;
};

/// Whether `code` says a transactional producer was fenced by a newer one.
bool is_fenced(rd_kafka_resp_err_t code) noexcept;

} // namespace weir::runtime::cluster
