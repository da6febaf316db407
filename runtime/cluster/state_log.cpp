#include "runtime/cluster/state_log.hpp"

#include "runtime/convert/json_text.hpp"
#include "runtime/kafka/admin.hpp"
#include "runtime/kafka/embedded_cluster.hpp"
#include "runtime/kafka/producer.hpp"
#include "runtime/batch.hpp"

#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <climits>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace weir::runtime::cluster {

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

/// How long the log's thread waits for a record before it looks at its stop flag:
/// bounds the destructor's wait.
constexpr auto poll_interval = 100ms;
/// Records applied between two on_change calls at most (a long backlog is still
/// reported in pieces, never held back until its end).
constexpr size_t max_batch = 1000;
/// How often the log's thread checks that the broker answers (last_contact()).
constexpr auto probe_interval = 500ms;

int clamp_ms(std::chrono::milliseconds ms) {
  return static_cast<int>(std::clamp<int64_t>(ms.count(), 0, INT_MAX));
}

/// One record to append; std::nullopt value: a tombstone.
struct OutRecord {
  std::string key;
  std::optional<std::string> value;
};

/// A record that cannot be applied; the log names its key and offset and skips it.
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Called on the log's thread for each record read, in offset order per partition.
using RecordHandler = std::function<void(std::string_view key, std::optional<std::string_view> value,
                                         int32_t partition, int64_t offset)>;

/// One compacted topic read from the beginning on a thread of its own (every
/// partition assigned, no consumer group) and appended to. What a record means is
/// the owner's business: TopicTail only moves bytes and tracks how far it read.
class TopicTail {
public:
  /// `purpose` names the topic's role in log lines ("config.storage.topic").
  /// Creates the topic when missing (`partitions`, `replication`, compact) and checks that it is
  /// compacted and, when `single_partition`, that it has one partition.
  TopicTail(const kafka::Properties& props, std::string topic, std::string purpose,
            int32_t partitions, int16_t replication, bool single_partition);
  ~TopicTail() { stop(); }
  TopicTail(const TopicTail&) = delete;
  TopicTail& operator=(const TopicTail&) = delete;

  /// Starts the thread. `on_batch` runs after each batch of records once the
  /// first read to the end is done (and once then, even for an empty topic).
  void start(RecordHandler on_record, std::function<void()> on_batch);
  /// Stops and joins the thread; idempotent.
  void stop();
  bool catch_up(std::chrono::milliseconds timeout);
  Clock::time_point last_contact() const { return Clock::time_point{Clock::duration{contact_.load()}}; }

  /// Appends `records` in order and waits for the broker's acknowledgement.
  void produce_sync(const std::vector<OutRecord>& records);
  /// Appends `records`; a failure is only logged.
  void produce_async(const std::vector<OutRecord>& records);
  void flush(std::chrono::milliseconds timeout);

private:
  void run();
  /// Asks the broker for the topic's end offsets (the thread's liveness probe).
  bool end_offsets(std::vector<int64_t>& ends, std::chrono::milliseconds timeout,
                   rd_kafka_resp_err_t& err);
  void take(const rd_kafka_message_t& msg, size_t& records);
  void serve_producer();
  void delivered(uint64_t token, size_t ok, size_t failed, const std::string& error);
  weir::Batch batch_of(const std::vector<OutRecord>& records) const;

  std::string topic_;
  std::string purpose_;
  int32_t partitions_ = 0;

  kafka::HandlePtr consumer_;

  // The producer and everything its delivery callback touches.
  std::mutex produce_mutex_;
  std::unique_ptr<kafka::Producer> producer_;
  uint64_t next_token_ = 0;
  uint64_t sync_token_ = 0;
  bool sync_done_ = false;
  size_t sync_failed_ = 0;
  std::string sync_error_;
  std::chrono::milliseconds sync_timeout_{35000};
  std::map<uint64_t, std::string> async_keys_; ///< token -> first key, for failure logs

  // The log's thread and what it has read.
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<Clock::rep> contact_{Clock::now().time_since_epoch().count()};
  RecordHandler on_record_;
  std::function<void()> on_batch_;
  std::vector<int64_t> reached_;   ///< per partition: next offset to read (thread-only)
  std::vector<bool> at_end_;       ///< per partition: reached its end once (thread-only)
  bool caught_up_once_ = false;    ///< every partition reached its end once (thread-only)

  // What catch_up waits for: offsets read, applied and reported through on_batch.
  std::mutex published_mutex_;
  std::condition_variable published_cv_;
  std::vector<int64_t> published_; ///< -1 until the first read to the end
};

TopicTail::TopicTail(const kafka::Properties& props, std::string topic, std::string purpose,
                     int32_t partitions, int16_t replication, bool single_partition)
  : topic_(std::move(topic)), purpose_(std::move(purpose)) {
  const std::string what = purpose_ + " '" + topic_ + "'";
  create_storage_topic(props, purpose_, topic_, partitions, replication);

  // The metadata of a topic created a moment ago may lag on a broker.
  auto deadline = Clock::now() + 10s;
  std::optional<int32_t> count;
  while (!(count = kafka::partition_count(props, topic_)) && Clock::now() < deadline)
    std::this_thread::sleep_for(100ms);
  if (!count || *count < 1)
    throw kafka::KafkaError(what + ": the topic has no partitions in the cluster metadata",
                            RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART);
  if (single_partition && *count != 1)
    throw kafka::KafkaError(what + ": the topic must have exactly one partition (one total order "
                                     "of configs), it has " + std::to_string(*count),
                            RD_KAFKA_RESP_ERR__INVALID_ARG);
  partitions_ = *count;

  // A topic that deletes old records loses configs and statuses: refuse it, as
  // Kafka Connect does. The embedded mock broker has no topic configs.
  if (!kafka::EmbeddedCluster::is_embedded(kafka::get_or(props, "bootstrap.servers", ""))) {
    std::optional<std::string> policy;
    try {
      auto configs = kafka::topic_configs(props, topic_);
      auto it = configs.find("cleanup.policy");
      policy = it == configs.end() ? "" : it->second;
    } catch (const kafka::KafkaError& e) {
      spdlog::warn("{}: cannot check that the topic is compacted: {}", what, e.what());
    }
    if (policy && *policy != "compact")
      throw kafka::KafkaError(what + ": the topic must have cleanup.policy=compact, it has '" + *policy
                                + "'",
                              RD_KAFKA_RESP_ERR__INVALID_ARG);
  }

  auto producer_props = props;
  producer_props.try_emplace("client.id", "weir-" + purpose_);
  // librdkafka's default is 5 minutes; a config write that long is a failure.
  producer_props.try_emplace("delivery.timeout.ms", "30000");
  int64_t delivery_ms = 30000;
  const auto& text = producer_props["delivery.timeout.ms"];
  std::from_chars(text.data(), text.data() + text.size(), delivery_ms);
  sync_timeout_ = std::chrono::milliseconds{delivery_ms} + 5s;
  producer_ = std::make_unique<kafka::Producer>(
    producer_props, [this](uint64_t token, size_t ok, size_t failed, const std::string& error) {
      delivered(token, ok, failed, error);
    });
  // Bounds the destructor: statuses not yet acknowledged are given up after this.
  producer_->set_close_timeout(500ms);

  auto consumer_props = props;
  // Partitions are assigned, so no group is joined and nothing is committed; but
  // librdkafka 2.0 refuses assign() without a group.id.
  consumer_props["group.id"] = "weir-" + purpose_ + "-reader";
  consumer_props.try_emplace("client.id", "weir-" + purpose_);
  consumer_props["enable.auto.commit"] = "false";
  consumer_props["enable.auto.offset.store"] = "false";
  consumer_props["enable.partition.eof"] = "true"; // how the thread knows it reached the end
  // Should compaction move the log's start past the position, go on from the
  // start: librdkafka's default (latest) would skip records.
  consumer_props["auto.offset.reset"] = "earliest";
  consumer_props.try_emplace("isolation.level", "read_committed");
  consumer_ = kafka::make_handle(RD_KAFKA_CONSUMER, kafka::make_conf(consumer_props));
  rd_kafka_poll_set_consumer(consumer_.get());
}

void TopicTail::start(RecordHandler on_record, std::function<void()> on_batch) {
  if (thread_.joinable())
    throw std::logic_error(purpose_ + " '" + topic_ + "': started twice");
  on_record_ = std::move(on_record);
  on_batch_ = std::move(on_batch);
  const auto n = static_cast<size_t>(partitions_);
  reached_.assign(n, 0);
  at_end_.assign(n, false);
  published_.assign(n, -1);

  auto* list = rd_kafka_topic_partition_list_new(partitions_);
  for (int32_t p = 0; p < partitions_; ++p)
    rd_kafka_topic_partition_list_add(list, topic_.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  auto err = rd_kafka_assign(consumer_.get(), list);
  rd_kafka_topic_partition_list_destroy(list);
  if (err)
    throw kafka::KafkaError(kafka::describe(purpose_ + " '" + topic_ + "': assign", err), err);
  thread_ = std::thread([this] { run(); });
}

void TopicTail::stop() {
  {
    std::lock_guard lock(published_mutex_); // no catch_up misses the wake-up
    stop_ = true;
  }
  published_cv_.notify_all();
  if (thread_.joinable())
    thread_.join();
  if (consumer_) {
    rd_kafka_consumer_close(consumer_.get());
    consumer_.reset();
  }
  std::lock_guard lock(produce_mutex_);
  producer_.reset();
}

void TopicTail::run() {
  bool changed = false;
  auto probed = Clock::now();
  std::vector<int64_t> ends(static_cast<size_t>(partitions_), 0);
  while (!stop_) {
    if (Clock::now() - probed >= probe_interval) {
      probed = Clock::now();
      rd_kafka_resp_err_t err{};
      if (end_offsets(ends, 2 * probe_interval, err))
        contact_ = Clock::now().time_since_epoch().count();
    }
    size_t records = 0;
    rd_kafka_message_t* msg = rd_kafka_consumer_poll(consumer_.get(), clamp_ms(poll_interval));
    while (msg) {
      take(*msg, records);
      rd_kafka_message_destroy(msg);
      if (records >= max_batch || stop_)
        break;
      msg = rd_kafka_consumer_poll(consumer_.get(), 0);
    }
    serve_producer();

    changed = changed || records > 0;
    bool first = false;
    if (!caught_up_once_ && std::all_of(at_end_.begin(), at_end_.end(), [](bool b) { return b; }))
      first = changed = true;
    if (!first && !caught_up_once_)
      continue; // the first on_batch has everything that was there
    if (changed && on_batch_) {
      try {
        on_batch_();
      } catch (const std::exception& e) {
        spdlog::error("{} '{}': the change listener failed: {}", purpose_, topic_, e.what());
      }
    }
    changed = false;
    caught_up_once_ = true;
    {
      std::lock_guard lock(published_mutex_);
      published_ = reached_;
    }
    published_cv_.notify_all();
  }
}

void TopicTail::take(const rd_kafka_message_t& msg, size_t& records) {
  const bool ours = msg.rkt && msg.partition >= 0 && msg.partition < partitions_;
  const auto p = static_cast<size_t>(ours ? msg.partition : 0);
  if (msg.err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
    if (ours) {
      reached_[p] = std::max(reached_[p], msg.offset);
      at_end_[p] = true;
    }
    return;
  }
  if (msg.err) {
    spdlog::warn("{} '{}': consumer: {}", purpose_, topic_, rd_kafka_message_errstr(&msg));
    return;
  }
  if (!ours)
    return;
  ++records;
  reached_[p] = std::max(reached_[p], msg.offset + 1);
  std::string_view key{static_cast<const char*>(msg.key), msg.key ? msg.key_len : 0};
  std::optional<std::string_view> value;
  if (msg.payload)
    value = std::string_view{static_cast<const char*>(msg.payload), msg.len};
  try {
    if (!msg.key)
      throw Malformed("the record has no key");
    on_record_(key, value, msg.partition, msg.offset);
  } catch (const std::exception& e) {
    spdlog::error("{} '{}': skipped the record at partition {} offset {} with key '{}': {}", purpose_,
                  topic_, msg.partition, msg.offset, key, e.what());
  }
}

void TopicTail::serve_producer() {
  std::unique_lock lock(produce_mutex_, std::try_to_lock);
  if (!lock || !producer_)
    return; // a writer is polling it right now
  try {
    producer_->poll(0ms);
  } catch (const std::exception& e) {
    spdlog::error("{} '{}': producer: {}", purpose_, topic_, e.what());
  }
}

// Runs inside Producer::poll/flush, with produce_mutex_ held.
void TopicTail::delivered(uint64_t token, size_t ok, size_t failed, const std::string& error) {
  if (token == sync_token_) {
    sync_done_ = true;
    sync_failed_ = failed;
    sync_error_ = error;
    return;
  }
  auto it = async_keys_.find(token);
  if (failed)
    spdlog::warn("{} '{}': {} of {} records (first key '{}') not written: {}", purpose_, topic_, failed,
                 ok + failed, it == async_keys_.end() ? "?" : it->second, error);
  if (it != async_keys_.end())
    async_keys_.erase(it);
}

weir::Batch TopicTail::batch_of(const std::vector<OutRecord>& records) const {
  weir::Batch batch;
  for (const auto& r : records) // partition -1: by key, Java's partitioner, as Kafka Connect
    batch.append(topic_, -1, -1, -1, std::string_view{r.key},
                 r.value ? std::optional<std::string_view>{*r.value} : std::nullopt);
  return batch;
}

void TopicTail::produce_sync(const std::vector<OutRecord>& records) {
  const std::string what = purpose_ + " '" + topic_ + "': writing '" + records.front().key + "'";
  std::lock_guard lock(produce_mutex_);
  if (!producer_)
    throw kafka::KafkaError(what + ": the log is stopped", RD_KAFKA_RESP_ERR__DESTROY);
  sync_token_ = ++next_token_;
  sync_done_ = false;
  producer_->produce(batch_of(records), sync_token_);
  const auto deadline = Clock::now() + sync_timeout_;
  while (!sync_done_ && Clock::now() < deadline)
    producer_->poll(50ms);
  const uint64_t token = sync_token_;
  sync_token_ = 0; // a late report of this write is only logged now
  if (!sync_done_) {
    async_keys_.emplace(token, records.front().key);
    throw kafka::KafkaError(what + ": no acknowledgement from the broker", RD_KAFKA_RESP_ERR__TIMED_OUT);
  }
  if (sync_failed_)
    throw kafka::KafkaError(what + ": " + sync_error_, RD_KAFKA_RESP_ERR__FAIL);
}

void TopicTail::produce_async(const std::vector<OutRecord>& records) {
  std::lock_guard lock(produce_mutex_);
  if (!producer_)
    throw kafka::KafkaError(purpose_ + " '" + topic_ + "': the log is stopped", RD_KAFKA_RESP_ERR__DESTROY);
  const uint64_t token = ++next_token_;
  async_keys_.emplace(token, records.front().key);
  producer_->produce(batch_of(records), token);
  producer_->poll(0ms);
}

void TopicTail::flush(std::chrono::milliseconds timeout) {
  std::lock_guard lock(produce_mutex_);
  if (producer_ && !producer_->flush(timeout))
    spdlog::warn("{} '{}': {} records still unacknowledged after {} ms", purpose_, topic_,
                 producer_->in_flight(), timeout.count());
}

bool TopicTail::end_offsets(std::vector<int64_t>& ends, std::chrono::milliseconds timeout,
                            rd_kafka_resp_err_t& err) {
  auto* list = rd_kafka_topic_partition_list_new(partitions_);
  for (int32_t p = 0; p < partitions_; ++p)
    rd_kafka_topic_partition_list_add(list, topic_.c_str(), p)->offset = RD_KAFKA_OFFSET_END;
  err = rd_kafka_offsets_for_times(consumer_.get(), list, std::max(1, clamp_ms(timeout)));
  for (int i = 0; !err && i < list->cnt; ++i) {
    if (list->elems[i].err)
      err = list->elems[i].err;
    else if (list->elems[i].partition >= 0 && list->elems[i].partition < partitions_)
      ends[static_cast<size_t>(list->elems[i].partition)] = list->elems[i].offset;
  }
  rd_kafka_topic_partition_list_destroy(list);
  return !err;
}

bool TopicTail::catch_up(std::chrono::milliseconds timeout) {
  if (std::this_thread::get_id() == thread_.get_id())
    throw std::logic_error(purpose_ + " '" + topic_
                           + "': catch_up called on the log's own thread (from on_change) would wait "
                             "for itself");
  if (!thread_.joinable()) {
    spdlog::warn("{} '{}': catch_up before start()", purpose_, topic_);
    return false;
  }
  const auto deadline = Clock::now() + timeout;
  auto remaining = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  };
  // The end of each partition now: everything written before this call is below it.
  // (Not rd_kafka_query_watermark_offsets: librdkafka 2.0 overruns its timeout
  // while the broker is down; offsets_for_times keeps it.)
  std::vector<int64_t> ends(static_cast<size_t>(partitions_), 0);
  for (;;) {
    rd_kafka_resp_err_t err{};
    if (end_offsets(ends, remaining(), err))
      break;
    if (remaining() <= 0ms || stop_) {
      spdlog::warn("{} '{}': catch_up: no end offsets: {}", purpose_, topic_, rd_kafka_err2str(err));
      return false;
    }
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(50ms, remaining()));
  }
  std::unique_lock lock(published_mutex_);
  return published_cv_.wait_until(lock, deadline, [&] {
    if (stop_)
      return true;
    for (size_t p = 0; p < ends.size(); ++p)
      if (published_[p] < ends[p])
        return false;
    return true;
  }) && !stop_;
}

/// What a log has read: its tail, the state the tail's thread builds, and the lock
/// between that thread (the writer) and snapshot() (any reader).
template <class State>
struct TailedState {
  TailedState(const kafka::Properties& props, std::string topic, std::string purpose,
              int32_t partitions, int16_t replication, bool single_partition)
    : tail(props, std::move(topic), std::move(purpose), partitions, replication, single_partition) {}

  State snapshot() const {
    std::lock_guard lock(mutex);
    return state;
  }

  TopicTail tail;
  mutable std::mutex mutex;
  State state;
  simdjson::dom::parser parser; // the log's thread only
};

// ---------------------------------------------------------------------------------
// JSON values

std::string json_string(std::string_view s) {
  std::string out;
  convert::append_json_string(s, out);
  return out;
}

/// Parses a record value that must be a JSON object. Throws Malformed.
simdjson::dom::object parse_object(simdjson::dom::parser& parser, std::string_view value) {
  simdjson::dom::element doc;
  if (auto error = parser.parse(value.data(), value.size()).get(doc))
    throw Malformed(std::string{"not JSON: "} + simdjson::error_message(error));
  simdjson::dom::object object;
  if (doc.get(object))
    throw Malformed("not a JSON object");
  return object;
}

/// A string field; std::nullopt when absent or null. Throws Malformed for another type.
std::optional<std::string> string_field(simdjson::dom::object object, std::string_view name) {
  simdjson::dom::element field;
  if (object.at_key(name).get(field) || field.is_null())
    return std::nullopt;
  std::string_view text;
  if (field.get(text))
    throw Malformed("field '" + std::string{name} + "' is not a string");
  return std::string{text};
}

std::string required_string(simdjson::dom::object object, std::string_view name) {
  auto text = string_field(object, name);
  if (!text)
    throw Malformed("field '" + std::string{name} + "' is missing");
  return *text;
}

bool starts_with(std::string_view s, std::string_view prefix, std::string_view& rest) {
  if (!s.starts_with(prefix))
    return false;
  rest = s.substr(prefix.size());
  return true;
}

/// "NAME-N" (after a task key's prefix): the connector and the task number, which
/// follows the last '-' (names may contain '-'); nullopt when it is not one.
std::optional<std::pair<std::string_view, int>> split_task_key(std::string_view rest) {
  auto dash = rest.rfind('-');
  int task = -1;
  if (dash == std::string_view::npos || dash == 0 || dash + 1 == rest.size()
      || std::from_chars(rest.data() + dash + 1, rest.data() + rest.size(), task).ptr != rest.data() + rest.size()
      || task < 0)
    return std::nullopt;
  return std::pair{rest.substr(0, dash), task};
}

// ---------------------------------------------------------------------------------
// config.storage.topic

constexpr std::string_view connector_prefix = "connector-";
constexpr std::string_view target_state_prefix = "target-state-";
constexpr std::string_view task_prefix = "task-";
constexpr std::string_view commit_prefix = "commit-";

std::string properties_json(const StringMap& config) {
  std::string value = R"({"properties":{)";
  bool first = true;
  for (const auto& [k, v] : config) {
    if (!first)
      value += ',';
    first = false;
    value += json_string(k);
    value += ':';
    value += json_string(v);
  }
  return value + "}}";
}

/// Kafka Connect calls RUNNING "STARTED" in the topic, and writes STOPPED as
/// {"state":"PAUSED","state.v2":"STOPPED"} so that older workers read PAUSED.
std::string wire_state(const std::string& state) {
  if (state == "RUNNING" || state == "STARTED")
    return "STARTED";
  if (state == "PAUSED" || state == "STOPPED")
    return state;
  throw std::invalid_argument("target state '" + state + "': expected RUNNING, PAUSED or STOPPED");
}

std::optional<std::string> target_state_of(std::string_view wire) {
  if (wire == "STARTED" || wire == "RUNNING")
    return "RUNNING";
  if (wire == "PAUSED" || wire == "STOPPED")
    return std::string{wire};
  return std::nullopt;
}

} // namespace

void create_storage_topic(const kafka::Properties& props, std::string_view purpose, const std::string& topic,
                          int32_t partitions, int16_t replication) {
  try {
    kafka::create_topics(props, {{topic, partitions, replication, {{"cleanup.policy", "compact"}}}});
  } catch (const kafka::KafkaError& e) {
    // Most often a replication factor above the broker count (Kafka Connect's default
    // is 3): name the key that sets it.
    auto key = std::string{purpose.substr(0, purpose.rfind("topic"))} + "replication.factor";
    throw kafka::KafkaError(std::string{purpose} + " '" + topic + "' could not be created with replication factor " +
                              std::to_string(replication) + " (" + key + "; -1 takes the broker's default): " +
                              e.what(),
                            e.code());
  }
}

struct ConfigLog::Impl : TailedState<ClusterConfig> {
  Impl(const kafka::Properties& props, std::string topic, int16_t replication)
    : TailedState(props, std::move(topic), "config.storage.topic", 1, replication, true) {}

  /// Task configs read but not committed yet, by connector and task.
  std::map<std::string, std::map<int, StringMap>> pending;

  void apply(std::string_view key, std::optional<std::string_view> value, int64_t offset) {
    std::lock_guard lock(mutex);
    state.version = offset + 1; // even when the record is skipped: nodes still agree
    std::string_view name;
    if (starts_with(key, connector_prefix, name) && !name.empty()) {
      if (!value) {
        state.connectors.erase(std::string{name});
        state.task_configs.erase(std::string{name});
        state.awaiting_task_configs.erase(std::string{name});
        pending.erase(std::string{name});
        return;
      }
      state.connectors.insert_or_assign(std::string{name}, parse_connector(*value));
      state.target_states.try_emplace(std::string{name}, "RUNNING");
      state.awaiting_task_configs.insert(std::string{name});
    } else if (starts_with(key, task_prefix, name)) {
      auto task = split_task_key(name);
      if (!task)
        throw Malformed("not a task key (task-NAME-N)");
      if (value) // Kafka Connect writes no tombstones for task configs
        pending[std::string{task->first}][task->second] = parse_connector(*value);
    } else if (starts_with(key, commit_prefix, name) && !name.empty()) {
      if (value)
        commit(std::string{name}, *value);
    } else if (starts_with(key, target_state_prefix, name) && !name.empty()) {
      if (!value) {
        state.target_states.erase(std::string{name});
        // A connector always has a target state (Kafka Connect's rule).
        if (state.connectors.contains(std::string{name}))
          state.target_states.emplace(std::string{name}, "RUNNING");
        return;
      }
      state.target_states.insert_or_assign(std::string{name}, parse_target_state(*value));
    } else if (key == assignment_key) {
      if (!value) {
        state.assignment.reset();
        return;
      }
      auto next = decode_assignment(*value);
      if (state.assignment && next.generation < state.assignment->generation)
        throw Malformed("generation " + std::to_string(next.generation) + " is older than the "
                        + std::to_string(state.assignment->generation) + " already read");
      state.assignment = std::move(next);
      state.assignment_offset = offset;
    } else if (key.starts_with("tasks-fencing-")
               || key.starts_with("restart-connector-") || key.starts_with("logger-cluster-")
               || key == "session-key") {
      // Kafka Connect's own bookkeeping, which weir does not use.
    } else {
      throw Malformed("unknown key");
    }
  }

  StringMap parse_connector(std::string_view value) {
    auto object = parse_object(parser, value);
    simdjson::dom::object properties;
    if (object["properties"].get(properties))
      throw Malformed("field 'properties' is missing or not an object");
    StringMap config;
    for (auto [k, v] : properties) {
      if (v.is_null())
        continue; // Kafka Connect allows null values; weir has no null config value
      std::string_view text;
      if (v.get(text))
        throw Malformed("property '" + std::string{k} + "' is not a string");
      config.insert_or_assign(std::string{k}, std::string{text});
    }
    return config;
  }

  /// commit-NAME {"tasks":N}: tasks 0..N-1 of the pending configs apply, all or
  /// nothing (Kafka Connect's rule: a commit whose tasks were not all written
  /// leaves the connector's previous configs in place).
  void commit(const std::string& name, std::string_view value) {
    auto object = parse_object(parser, value);
    int64_t tasks = -1;
    if (object["tasks"].get(tasks) || tasks < 0)
      throw Malformed("field 'tasks' is missing or not a count");
    auto& written = pending[name];
    std::vector<StringMap> configs;
    for (int t = 0; t < tasks; ++t) {
      auto it = written.find(t);
      if (it == written.end()) {
        pending.erase(name);
        throw Malformed("commit of " + std::to_string(tasks) + " task(s) without a record for task "
                        + std::to_string(t));
      }
      configs.push_back(std::move(it->second));
    }
    pending.erase(name);
    state.task_configs.insert_or_assign(name, std::move(configs));
    state.awaiting_task_configs.erase(name);
  }

  std::string parse_target_state(std::string_view value) {
    auto object = parse_object(parser, value);
    // "state.v2" (Kafka Connect 3.5+) knows STOPPED; "state" is for older readers.
    auto wire = string_field(object, "state.v2");
    if (!wire)
      wire = string_field(object, "state");
    if (!wire)
      throw Malformed("field 'state' is missing");
    auto state = target_state_of(*wire);
    if (!state)
      throw Malformed("unknown target state '" + *wire + "'");
    return *state;
  }
};

ConfigLog::ConfigLog(kafka::Properties props, std::string topic, int16_t replication)
  : impl_(std::make_unique<Impl>(props, std::move(topic), replication)) {}

ConfigLog::~ConfigLog() { impl_->tail.stop(); }

void ConfigLog::start(std::function<void(const ClusterConfig&)> on_change) {
  impl_->tail.start(
    [this](std::string_view key, std::optional<std::string_view> value, int32_t, int64_t offset) {
      impl_->apply(key, value, offset);
    },
    [this, on_change = std::move(on_change)] {
      if (on_change)
        on_change(snapshot());
    });
}

bool ConfigLog::catch_up(std::chrono::milliseconds timeout) { return impl_->tail.catch_up(timeout); }

ClusterConfig ConfigLog::snapshot() const { return impl_->snapshot(); }

std::chrono::steady_clock::time_point ConfigLog::last_contact() const {
  return impl_->tail.last_contact();
}

void ConfigLog::put_connector(const std::string& name, const StringMap& config) {
  impl_->tail.produce_sync({{std::string{connector_prefix} + name, properties_json(config)}});
}

std::vector<std::pair<std::string, std::string>> task_config_records(const std::string& name,
                                                                     const std::vector<StringMap>& configs) {
  std::vector<std::pair<std::string, std::string>> records;
  for (size_t t = 0; t < configs.size(); ++t)
    records.emplace_back(std::string{task_prefix} + name + "-" + std::to_string(t), properties_json(configs[t]));
  records.emplace_back(std::string{commit_prefix} + name, R"({"tasks":)" + std::to_string(configs.size()) + "}");
  return records;
}

void ConfigLog::put_task_configs(const std::string& name, const std::vector<StringMap>& configs) {
  std::vector<OutRecord> records;
  for (auto& [key, value] : task_config_records(name, configs))
    records.push_back({std::move(key), std::move(value)});
  impl_->tail.produce_sync(records);
}

void ConfigLog::put_target_state(const std::string& name, const std::string& state) {
  auto wire = wire_state(state);
  std::string value = R"({"state":)" + json_string(wire == "STOPPED" ? "PAUSED" : wire)
                      + R"(,"state.v2":)" + json_string(wire) + "}";
  impl_->tail.produce_sync({{std::string{target_state_prefix} + name, std::move(value)}});
}

void ConfigLog::delete_connector(const std::string& name) {
  impl_->tail.produce_sync({{std::string{connector_prefix} + name, std::nullopt},
                            {std::string{target_state_prefix} + name, std::nullopt}});
}

// ---------------------------------------------------------------------------------
// status.storage.topic

namespace {

constexpr std::string_view connector_status_prefix = "status-connector-";
constexpr std::string_view task_status_prefix = "status-task-";

std::string status_value(const StatusRecord& s) {
  std::string value = R"({"state":)" + json_string(s.state) + R"(,"trace":)";
  value += s.trace.empty() ? std::string{"null"} : json_string(s.trace);
  value += R"(,"worker_id":)" + json_string(s.worker_id) + R"(,"generation":)";
  value += std::to_string(s.generation) + "}";
  return value;
}

std::string task_key(const std::string& connector, int task) {
  return std::string{task_status_prefix} + connector + "-" + std::to_string(task);
}

} // namespace

struct StatusLog::Impl : TailedState<ClusterStatus> {
  Impl(const kafka::Properties& props, std::string topic, int32_t partitions, int16_t replication)
    : TailedState(props, std::move(topic), "status.storage.topic", partitions, replication, false) {}

  void apply(std::string_view key, std::optional<std::string_view> value) {
    std::string_view rest;
    if (starts_with(key, connector_status_prefix, rest) && !rest.empty()) {
      auto status = value ? std::optional{parse(*value)} : std::nullopt;
      std::lock_guard lock(mutex);
      if (status)
        state.connectors.insert_or_assign(std::string{rest}, std::move(*status));
      else
        state.connectors.erase(std::string{rest});
    } else if (starts_with(key, task_status_prefix, rest)) {
      auto task = split_task_key(rest);
      if (!task)
        throw Malformed("not a task key (status-task-NAME-N)");
      std::pair<std::string, int> id{std::string{task->first}, task->second};
      auto status = value ? std::optional{parse(*value)} : std::nullopt;
      std::lock_guard lock(mutex);
      if (status) {
        state.task_reports[id].insert_or_assign(status->worker_id, *status);
        state.tasks.insert_or_assign(std::move(id), std::move(*status));
      } else {
        state.tasks.erase(id);
        state.task_reports.erase(id);
      }
    } else if (key.starts_with("status-topic-")) {
      // Kafka Connect's active-topic tracking, which weir does not use.
    } else {
      throw Malformed("unknown key");
    }
  }

  StatusRecord parse(std::string_view value) {
    auto object = parse_object(parser, value);
    StatusRecord s;
    s.state = required_string(object, "state");
    s.trace = string_field(object, "trace").value_or("");
    s.worker_id = required_string(object, "worker_id");
    simdjson::dom::element generation;
    int64_t number = 0;
    if (object["generation"].get(generation) || generation.get(number))
      throw Malformed("field 'generation' is missing or not an integer");
    s.generation = number < 0 ? 0 : static_cast<uint64_t>(number); // Connect's "none" is -1
    return s;
  }
};

StatusLog::StatusLog(kafka::Properties props, std::string topic, int32_t partitions, int16_t replication)
  : impl_(std::make_unique<Impl>(props, std::move(topic), partitions, replication)) {}

StatusLog::~StatusLog() { impl_->tail.stop(); }

void StatusLog::start() {
  impl_->tail.start([this](std::string_view key, std::optional<std::string_view> value, int32_t,
                           int64_t) { impl_->apply(key, value); },
                    {});
}

bool StatusLog::catch_up(std::chrono::milliseconds timeout) { return impl_->tail.catch_up(timeout); }

ClusterStatus StatusLog::snapshot() const { return impl_->snapshot(); }

void StatusLog::put_connector(const std::string& name, const StatusRecord& status) {
  impl_->tail.produce_async({{std::string{connector_status_prefix} + name, status_value(status)}});
}

void StatusLog::put_task(const std::string& connector, int task, const StatusRecord& status) {
  impl_->tail.produce_async({{task_key(connector, task), status_value(status)}});
}

void StatusLog::delete_connector(const std::string& name, int tasks) {
  std::vector<OutRecord> records{{std::string{connector_status_prefix} + name, std::nullopt}};
  for (int t = 0; t < tasks; ++t)
    records.push_back({task_key(name, t), std::nullopt});
  impl_->tail.produce_async(records);
}

void StatusLog::flush(std::chrono::milliseconds timeout) { impl_->tail.flush(timeout); }

} // namespace weir::runtime::cluster
