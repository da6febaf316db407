#include "runtime/kafka/consumer.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <utility>

namespace weir::runtime::kafka {

namespace {

using PartitionListPtr =
  std::unique_ptr<rd_kafka_topic_partition_list_t, decltype(&rd_kafka_topic_partition_list_destroy)>;

PartitionListPtr make_list(int capacity) {
  return {rd_kafka_topic_partition_list_new(capacity), &rd_kafka_topic_partition_list_destroy};
}

PartitionListPtr to_list(const std::vector<TopicPartition>& tps) {
  auto list = make_list(static_cast<int>(tps.size()));
  for (const auto& tp : tps)
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition);
  return list;
}

std::vector<TopicPartition> to_vector(const rd_kafka_topic_partition_list_t* list) {
  std::vector<TopicPartition> out;
  if (!list)
    return out;
  out.reserve(static_cast<size_t>(list->cnt));
  for (int i = 0; i < list->cnt; ++i)
    out.push_back({list->elems[i].topic, list->elems[i].partition});
  return out;
}

int clamp_ms(std::chrono::milliseconds timeout) {
  return static_cast<int>(std::clamp<int64_t>(timeout.count(), 0, INT_MAX));
}

bool from_partition(const rd_kafka_message_t* msg, const TopicPartition& tp) {
  return msg->partition == tp.partition && tp.topic == rd_kafka_topic_name(msg->rkt);
}

// Messages fetched ahead of need are rarely many; this is the initial scratch size.
constexpr size_t initial_fetch_capacity = 512;

/// How long close() waits for the consumer to leave its group.
constexpr std::chrono::seconds close_timeout{10};

// While paused, fetching only serves events: few or no messages arrive.
constexpr size_t paused_fetch_chunk = 16;

// Whether a fetched record may carry headers. librdkafka parses them on first access,
// and for a record without any (its serialized headers are a header count of 0) that
// still costs a buffer allocated and freed: ~1,100 instructions a record in 2.0, a
// quarter of weir's consumer thread. In record format v2 the header count follows the
// value, and librdkafka's payload points into the fetched (or decompressed) records,
// so a zero byte after a non-empty value is a count of 0. Records of the older formats
// (v0, v1; Kafka 4 writes neither) have no headers, so for them skipping is right
// whatever that byte is: the next record's, or the byte after the response's last
// one, inside librdkafka's heap buffer. An empty or null value is not in the buffer
// (librdkafka points it elsewhere): ask.
bool may_have_headers(const rd_kafka_message_t* msg) {
  return msg->len == 0 || !msg->payload || static_cast<const char*>(msg->payload)[msg->len] != 0;
}

// "topic-0, topic-3": partitions as Kafka's consumer logs them.
std::string list_partitions(const std::vector<TopicPartition>& partitions) {
  std::string out;
  for (const auto& tp : partitions) {
    if (!out.empty())
      out += ", ";
    out += tp.topic + "-" + std::to_string(tp.partition);
  }
  return out;
}

} // namespace

Consumer::Consumer(const Properties& props, RebalanceListener listener)
  : listener_(std::move(listener)) {
  auto p = props;
  if (!p.contains("bootstrap.servers") && !p.contains("metadata.broker.list"))
    throw KafkaError("kafka property 'bootstrap.servers': required");
  if (get_or(p, "group.id", "").empty())
    throw KafkaError("kafka property 'group.id': required for a consumer");
  for (const char* key : {"enable.auto.commit", "enable.auto.offset.store"}) {
    if (get_or(p, key, "false") != "false")
      throw KafkaError(std::string("kafka property '") + key
                       + "': must be false, weir commits the offsets it has processed");
    p[key] = "false";
  }
  p.try_emplace("partition.assignment.strategy", "cooperative-sticky");
  p.try_emplace("auto.offset.reset", "earliest");
  // librdkafka prefetches up to 100,000 messages by default, each holding its share
  // of the fetch buffers: the largest part of a sink task's memory. A fifth of that
  // keeps the same pace, because watch_prefetch() restarts fetching as soon as half
  // of it is consumed (bench/results/profile.md has the figures).
  p.try_emplace("queued.min.messages", "20000");
  // A fetch response holds up to this much per partition (librdkafka: 1 MB), and
  // librdkafka keeps each response's buffer until the last of its messages is
  // freed, so the resident memory follows it: half of the default lowers a sink
  // task's peak RSS at the same pace (bench/results/profile.md).
  p.try_emplace("max.partition.fetch.bytes", "524288");
  // A fetch request asks for every partition the consumer has on that broker, and its
  // response is bounded by fetch.max.bytes (librdkafka: 50 MB), not by the prefetch
  // limits above, which only decide whether to send the next one. Eight partitions'
  // worth keeps a task with few partitions as it was and bounds one with many: at
  // 1,000 partitions over 8 tasks a sink's peak RSS went from ~5x to ~1.4x that of the
  // same records in 8 partitions (bench/results/partitions.md).
  p.try_emplace("fetch.max.bytes",
                std::to_string(8 * positive_integer("max.partition.fetch.bytes", p.at("max.partition.fetch.bytes"))));
  // A member learns that a rebalance has begun (another task joined) from its next
  // heartbeat, and the cooperative protocol takes a round of them per member that
  // joins: at librdkafka's 3 s, a connector starting 8 tasks waits seconds for its
  // group to settle. A heartbeat is one small request to the coordinator.
  p.try_emplace("heartbeat.interval.ms", "500");

  auto conf = make_conf(p); // validates every property, naming a bad one
  static_member_ = !get_or(p, "group.instance.id", "").empty();
  auto reset = get_or(p, "auto.offset.reset", "");
  reset_to_ = reset == "earliest" || reset == "smallest" || reset == "beginning" ? RD_KAFKA_OFFSET_BEGINNING
              : reset == "latest" || reset == "largest" || reset == "end"   ? RD_KAFKA_OFFSET_END
                                                                             : RD_KAFKA_OFFSET_INVALID;
  prefetch_ = PrefetchWatch{std::stoul(p.at("queued.min.messages")),
                            std::stoul(get_or(p, "queued.max.messages.kbytes", "65536")) * 1024};
  rd_kafka_conf_set_opaque(conf.get(), this);
  rd_kafka_conf_set_rebalance_cb(conf.get(), &Consumer::on_rebalance);
  rd_kafka_conf_set_offset_commit_cb(conf.get(), &Consumer::on_commit);
  rd_kafka_conf_set_error_cb(conf.get(), &Consumer::on_error);
  rk_ = make_handle(RD_KAFKA_CONSUMER, std::move(conf));
  // One queue for messages, rebalances and commit results, served by poll().
  rd_kafka_poll_set_consumer(rk_.get());
  queue_ = rd_kafka_queue_get_consumer(rk_.get());
  fetched_.resize(initial_fetch_capacity);
  pending_.reserve(initial_fetch_capacity);
}

Consumer::~Consumer() {
  try {
    close();
  } catch (const std::exception& e) {
    spdlog::warn("kafka consumer: close failed: {}", e.what());
  }
}

void Consumer::subscribe(const std::vector<std::string>& topics) {
  if (closed_)
    throw KafkaError("kafka consumer: subscribe after close");
  auto list = make_list(static_cast<int>(topics.size()));
  for (const auto& t : topics)
    rd_kafka_topic_partition_list_add(list.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
  if (auto err = rd_kafka_subscribe(rk_.get(), list.get()))
    throw KafkaError(describe("kafka consumer: subscribe failed", err), err);
  subscribed_ = true;
  // librdkafka 2.0 creates its handle of a subscribed topic only when it is first
  // assigned, and learns the partitions' leaders after that; a handle made now
  // learns them from the metadata the group join waits for, before any assignment
  // (see choose_start).
  for (const auto& t : topics)
    if (!t.starts_with('^') && !has_topic_handle(t.c_str()))
      if (rd_kafka_topic_t* handle = rd_kafka_topic_new(rk_.get(), t.c_str(), nullptr))
        topic_handles_.push_back(handle);
}

bool Consumer::has_topic_handle(const char* topic) const {
  return std::any_of(topic_handles_.begin(), topic_handles_.end(), [&](rd_kafka_topic_t* t) {
    return std::strcmp(rd_kafka_topic_name(t), topic) == 0;
  });
}

size_t Consumer::poll(weir::Batch& out, size_t max_records, size_t max_bytes,
                      std::chrono::milliseconds timeout) {
  if (closed_)
    throw KafkaError("kafka consumer: poll after close");
  if (paused_) {
    // Serve rebalances and commit results; a message that slipped in before the
    // pause took effect waits with the other carried-over ones.
    size_t got = fetch(timeout, paused_fetch_chunk);
    for (size_t i = 0; i < got; ++i)
      pending_.push_back(fetched_[i]);
    brokers_.probe(rk_.get());
    rethrow_callback_error();
    return 0;
  }

  const size_t start_bytes = out.byte_size();
  const size_t start_records = out.size();
  size_t n = 0;
  while (n < max_records && pending_head_ < pending_.size()
         && take(out, pending_[pending_head_], max_bytes, start_bytes)) {
    rd_kafka_message_destroy(pending_[pending_head_++]);
    ++n;
  }
  if (pending_head_ == pending_.size()) {
    pending_.clear();
    pending_head_ = 0;
  }

  // Even with no room left, call into librdkafka so rebalances are served; then at
  // most one message joins the carried-over ones.
  bool full = n == max_records || carried_over() > 0;
  size_t want = full ? 1 : max_records - n;
  size_t got = fetch(n > 0 || full ? std::chrono::milliseconds{0} : timeout, want);
  for (size_t i = 0; i < got; ++i) {
    auto* msg = fetched_[i];
    if (!full && take(out, msg, max_bytes, start_bytes)) {
      rd_kafka_message_destroy(msg);
      ++n;
    } else {
      full = true;
      pending_.push_back(msg);
    }
  }
  watch_prefetch(out.size() - start_records, out.byte_size() - start_bytes, got);
  brokers_.probe(rk_.get());
  rethrow_callback_error(); // the records stay in `out`: nothing is lost
  return n;
}

// librdkafka (before 2.1, whose fetch.queue.backoff.ms fixes it) stops fetching once
// its local queue holds queued.min.messages or queued.max.messages.kbytes, and its
// broker thread looks again only when something wakes it, at the latest after
// 1 s. A consumer slower than the network (any real pipeline) drains the queue
// in a fraction of that second and then waits for the rest: the pipeline runs in
// bursts, the queue full, then empty, once per second. So once the queue
// was full and is half drained, a ListOffsets request to the partitions' leaders
// wakes their broker threads, which then fetch again.
void Consumer::watch_prefetch(size_t taken, size_t taken_bytes, size_t dequeued) {
  if (prefetch_.after_poll(taken, taken_bytes, dequeued, static_cast<size_t>(rd_kafka_queue_length(queue_))))
    wake_fetchers();
}

double PrefetchWatch::fill(size_t messages) const noexcept {
  auto queued = static_cast<double>(messages);
  return std::max(queued / static_cast<double>(max_messages_),
                  queued * mean_message_bytes_ / static_cast<double>(max_bytes_));
}

bool PrefetchWatch::after_poll(size_t taken, size_t taken_bytes, size_t dequeued, size_t queued) {
  if (taken > 0) {
    double mean = static_cast<double>(taken_bytes) / static_cast<double>(taken);
    mean_message_bytes_ = mean_message_bytes_ == 0 ? mean : 0.9 * mean_message_bytes_ + 0.1 * mean;
  }
  // Judged after the poll, a poll of more than a tenth of the queue
  // (max.poll.records=3000 against 20,000) never saw it full, never woke the
  // fetchers, and the sink waited up to a second for every refill.
  if (fill(queued + dequeued) >= 0.9)
    full_ = true;
  if (!full_ || fill(queued) > 0.5)
    return false;
  full_ = false;
  ++wakes_;
  return true;
}

void Consumer::wake_fetchers() {
  if (assignment_.empty())
    return;
  auto list = to_list(assignment_);
  for (int i = 0; i < list->cnt; ++i)
    list->elems[i].offset = RD_KAFKA_OFFSET_END; // the latest offset: no timestamp lookup
  // One request per leader broker, answered in about a round trip; the answer is
  // not needed, the request is what wakes the broker thread.
  if (auto err = rd_kafka_offsets_for_times(rk_.get(), list.get(), 1000))
    spdlog::debug("kafka consumer {}: waking the fetchers: {}", rd_kafka_name(rk_.get()),
                  rd_kafka_err2str(err));
}

size_t Consumer::fetch(std::chrono::milliseconds timeout, size_t max) {
  if (max > fetched_.size())
    fetched_.resize(max);
  revoked_during_fetch_ = false;
  ssize_t got = 0;
  if (timeout.count() > 0) {
    // consume_batch_queue waits until the array is full or the timeout expires:
    // block for the first message only, then take what is already there.
    // Two clock reads per waiting poll (never per record): the wait is idle time.
    auto waiting_since = std::chrono::steady_clock::now();
    got = rd_kafka_consume_batch_queue(queue_, clamp_ms(timeout), fetched_.data(), 1);
    poll_wait_ns_ += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - waiting_since).count());
    if (got == 1 && max > 1) {
      auto more = take_queued(fetched_.data() + 1, max - 1);
      got = more < 0 ? got : got + more;
    }
  } else {
    got = take_queued(fetched_.data(), max);
  }
  if (got < 0)
    throw KafkaError(describe("kafka consumer: consume failed", rd_kafka_last_error()));

  // Keep data messages in place; errors are handled and dropped here. Messages of
  // partitions revoked in this call's rebalance belong to their new owner now.
  size_t kept = 0;
  for (ssize_t i = 0; i < got; ++i) {
    auto* msg = fetched_[i];
    try {
      if (handle_error(msg))
        continue;
    } catch (...) {
      for (ssize_t j = i + 1; j < got; ++j)
        rd_kafka_message_destroy(fetched_[j]);
      for (size_t j = 0; j < kept; ++j)
        pending_.push_back(fetched_[j]);
      throw;
    }
    if (revoked_during_fetch_
        && std::none_of(assignment_.begin(), assignment_.end(),
                        [&](const TopicPartition& tp) { return from_partition(msg, tp); })) {
      rd_kafka_message_destroy(msg);
      continue;
    }
    fetched_[kept++] = msg;
  }
  return kept;
}

// When a cooperative rebalance starts, librdkafka's own thread pauses the member's
// partitions and notes, for each, the offset after the last message the application
// took; the partitions it keeps resume there. Before 2.1.0 its batch call counted a
// message as taken as it dequeued it, and a pause arriving later in the same call
// then discarded the messages already dequeued (outdated by the pause): a kept
// partition went on after a gap, records no task ever saw (librdkafka PR 4208,
// "skip messages after a resume"). One message per call leaves no dequeued message
// for a pause to discard. Its cost is not measurable against the batch call
// (bench/bare_consumer --one-per-call, bench/results/latest.md of 2026-12-04).
ssize_t Consumer::take_queued(rd_kafka_message_t** into, size_t max) {
  static const bool batch_skips_on_pause = rd_kafka_version() < 0x020100ff;
  if (!batch_skips_on_pause)
    return rd_kafka_consume_batch_queue(queue_, 0, into, max);
  size_t got = 0;
  while (got < max) {
    auto one = rd_kafka_consume_batch_queue(queue_, 0, into + got, 1);
    if (one < 0)
      return got > 0 ? static_cast<ssize_t>(got) : one;
    if (one == 0)
      break;
    ++got;
  }
  return static_cast<ssize_t>(got);
}

bool Consumer::handle_error(rd_kafka_message_t* msg) {
  if (!msg->err)
    return false;
  auto err = msg->err;
  if (err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
    rd_kafka_message_destroy(msg);
    return true;
  }
  std::string text = rd_kafka_message_errstr(msg);
  std::string where = msg->rkt ? std::string(rd_kafka_topic_name(msg->rkt)) + "["
                                   + std::to_string(msg->partition) + "]"
                               : std::string("-");
  // A subscribed topic that does not exist: the task's status says so.
  if (msg->rkt && (err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC))
    missing_topics_.insert(rd_kafka_topic_name(msg->rkt));
  rd_kafka_message_destroy(msg);
  if (err == RD_KAFKA_RESP_ERR__FATAL)
    throw_if_fatal();
  ++errors_;
  spdlog::warn("kafka consumer {}: {} ({})", rd_kafka_name(rk_.get()), text, where);
  return true;
}

void Consumer::rethrow_callback_error() {
  if (callback_error_)
    std::rethrow_exception(std::exchange(callback_error_, nullptr));
}

void Consumer::throw_if_fatal() {
  char reason[512];
  if (auto err = rd_kafka_fatal_error(rk_.get(), reason, sizeof reason))
    throw KafkaError(std::string("kafka consumer: fatal error: ") + reason, err);
}

bool Consumer::take(weir::Batch& out, rd_kafka_message_t* msg, size_t max_bytes,
                    size_t start_bytes) {
  rd_kafka_headers_t* headers = nullptr;
  if (may_have_headers(msg) && rd_kafka_message_headers(msg, &headers) != RD_KAFKA_RESP_ERR_NO_ERROR)
    headers = nullptr;
  size_t header_count = headers ? rd_kafka_header_cnt(headers) : 0;

  // Exactly what Batch::byte_size() will grow by.
  size_t growth = sizeof(weir::RecordRef) + msg->key_len + msg->len
                  + header_count * sizeof(weir::HeaderRef);
  const char* name;
  const void* value;
  size_t size;
  for (size_t i = 0; i < header_count; ++i) {
    rd_kafka_header_get_all(headers, i, &name, &value, &size);
    growth += std::strlen(name) + (value ? size : 0);
  }
  if (!out.empty() && out.byte_size() - start_bytes + growth > max_bytes)
    return false;

  auto bytes = [](const void* p, size_t len) -> std::optional<std::string_view> {
    if (!p)
      return std::nullopt;
    return std::string_view(static_cast<const char*>(p), len);
  };
  rd_kafka_timestamp_type_t ts_type;
  out.append(rd_kafka_topic_name(msg->rkt), msg->partition, msg->offset,
             rd_kafka_message_timestamp(msg, &ts_type), bytes(msg->key, msg->key_len),
             bytes(msg->payload, msg->len));
  for (size_t i = 0; i < header_count; ++i) {
    rd_kafka_header_get_all(headers, i, &name, &value, &size);
    out.add_header(name, bytes(value, size));
  }
  return true;
}

void Consumer::pause() {
  paused_ = true;
  if (assignment_.empty())
    return;
  auto list = to_list(assignment_);
  if (auto err = rd_kafka_pause_partitions(rk_.get(), list.get()))
    throw KafkaError(describe("kafka consumer: pause failed", err), err);
}

void Consumer::resume() {
  paused_ = false;
  if (assignment_.empty())
    return;
  auto list = to_list(assignment_);
  if (auto err = rd_kafka_resume_partitions(rk_.get(), list.get()))
    throw KafkaError(describe("kafka consumer: resume failed", err), err);
}

void Consumer::commit(const std::vector<TopicPartitionOffset>& offsets, bool async) {
  if (offsets.empty())
    return;
  auto list = make_list(static_cast<int>(offsets.size()));
  for (const auto& o : offsets)
    rd_kafka_topic_partition_list_add(list.get(), o.topic.c_str(), o.partition)->offset = o.offset;
  auto sent = std::chrono::steady_clock::now();
  auto err = rd_kafka_commit(rk_.get(), list.get(), async ? 1 : 0);
  if (async && !err)
    commits_in_flight_.push_back(sent); // answered through on_commit, in order
  else if (!async)
    commit_answered(sent);
  std::string failed;
  for (int i = 0; i < list->cnt; ++i)
    if (list->elems[i].err)
      failed += " " + std::string(list->elems[i].topic) + "[" + std::to_string(list->elems[i].partition)
                + "]: " + rd_kafka_err2str(list->elems[i].err);
  if (err || !failed.empty())
    throw KafkaError(describe("kafka consumer: commit failed", err) + failed,
                     err ? err : RD_KAFKA_RESP_ERR_UNKNOWN);
}

std::vector<PartitionLag> Consumer::lag() const {
  std::vector<PartitionLag> out;
  if (assignment_.empty() || closed_)
    return out;
  auto list = to_list(assignment_);
  rd_kafka_position(rk_.get(), list.get());
  out.reserve(assignment_.size());
  std::vector<size_t> unknown; // partitions not fetched from, or not taken from, yet
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    // librdkafka's position is past the carried-over records: the oldest of those
    // is the real position.
    int64_t pos = e.offset;
    for (size_t j = pending_head_; j < pending_.size(); ++j)
      if (from_partition(pending_[j], {e.topic, e.partition})) {
        pos = pending_[j]->offset;
        break;
      }
    int64_t lo = -1, hi = -1;
    rd_kafka_get_watermark_offsets(rk_.get(), e.topic, e.partition, &lo, &hi);
    if (paused_)
      hi = std::max(hi, end_offset({e.topic, e.partition}));
    int64_t lag = -1;
    if (hi >= 0 && pos >= 0)
      lag = std::max<int64_t>(0, hi - pos);
    else if (hi >= 0 && lo == hi)
      lag = 0; // empty partition
    else
      unknown.push_back(out.size());
    out.push_back({e.topic, e.partition, lag});
  }
  if (!unknown.empty())
    ask_lag(out, unknown);
  return out;
}

// librdkafka learns a partition's end from its fetch responses, and a paused consumer
// fetches nothing: its cached end stays where the pause began while records keep
// coming (a stalled sink showed a lag of 10,524 when it was ~280,000). So while paused
// the ends are asked of the broker, at most once a second.
int64_t Consumer::end_offset(const TopicPartition& tp) const {
  auto now = std::chrono::steady_clock::now();
  if (now - ends_at_ >= std::chrono::seconds{1}) {
    ends_at_ = now;
    ends_.clear();
    auto list = to_list(assignment_);
    for (int i = 0; i < list->cnt; ++i)
      list->elems[i].offset = RD_KAFKA_OFFSET_END;
    if (!rd_kafka_offsets_for_times(rk_.get(), list.get(), 500))
      for (int i = 0; i < list->cnt; ++i)
        if (!list->elems[i].err)
          ends_.push_back({list->elems[i].topic, list->elems[i].partition, list->elems[i].offset});
  }
  for (const auto& e : ends_)
    if (same_partition(e, tp))
      return e.offset;
  return -1;
}

// A partition the consumer has not fetched from has no watermark in librdkafka, and
// one it has not taken a record from has no position: a paused consumer may keep
// some that way for long. Their lag is asked of the broker instead: the latest
// offset, against the committed offset (or the start, with auto.offset.reset=
// earliest). Asked at most once a second (lag() is read five times a second), and
// left unknown (-1) when the broker does not answer in time.
void Consumer::ask_lag(std::vector<PartitionLag>& lags, const std::vector<size_t>& unknown) const {
  auto now = std::chrono::steady_clock::now();
  if (now - asked_at_ < std::chrono::seconds{1}) {
    for (size_t i : unknown)
      for (const auto& a : asked_)
        if (same_partition(a, lags[i]))
          lags[i].lag = a.lag;
    return;
  }
  asked_at_ = now;
  constexpr int timeout_ms = 500;
  auto ask = [&](int64_t at_or_committed) {
    auto list = make_list(static_cast<int>(unknown.size()));
    for (size_t i : unknown)
      rd_kafka_topic_partition_list_add(list.get(), lags[i].topic.c_str(), lags[i].partition)->offset =
          at_or_committed;
    auto err = at_or_committed == RD_KAFKA_OFFSET_INVALID
                   ? rd_kafka_committed(rk_.get(), list.get(), timeout_ms)
                   : rd_kafka_offsets_for_times(rk_.get(), list.get(), timeout_ms);
    std::vector<int64_t> offsets(unknown.size(), -1);
    for (int i = 0; !err && i < list->cnt; ++i)
      if (!list->elems[i].err)
        offsets[static_cast<size_t>(i)] = list->elems[i].offset;
    return offsets;
  };
  auto end = ask(RD_KAFKA_OFFSET_END);
  auto from = ask(RD_KAFKA_OFFSET_INVALID);
  std::vector<int64_t> start;
  for (size_t i = 0; i < unknown.size(); ++i) {
    if (from[i] < 0 && reset_to_ == RD_KAFKA_OFFSET_BEGINNING) {
      if (start.empty())
        start = ask(RD_KAFKA_OFFSET_BEGINNING);
      from[i] = start[i];
    } else if (from[i] < 0) {
      from[i] = end[i]; // auto.offset.reset=latest: nothing to catch up on
    }
    if (end[i] >= 0 && from[i] >= 0)
      lags[unknown[i]].lag = std::max<int64_t>(0, end[i] - from[i]);
  }
  asked_.clear();
  for (size_t i : unknown)
    asked_.push_back(lags[i]);
}

std::string Consumer::rebalance_protocol() const {
  const char* p = closed_ ? nullptr : rd_kafka_rebalance_protocol(rk_.get());
  return p ? p : "NONE";
}

void Consumer::close() {
  if (closed_)
    return;
  closed_ = true;
  // Messages hold references into the client: release them before it goes.
  for (size_t i = pending_head_; i < pending_.size(); ++i)
    rd_kafka_message_destroy(pending_[i]);
  pending_.clear();
  pending_head_ = 0;
  bool closed = false;
  if (rd_kafka_fatal_error(rk_.get(), nullptr, 0) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    // Fenced (a newer member took its group.instance.id), say: it is out of its
    // group already, and waiting for librdkafka to say it left would hold up for
    // close_timeout whoever waits for this task to end (a drain, while its
    // successor runs elsewhere).
    spdlog::info("kafka consumer {}: closed after a fatal error, out of its group already",
                 rd_kafka_name(rk_.get()));
  } else {
    auto deadline = std::chrono::steady_clock::now() + close_timeout;
    if (static_member_ && subscribed_)
      leave_group(deadline);
    // rd_kafka_consumer_close() blocks up to session.timeout.ms (45 s) when the group
    // is rebalancing, which is the rule at shutdown: every task of a connector leaves
    // at once. Close in librdkafka's background, serve the queue (revocations go
    // through on_rebalance) and give up after close_timeout: the coordinator then
    // expires the member by itself, and the offsets were committed before.
    if (rd_kafka_error_t* error = rd_kafka_consumer_close_queue(rk_.get(), queue_)) {
      spdlog::warn("kafka consumer: leaving the group failed: {}", rd_kafka_error_string(error));
      rd_kafka_error_destroy(error);
    }
    while (!rd_kafka_consumer_closed(rk_.get()) && std::chrono::steady_clock::now() < deadline)
      if (rd_kafka_message_t* msg = rd_kafka_consume_queue(queue_, 100))
        rd_kafka_message_destroy(msg);
    closed = rd_kafka_consumer_closed(rk_.get());
    if (!closed)
      spdlog::warn("kafka consumer {}: did not leave the group within {} s; the group "
                   "coordinator will expire it",
                   rd_kafka_name(rk_.get()),
                   std::chrono::duration_cast<std::chrono::seconds>(close_timeout).count());
  }
  rd_kafka_queue_destroy(queue_);
  queue_ = nullptr;
  for (rd_kafka_topic_t* handle : topic_handles_)
    rd_kafka_topic_destroy(handle);
  topic_handles_.clear();
  if (subscribed_ && !assigned_once_ && rd_kafka_version() < 0x020300ff) {
    // librdkafka before 2.3.0 asserts when it destroys a cooperative-sticky consumer
    // whose first rebalance never completed (librdkafka issue 4312): the process
    // would abort. The handle, out of its group now, is left to the process's exit.
    spdlog::warn("kafka consumer {}: closed before its first assignment; its handle is kept "
                 "until exit (librdkafka {} would abort destroying it, fixed in 2.3.0)",
                 rd_kafka_name(rk_.get()), rd_kafka_version_str());
    (void)rk_.release();
  } else if (closed)
    rk_.reset();
  else
    rd_kafka_destroy_flags(rk_.release(), RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  assignment_.clear();
  rethrow_callback_error();
}

// A static member's close does not leave its group (KIP-345): its partitions wait
// for the same group.instance.id to come back, or for session.timeout.ms. That is
// what a crash should cost (a task restarted elsewhere takes the member's place at
// once), but a task stopped on purpose must give its partitions up now.
// Unsubscribing leaves the group (librdkafka clears the member id once it sent the
// LeaveGroup), after the revocation went through on_rebalance (offsets committed).
void Consumer::leave_group(std::chrono::steady_clock::time_point deadline) {
  if (auto err = rd_kafka_unsubscribe(rk_.get())) {
    spdlog::warn("kafka consumer {}: unsubscribing failed: {}", rd_kafka_name(rk_.get()),
                 rd_kafka_err2str(err));
    return;
  }
  auto member_id = [&] {
    char* id = rd_kafka_memberid(rk_.get());
    std::string copy = id ? id : "";
    rd_kafka_mem_free(rk_.get(), id);
    return copy;
  };
  while (!member_id().empty() && std::chrono::steady_clock::now() < deadline)
    if (rd_kafka_message_t* msg = rd_kafka_consume_queue(queue_, 100))
      rd_kafka_message_destroy(msg);
}

void Consumer::on_rebalance(rd_kafka_t*, rd_kafka_resp_err_t err,
                            rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  try {
    static_cast<Consumer*>(opaque)->rebalance(err, partitions);
  } catch (...) {
    // Never unwind through librdkafka's C code: rethrown once it has returned.
    auto* self = static_cast<Consumer*>(opaque);
    if (!self->callback_error_)
      self->callback_error_ = std::current_exception();
  }
}

void Consumer::rebalance(rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* partitions) {
  auto* rk = rk_.get();
  assigned_once_ = assigned_once_ || err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS;
  const char* protocol = rd_kafka_rebalance_protocol(rk);
  const bool cooperative = protocol && std::strcmp(protocol, "COOPERATIVE") == 0;
  // An assignment call that fails leaves librdkafka's state as it was; the next
  // rebalance corrects it. Log and count, as for other non-fatal errors.
  auto report_err = [this](const char* what, rd_kafka_resp_err_t e) {
    if (!e)
      return;
    ++errors_;
    spdlog::error("kafka consumer {}: {} failed: {}", rd_kafka_name(rk_.get()), what,
                  rd_kafka_err2str(e));
  };
  auto report = [&](const char* what, rd_kafka_error_t* e) {
    if (!e)
      return;
    report_err(what, rd_kafka_error_code(e));
    rd_kafka_error_destroy(e);
  };
  auto listed = to_vector(partitions);

  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    // As Kafka's consumer does ("Adding newly assigned partitions: ...").
    if (!listed.empty())
      spdlog::info("kafka consumer {}: adding newly assigned partitions: {}", rd_kafka_name(rk),
                   list_partitions(listed));
    for (const auto& tp : listed)
      missing_topics_.erase(tp.topic); // it exists now
    choose_start(partitions);
    if (cooperative) {
      report("incremental assign", rd_kafka_incremental_assign(rk, partitions));
      assignment_.insert(assignment_.end(), listed.begin(), listed.end());
    } else {
      report_err("assign", rd_kafka_assign(rk, partitions));
      assignment_ = listed;
    }
    // librdkafka keeps a partition's pause through its unassignment: one paused while
    // held before (the JoinGate pauses every member until its group settles) would
    // stay paused when it comes back. Only those are resumed: a resume, even of a
    // partition not paused, overtakes librdkafka's query of a logical start offset,
    // which it then asks again only 500 ms later (a sink's first record waited for it).
    auto still_paused = make_list(0);
    for (const auto& tp : listed)
      if (auto it = std::find(left_paused_.begin(), left_paused_.end(), tp); it != left_paused_.end()) {
        rd_kafka_topic_partition_list_add(still_paused.get(), tp.topic.c_str(), tp.partition);
        left_paused_.erase(it);
      }
    if (paused_ && partitions->cnt > 0)
      rd_kafka_pause_partitions(rk, partitions);
    else if (still_paused->cnt > 0)
      rd_kafka_resume_partitions(rk, still_paused.get());
    if (listener_)
      listener_(RebalanceEvent{listed, {}, false});
    return;
  }

  // Revocation (or a rebalance error, which librdkafka wants handled as one).
  if (err != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    spdlog::error("kafka consumer {}: rebalance error: {}", rd_kafka_name(rk), rd_kafka_err2str(err));
    ++errors_;
    listed = assignment_;
  }
  const bool lost = err != RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS || rd_kafka_assignment_lost(rk);
  if (!listed.empty())
    spdlog::info("kafka consumer {}: {} previously assigned partitions: {}", rd_kafka_name(rk),
                 lost ? "lost" : "revoking", list_partitions(listed));
  revoked_during_fetch_ = true;
  drop_pending_of(listed);
  if (paused_)
    for (const auto& tp : listed)
      if (std::find(left_paused_.begin(), left_paused_.end(), tp) == left_paused_.end())
        left_paused_.push_back(tp);
  std::exception_ptr listener_error;
  if (listener_) {
    try {
      listener_(RebalanceEvent{{}, listed, lost});
    } catch (...) {
      listener_error = std::current_exception(); // still give the partitions up
    }
  }
  if (cooperative && err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    report("incremental unassign", rd_kafka_incremental_unassign(rk, partitions));
    std::erase_if(assignment_, [&](const TopicPartition& tp) {
      return std::find(listed.begin(), listed.end(), tp) != listed.end();
    });
  } else {
    report_err("unassign", rd_kafka_assign(rk, nullptr));
    assignment_.clear();
  }
  if (listener_error)
    std::rethrow_exception(listener_error);
}

// Where assigned partitions start, decided here instead of by librdkafka for two kinds:
// - A partition in start_at_ (an exactly-once sink's stored offset) starts there the
//   first time it is assigned, unless the group committed a later offset.
// - A partition without a committed offset starts at the logical auto.offset.reset
//   offset. librdkafka 2.0 would look its committed offset up once assigned and, as
//   there is none, wait 100 ms (rd_kafka_offset_reset: a fixed backoff for any reset
//   caused by an error, "no offset stored" included) before asking for that offset:
//   a new group's first fetch came 100 ms after its assignment. Assigned at the
//   logical offset, it starts at once, provided librdkafka knows its leader by then
//   (else it waits 500 ms): so only partitions of topics subscribed by name, whose
//   handles subscribe() made.
// Every other partition, and every one when the lookup fails, is left to librdkafka
// (its committed offset, or the reset).
void Consumer::choose_start(rd_kafka_topic_partition_list_t* assigned) {
  if ((reset_to_ == RD_KAFKA_OFFSET_INVALID && start_at_.empty()) || assigned->cnt == 0)
    return;
  PartitionListPtr committed{rd_kafka_topic_partition_list_copy(assigned),
                             &rd_kafka_topic_partition_list_destroy};
  bool known = rd_kafka_committed(rk_.get(), committed.get(), 2000) == RD_KAFKA_RESP_ERR_NO_ERROR;
  for (int i = 0; i < assigned->cnt; ++i) {
    auto& a = assigned->elems[i];
    if (a.offset != RD_KAFKA_OFFSET_INVALID)
      continue;
    bool none_committed = known && !committed->elems[i].err
                          && committed->elems[i].offset == RD_KAFKA_OFFSET_INVALID;
    auto stored = std::find_if(start_at_.begin(), start_at_.end(),
                               [&](const auto& s) { return same_partition(s, a); });
    if (stored != start_at_.end()) {
      // RD_KAFKA_OFFSET_INVALID (nothing committed) is below any stored offset.
      if (!known || committed->elems[i].err || committed->elems[i].offset < stored->offset)
        a.offset = stored->offset;
      start_at_.erase(stored);
    } else if (none_committed && reset_to_ != RD_KAFKA_OFFSET_INVALID && has_topic_handle(a.topic)) {
      a.offset = reset_to_;
    }
  }
}

void Consumer::drop_pending_of(const std::vector<TopicPartition>& revoked) {
  auto first = pending_.begin() + static_cast<std::ptrdiff_t>(pending_head_);
  auto keep = std::stable_partition(first, pending_.end(), [&](rd_kafka_message_t* msg) {
    return std::none_of(revoked.begin(), revoked.end(),
                        [&](const TopicPartition& tp) { return from_partition(msg, tp); });
  });
  for (auto it = keep; it != pending_.end(); ++it)
    rd_kafka_message_destroy(*it);
  pending_.erase(keep, pending_.end());
}

// Client-wide errors, served by poll() on the owner's thread. librdkafka logs the
// connection failures itself; without this callback it also logged these as errors.
void Consumer::on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  if (static_cast<Consumer*>(opaque)->brokers_.on_error(err))
    spdlog::debug("kafka consumer {}: {}", rd_kafka_name(rk), reason);
  else
    spdlog::error("kafka consumer {}: {}", rd_kafka_name(rk), reason);
}

void Consumer::commit_answered(std::chrono::steady_clock::time_point sent) {
  ++commits_done_;
  commit_ns_ += static_cast<uint64_t>(
    std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - sent).count());
}

void Consumer::on_commit(rd_kafka_t*, rd_kafka_resp_err_t err,
                         rd_kafka_topic_partition_list_t* offsets, void* opaque) {
  auto* self = static_cast<Consumer*>(opaque);
  if (!self->commits_in_flight_.empty()) {
    self->commit_answered(self->commits_in_flight_.front());
    self->commits_in_flight_.pop_front();
  }
  if (err == RD_KAFKA_RESP_ERR__NO_OFFSET)
    return;
  if (!err)
    self->brokers_.answered(); // the coordinator answered
  bool failed = err != RD_KAFKA_RESP_ERR_NO_ERROR;
  for (int i = 0; offsets && i < offsets->cnt; ++i)
    failed = failed || offsets->elems[i].err;
  if (!failed)
    return;
  for (int i = 0; !err && offsets && i < offsets->cnt; ++i)
    err = offsets->elems[i].err;
  // Kafka fences commits of a stale generation while the group rebalances: that is
  // the safety net working (the next owner re-reads), not a fault worth a warning.
  bool fenced = err == RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION
                || err == RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS
                || err == RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID;
  if (fenced) {
    spdlog::debug("kafka consumer {}: commit fenced during a rebalance: {}",
                  rd_kafka_name(self->rk_.get()), rd_kafka_err2str(err));
    return;
  }
  ++self->errors_;
  spdlog::warn("kafka consumer {}: commit failed: {}", rd_kafka_name(self->rk_.get()),
               rd_kafka_err2str(err));
}

} // namespace weir::runtime::kafka
