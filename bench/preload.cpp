// Writes the benchmark's input: N JSON user events (~180 bytes each, the shape of
// `weir demo`'s events), into a Kafka topic or, one per line, into a file.
//
//   preload --bootstrap-servers B --topic T [--partitions P] --records N
//   preload --file PATH --records N
//   preload --bootstrap-servers B --create-topic T [--partitions P]   (empty topic)
//
// The topic is created (P partitions, default 8) and must not exist yet; records
// are keyed by user id, so they spread over every partition, and go through weir's
// own producer (runtime/kafka/producer.hpp) with large batches. It exits 0 once
// every record is acknowledged.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <spdlog/spdlog.h>

#include "runtime/kafka/admin.hpp"
#include "runtime/kafka/producer.hpp"

using namespace weir;
using namespace std::chrono_literals;

namespace {

/// The n-th event: key into `key`, value into `value`; returns their lengths.
std::pair<int, int> event(uint64_t n, char (&key)[32], char (&value)[256]) {
  static constexpr const char* kinds[] = {"page_view", "click", "signup", "purchase", "logout"};
  static constexpr const char* regions[] = {"eu-west", "us-east", "ap-south", "sa-east"};
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  uint64_t user = (n * 2654435761u) % 50000;
  int klen = std::snprintf(key, sizeof key, "user-%05llu", u(user));
  int vlen = std::snprintf(value, sizeof value,
                           R"({"event_id":%llu,"user_id":"user-%05llu","event":"%s","region":"%s",)"
                           R"("session":"s-%08llx","amount":%llu.%02llu,"ts":%llu,"email":"user%llu@example.com"})",
                           u(n), u(user), kinds[n % 5], regions[(n / 5) % 4], u(n * 7919), u(n % 500), u(n % 100),
                           u(1767225600000ull + n * 10), u(user));
  return {klen, vlen};
}

int write_file(const std::string& path, uint64_t records) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::perror(path.c_str());
    return 1;
  }
  char key[32], value[256];
  for (uint64_t n = 0; n < records; ++n) {
    auto [klen, vlen] = event(n, key, value);
    (void)klen;
    value[vlen] = '\n';
    std::fwrite(value, 1, static_cast<size_t>(vlen) + 1, f);
  }
  return std::fclose(f) == 0 ? 0 : 1;
}

int produce(const runtime::kafka::Properties& client, const std::string& topic, uint64_t records) {
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
  Batch batch;
  uint64_t token = 0;
  for (uint64_t n = 0; n < records;) {
    batch.clear();
    for (int i = 0; i < 10000 && n < records; ++i, ++n) {
      auto [klen, vlen] = event(n, key, value);
      batch.append(topic, -1, -1, -1, std::string_view{key, size_t(klen)}, std::string_view{value, size_t(vlen)});
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
  std::string bootstrap, topic, create_only, file;
  int partitions = 8;
  uint64_t records = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--bootstrap-servers") bootstrap = argv[i + 1];
    else if (a == "--topic") topic = argv[i + 1];
    else if (a == "--create-topic") create_only = argv[i + 1];
    else if (a == "--partitions") partitions = std::atoi(argv[i + 1]);
    else if (a == "--records") records = std::strtoull(argv[i + 1], nullptr, 10);
    else if (a == "--file") file = argv[i + 1];
    else {
      std::fprintf(stderr, "preload: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  spdlog::set_level(spdlog::level::warn);
  try {
    if (!file.empty() && records > 0) return write_file(file, records);
    runtime::kafka::Properties client{{"bootstrap.servers", bootstrap}};
    auto name = create_only.empty() ? topic : create_only;
    if (bootstrap.empty() || name.empty()) {
      std::fprintf(stderr, "usage: preload --bootstrap-servers B --topic T [--partitions P] --records N\n"
                           "       preload --file PATH --records N\n"
                           "       preload --bootstrap-servers B --create-topic T [--partitions P]\n");
      return 2;
    }
    runtime::kafka::create_topics(client, {{name, partitions, 1}});
    if (!create_only.empty()) return 0;
    return produce(client, topic, records);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "preload: %s\n", e.what());
    return 1;
  }
}
