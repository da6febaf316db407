// Writes the benchmark's input: N JSON user events (~180 bytes each, the shape of
// `weir demo`'s events), into a Kafka topic or, one per line, into a file.
//
//   preload --bootstrap-servers B --topic T [--partitions P] --records N [--schemas]
//   preload --bootstrap-servers B --topic T [--partitions P] --records N --avro REGISTRY_URL
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
//
// With --avro, the same events as without --schemas (same keys, same field values),
// but each value is Confluent's Avro wire format: byte 0, the schema id (4 bytes,
// big-endian), the Avro binary. preload registers the events' schema (`avro_schema`)
// under the subject `T-value` itself and encodes with its own few lines
// (`avro_event`), so that the bench's input does not depend on the AvroConverter it
// measures.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include <httplib.h>
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

/// The Avro schema of `event`'s values: its fields in its order and types (`amount` a
/// double, `ts` epoch milliseconds as long); `email` optional, as a Connect schema with
/// an optional field registers it, so the union path is measured too.
constexpr std::string_view avro_schema =
    R"({"type":"record","name":"user_event","namespace":"weir.bench","fields":[)"
    R"({"name":"event_id","type":"long"},{"name":"user_id","type":"string"},)"
    R"({"name":"event","type":"string"},{"name":"region","type":"string"},)"
    R"({"name":"session","type":"string"},{"name":"amount","type":"double"},)"
    R"({"name":"ts","type":"long"},{"name":"email","type":["null","string"],"default":null}]})";

/// Avro binary: a long as its zigzag varint, a string as its length and bytes, a
/// double as 8 little-endian bytes (Avro's spec, "Binary Encoding").
void avro_long(std::string& out, int64_t v) {
  auto z = (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
  while (z >= 0x80) {
    out.push_back(static_cast<char>((z & 0x7f) | 0x80));
    z >>= 7;
  }
  out.push_back(static_cast<char>(z));
}
void avro_string(std::string& out, std::string_view s) {
  avro_long(out, static_cast<int64_t>(s.size()));
  out.append(s);
}
void avro_double(std::string& out, double d) {
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(bits >> (8 * i)));
}

/// The n-th event as `avro_schema`'s binary after Confluent's 5-byte header, into `out`:
/// the field values `event` prints (amount parsed from the same text, as JSON readers do).
void avro_event(uint64_t n, uint64_t user, int32_t schema_id, std::string& out) {
  char buf[64];
  out.clear();
  out.push_back('\0');
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(uint32_t(schema_id) >> shift));
  avro_long(out, static_cast<int64_t>(n));
  avro_string(out, std::string_view(buf, size_t(std::snprintf(buf, sizeof buf, "user-%05llu", u(user)))));
  avro_string(out, kinds[n % 5]);
  avro_string(out, regions[(n / 5) % 4]);
  avro_string(out, std::string_view(buf, size_t(std::snprintf(buf, sizeof buf, "s-%08llx", u(n * 7919)))));
  std::snprintf(buf, sizeof buf, "%llu.%02llu", u(n % 500), u(n % 100));
  avro_double(out, std::strtod(buf, nullptr));
  avro_long(out, static_cast<int64_t>(1767225600000ull + n * 10));
  avro_long(out, 1); // the union's second branch, string
  avro_string(out, std::string_view(buf, size_t(std::snprintf(buf, sizeof buf, "user%llu@example.com", u(user)))));
}

/// Registers `avro_schema` under SUBJECT at the registry URL
/// (`http://host:port/prefix`, Confluent's API); returns its id.
int32_t register_avro_schema(const std::string& url, const std::string& subject) {
  auto slash = url.find('/', url.find("://") == std::string::npos ? 0 : url.find("://") + 3);
  std::string origin = url.substr(0, slash), prefix = slash == std::string::npos ? "" : url.substr(slash);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  std::string body = R"({"schema":")";
  for (char c : avro_schema) {
    if (c == '"' || c == '\\') body.push_back('\\');
    body.push_back(c);
  }
  body += "\"}";
  httplib::Client client(origin);
  client.set_connection_timeout(10);
  client.set_read_timeout(30);
  auto res = client.Post(prefix + "/subjects/" + subject + "/versions", body,
                         "application/vnd.schemaregistry.v1+json");
  if (!res)
    throw std::runtime_error("POST " + url + "/subjects/" + subject + "/versions: " + httplib::to_string(res.error()));
  auto id = res->body.find("\"id\"");
  auto colon = id == std::string::npos ? id : res->body.find(':', id);
  if (res->status != 200 || colon == std::string::npos)
    throw std::runtime_error("registering the schema under " + subject + ": HTTP " + std::to_string(res->status) + " " +
                             res->body);
  return static_cast<int32_t>(std::strtol(res->body.c_str() + colon + 1, nullptr, 10));
}

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

/// Produces the N events into `topic`: JSON, with `schemas` JsonConverter's envelope, or
/// with `avro_id` >= 0 Confluent's Avro under that schema id.
int produce(const runtime::kafka::Properties& client, const std::string& topic, uint64_t records, bool schemas,
            int32_t avro_id) {
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
  std::string envelope{schema_prefix}, avro;
  Batch batch;
  uint64_t token = 0;
  for (uint64_t n = 0; n < records;) {
    batch.clear();
    for (int i = 0; i < 10000 && n < records; ++i, ++n) {
      auto [klen, vlen] = event(n, user_of(n, records, schemas), key, value);
      std::string_view payload{value, size_t(vlen)};
      if (avro_id >= 0) {
        avro_event(n, user_of(n, records, false), avro_id, avro);
        payload = avro;
      } else if (schemas) {
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
  std::string bootstrap, topic, create_only, file, csv, avro_url;
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
    else if (a == "--avro") avro_url = argv[i + 1];
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
                           "       preload --bootstrap-servers B --topic T [--partitions P] --records N --avro URL\n"
                           "       preload --file PATH --records N\n"
                           "       preload --csv PATH --records N\n"
                           "       preload --bootstrap-servers B --create-topic T [--partitions P] [--config K=V]...\n");
      return 2;
    }
    if (schemas && !avro_url.empty()) {
      std::fprintf(stderr, "preload: --schemas and --avro exclude each other\n");
      return 2;
    }
    int32_t avro_id = avro_url.empty() ? -1 : register_avro_schema(avro_url, topic + "-value");
    runtime::kafka::create_topics(client, {{name, partitions, 1, configs}});
    if (!create_only.empty()) return 0;
    return produce(client, topic, records, schemas, avro_id);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "preload: %s\n", e.what());
    return 1;
  }
}
