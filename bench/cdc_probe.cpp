// Reads a CDC benchmark's topic after the run and measures it from the records alone,
// the same way for weir's PostgresConnector and Debezium's.
//
//   cdc_probe --bootstrap-servers B --topic T --records N [--timeout S]
//   cdc_probe --bootstrap-servers B --topic T --wait-streamed [--timeout S]
//
// --wait-streamed exits 0 once T holds a streamed insert (`"op":"c"`, not a snapshot
// row), 1 after S seconds: the harness inserts into a marker table until then, so the
// workload starts only when the connector is streaming.
//
// The topic is made with message.timestamp.type=LogAppendTime, so each record's
// timestamp is the broker's clock when it appended the record. Each value is a
// Debezium change event written by JsonConverter (with or without schemas): its
// `source.ts_ms` is the commit time of the row's transaction (the pgoutput Begin
// message's commit timestamp, which both engines copy), and `after.id` the row's key.
// PostgreSQL and the broker run on the same machine, so both clocks are one clock.
//
// It reads every partition from the beginning until N change events (or S seconds,
// default 120), then prints one line:
//   status=ok|short|bad_records events=N distinct_ids=N events_per_s=…
//   commit_rate=… latency_p50_ms=… latency_p99_ms=… latency_max_ms=… span_s=…
// events_per_s: N over the first → last append time (+1 ms); commit_rate: N over the
// first → last commit time (the workload's own pace, the ceiling of events_per_s);
// latency: append time − commit time per event (both in ms, so ±1 ms).
// status=short: fewer than N events; bad_records: a record without those fields, a
// timestamp that is not LogAppendTime, or ids not N distinct ones (a loss or a repeat).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "rdkafka_client.hpp"

namespace {

/// The integer after `"key":` at or after `from` in `json`, and where it ends.
std::optional<int64_t> int_after(std::string_view json, std::string_view key, size_t& from) {
  std::string pattern = "\"" + std::string(key) + "\":";
  size_t at = json.find(pattern, from);
  if (at == std::string_view::npos) return std::nullopt;
  size_t p = at + pattern.size();
  while (p < json.size() && json[p] == ' ') ++p;
  char* end = nullptr;
  std::string digits(json.substr(p, std::min<size_t>(24, json.size() - p)));
  long long v = std::strtoll(digits.c_str(), &end, 10);
  if (end == digits.c_str()) return std::nullopt;
  from = p + static_cast<size_t>(end - digits.c_str());
  return v;
}

/// The payload's `after.id` and `source.ts_ms`. With schemas the payload follows the
/// schema, whose field names are never followed by `":` plus a number.
bool parse_event(std::string_view json, int64_t& id, int64_t& commit_ms) {
  size_t from = json.find("\"payload\":");
  if (from == std::string_view::npos) from = 0;
  size_t after = json.find("\"after\":{", from);
  size_t source = json.find("\"source\":{", from);
  if (after == std::string_view::npos || source == std::string_view::npos) return false;
  auto i = int_after(json, "id", after);
  auto ts = int_after(json, "ts_ms", source);
  if (!i || !ts) return false;
  id = *i;
  commit_ms = *ts;
  return true;
}

double percentile(const std::vector<int64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
  return static_cast<double>(sorted[std::min(rank, sorted.size() - 1)]);
}

} // namespace

int main(int argc, char** argv) {
  std::string bootstrap, topic;
  unsigned long long records = 0;
  int timeout_s = 120;
  bool wait_streamed = false;
  for (int i = 1; i < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--wait-streamed") {
      wait_streamed = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) break;
    if (a == "--bootstrap-servers") bootstrap = argv[i + 1];
    else if (a == "--topic") topic = argv[i + 1];
    else if (a == "--records") records = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--timeout") timeout_s = std::atoi(argv[i + 1]);
  }
  if (bootstrap.empty() || topic.empty() || (records == 0 && !wait_streamed) || timeout_s <= 0) {
    std::fprintf(stderr, "usage: cdc_probe --bootstrap-servers B --topic T --records N [--timeout S]\n"
                         "       cdc_probe --bootstrap-servers B --topic T --wait-streamed [--timeout S]\n");
    return 2;
  }
  rd_kafka_t* rk = bench::subscribed_consumer("cdc_probe", topic,
                                              {{"bootstrap.servers", bootstrap},
                                               {"group.id", "cdc-probe-" + topic},
                                               {"auto.offset.reset", "earliest"},
                                               {"enable.auto.commit", "false"}});

  time_t deadline = std::time(nullptr) + timeout_s;
  if (wait_streamed) {
    bool seen = false;
    while (!seen && std::time(nullptr) < deadline) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 200);
      if (!m) continue;
      seen = m->err == RD_KAFKA_RESP_ERR_NO_ERROR && m->payload &&
             std::string_view(static_cast<const char*>(m->payload), m->len).find("\"op\":\"c\"") !=
                 std::string_view::npos;
      rd_kafka_message_destroy(m);
    }
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    return seen ? 0 : 1;
  }

  std::vector<int64_t> latencies, ids;
  latencies.reserve(records);
  ids.reserve(records);
  int64_t first_append = INT64_MAX, last_append = INT64_MIN, first_commit = INT64_MAX, last_commit = INT64_MIN;
  unsigned long long bad = 0, other_clock = 0;
  while (latencies.size() < records && std::time(nullptr) < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 500);
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
      int64_t append = rd_kafka_message_timestamp(m, &type);
      int64_t id = 0, commit = 0;
      if (!m->payload) {
        ++bad; // no tombstones in an insert-only workload
      } else if (!parse_event({static_cast<const char*>(m->payload), m->len}, id, commit)) {
        if (bad++ == 0)
          std::fprintf(stderr, "cdc_probe: a record without after.id or source.ts_ms: %.300s\n",
                       static_cast<const char*>(m->payload));
      } else {
        if (type != RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME) ++other_clock;
        latencies.push_back(append - commit);
        ids.push_back(id);
        first_append = std::min(first_append, append);
        last_append = std::max(last_append, append);
        first_commit = std::min(first_commit, commit);
        last_commit = std::max(last_commit, commit);
      }
    } else if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      std::fprintf(stderr, "cdc_probe: %s\n", rd_kafka_message_errstr(m));
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);

  std::sort(ids.begin(), ids.end());
  size_t distinct = static_cast<size_t>(std::unique(ids.begin(), ids.end()) - ids.begin());
  std::sort(latencies.begin(), latencies.end());
  const char* status = latencies.size() < records                             ? "short"
                       : (bad || other_clock || distinct != latencies.size()) ? "bad_records"
                                                                              : "ok";
  if (other_clock)
    std::fprintf(stderr, "cdc_probe: %llu records not stamped with LogAppendTime: make the topic with "
                         "message.timestamp.type=LogAppendTime\n", other_clock);
  // Both clocks tick in ms: a span counts its last millisecond too, so that a run whose
  // events all land within one millisecond still has a rate.
  double span_s = latencies.empty() ? 0 : static_cast<double>(last_append - first_append + 1) / 1000.0;
  double commit_span_s = latencies.empty() ? 0 : static_cast<double>(last_commit - first_commit + 1) / 1000.0;
  double n = static_cast<double>(latencies.size());
  std::printf("status=%s events=%zu distinct_ids=%zu bad=%llu events_per_s=%.0f commit_rate=%.0f "
              "latency_p50_ms=%.0f latency_p99_ms=%.0f latency_max_ms=%.0f span_s=%.3f\n",
              status, latencies.size(), distinct, bad, span_s > 0 ? n / span_s : 0,
              commit_span_s > 0 ? n / commit_span_s : 0, percentile(latencies, 0.50),
              percentile(latencies, 0.99), latencies.empty() ? 0.0 : static_cast<double>(latencies.back()),
              span_s);
  return 0;
}
