// Writes the benchmark's input: N JSON user events (~180 bytes each, the shape of
// `weir demo`'s events), into a Kafka topic or, one per line, into a file.
//
//   preload --bootstrap-servers B --topic T [--partitions P] --records N [--schemas]
//   preload --file PATH --records N
//   preload --csv PATH --records N          (the --schemas events' rows, for COPY)
//   preload --bootstrap-servers B --create-topic T [--partitions P] [--config K=V]...
//                                                       (empty topic, with topic configs)
//
// The topic is created (P partitions, default 8) and must not exist yet; records
// are keyed by user id, so they spread over every partition, and go through weir's
// own producer (runtime/kafka/producer.hpp) with large batches. It exits 0 once
// every record is acknowledged.
//
// Without --schemas, 50,000 users share the events (the FileStreamSink's input).
// With --schemas, every event has a user id of its own (user_id is the upsert key of
// the PostgreSQL runs, so N events make N rows) and the value is JsonConverter's
// envelope, {"schema": ..., "payload": ...}, as `value.converter.schemas.enable=true`
// reads it. --csv writes the same N events' payloads as CSV rows, columns in the
// schema's field order (`csv_columns`), for PostgreSQL's COPY.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "runtime/kafka/admin.hpp"
#include "runtime/kafka/producer.hpp"

using namespace weir;
using namespace std::chrono_literals;

namespace {

constexpr const char* kinds[] = {"page_view", "click", "signup", "purchase", "logout"};
constexpr const char* regions[] = {"eu-west", "us-east", "ap-south", "sa-east"};
constexpr unsigned long long u(uint64_t v) { return static_cast<unsigned long long>(v); }

/// The user of the n-th of `records` events: one of 50,000, or with `distinct` a user
/// of its own. n * 2654435761 (a prime) mod records is a permutation of 0..records-1,
/// so distinct users are spread over the partitions and the table's key range.
uint64_t user_of(uint64_t n, uint64_t records, bool distinct) {
  return (n * 2654435761u) % (distinct ? records : 50000);
}

/// The n-th event: key into `key`, value into `value`; returns their lengths.
std::pair<int, int> event(uint64_t n, uint64_t user, char (&key)[32], char (&value)[256]) {
  int klen = std::snprintf(key, sizeof key, "user-%05llu", u(user));
  int vlen = std::snprintf(value, sizeof value,
                           R"({"event_id":%llu,"user_id":"user-%05llu","event":"%s","region":"%s",)"
                           R"("session":"s-%08llx","amount":%llu.%02llu,"ts":%llu,"email":"user%llu@example.com"})",
                           u(n), u(user), kinds[n % 5], regions[(n / 5) % 4], u(n * 7919), u(n % 500), u(n % 100),
                           u(1767225600000ull + n * 10), u(user));
  return {klen, vlen};
}

/// JsonConverter's schema of the event, the envelope's first half (`event`'s fields,
/// in its order; `amount` a double, `ts` epoch milliseconds as int64).
constexpr std::string_view schema_prefix =
    R"({"schema":{"type":"struct","name":"user_event","optional":false,"fields":[)"
    R"({"field":"event_id","type":"int64","optional":false},{"field":"user_id","type":"string","optional":false},)"
    R"({"field":"event","type":"string","optional":false},{"field":"region","type":"string","optional":false},)"
    R"({"field":"session","type":"string","optional":false},{"field":"amount","type":"double","optional":false},)"
    R"({"field":"ts","type":"int64","optional":false},{"field":"email","type":"string","optional":false}]},)"
    R"("payload":)";

/// The n-th schema'd event's CSV row (no newline); returns its length.
int csv_row(uint64_t n, uint64_t user, char (&row)[256]) {
  return std::snprintf(row, sizeof row, "%llu,user-%05llu,%s,%s,s-%08llx,%llu.%02llu,%llu,user%llu@example.com", u(n),
                       u(user), kinds[n % 5], regions[(n / 5) % 4], u(n * 7919), u(n % 500), u(n % 100),
                       u(1767225600000ull + n * 10), u(user));
}

/// The COPY column list matching csv_row's order.
constexpr const char* csv_columns = "event_id,user_id,event,region,session,amount,ts,email";

/// One line per event into `path`: the event's JSON, or with `csv` its CSV row.
int write_file(const std::string& path, uint64_t records, bool csv) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::perror(path.c_str());
    return 1;
  }
  char key[32], line[256];
  for (uint64_t n = 0; n < records; ++n) {
    int len = csv ? csv_row(n, user_of(n, records, true), line)
                  : event(n, user_of(n, records, false), key, line).second;
    line[len] = '\n';
    std::fwrite(line, 1, static_cast<size_t>(len) + 1, f);
  }
  if (std::fclose(f) != 0) return 1;
  if (csv) std::printf("%s\n", csv_columns);
  return 0;
}

int produce(const runtime::kafka::Properties& client, const std::string& topic, uint64_t records, bool schemas) {
  uint64_t delivered = 0, failed = 0;
  std::string error;
  runtime::kafka::Properties props = client;
  props["linger.ms"] = "20";
  props["batch.size"] = "1000000";
  props["queue.buffering.max.kbytes"] = "262144";
  runtime::kafka::Producer producer(props, [&](uint64_t, size_t ok, size_t bad, const std::string& first) {
    delivered += ok;
    failed += bad;
    if (bad && error.empty()) error = first;
  });
  auto t0 = std::chrono::steady_clock::now();
  char key[32], value[256];
  std::string envelope{schema_prefix};
  Batch batch;
  uint64_t token = 0;
  for (uint64_t n = 0; n < records;) {
    batch.clear();
    for (int i = 0; i < 10000 && n < records; ++i, ++n) {
      auto [klen, vlen] = event(n, user_of(n, records, schemas), key, value);
      std::string_view payload{value, size_t(vlen)};
      if (schemas) {
        envelope.resize(schema_prefix.size());
        envelope.append(payload).push_back('}');
        payload = envelope;
      }
      batch.append(topic, -1, -1, -1, std::string_view{key, size_t(klen)}, payload);
    }
    producer.produce(batch, token++);
    producer.poll(0ms);
  }
  if (!producer.flush(120s)) {
    std::fprintf(stderr, "preload: %zu records still in flight after 120 s\n", producer.in_flight());
    return 1;
  }
  double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (failed) {
    std::fprintf(stderr, "preload: %llu records failed: %s\n", static_cast<unsigned long long>(failed), error.c_str());
    return 1;
  }
  std::printf("preload: %llu records into %s in %.1f s (%.0f records/s)\n", static_cast<unsigned long long>(delivered),
              topic.c_str(), dt, static_cast<double>(delivered) / dt);
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  std::string bootstrap, topic, create_only, file, csv;
  std::map<std::string, std::string> configs;
  int partitions = 8;
  uint64_t records = 0;
  bool schemas = false;
  for (int i = 1; i < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--schemas") {
      schemas = true;
      --i;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "preload: %s needs a value\n", argv[i]);
      return 2;
    }
    if (a == "--bootstrap-servers") bootstrap = argv[i + 1];
    else if (a == "--topic") topic = argv[i + 1];
    else if (a == "--create-topic") create_only = argv[i + 1];
    else if (a == "--partitions") partitions = std::atoi(argv[i + 1]);
    else if (a == "--records") records = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--file") file = argv[i + 1];
    else if (a == "--csv") csv = argv[i + 1];
    else if (a == "--config") {
      std::string kv = argv[i + 1];
      if (kv.find('=') == std::string::npos || kv.front() == '=') {
        std::fprintf(stderr, "preload: --config needs KEY=VALUE, not %s\n", kv.c_str());
        return 2;
      }
      configs[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
    } else {
      std::fprintf(stderr, "preload: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  spdlog::set_level(spdlog::level::warn);
  try {
    if (!file.empty() && records > 0) return write_file(file, records, false);
    if (!csv.empty() && records > 0) return write_file(csv, records, true);
    runtime::kafka::Properties client{{"bootstrap.servers", bootstrap}};
    auto name = create_only.empty() ? topic : create_only;
    if (bootstrap.empty() || name.empty()) {
      std::fprintf(stderr, "usage: preload --bootstrap-servers B --topic T [--partitions P] --records N [--schemas]\n"
                           "       preload --file PATH --records N\n"
                           "       preload --csv PATH --records N\n"
                           "       preload --bootstrap-servers B --create-topic T [--partitions P] [--config K=V]...\n");
      return 2;
    }
    runtime::kafka::create_topics(client, {{name, partitions, 1, configs}});
    if (!create_only.empty()) return 0;
    return produce(client, topic, records, schemas);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "preload: %s\n", e.what());
    return 1;
  }
}
