// The ceiling of a source: a bare librdkafka producer that writes a file's lines to a
// topic and does nothing else (no connector, no converters, no offsets, no actors).
//
//   bare_producer --bootstrap-servers B --topic T --file PATH --records N
//
// The settings are those of weir's own producer (runtime/kafka/producer.cpp):
// idempotent (so acks=all), linger.ms=5, librdkafka's batch size, the Java client's
// partitioner; each line is one record with a null key, as FileStreamSource writes it.
// It exits 0 once N lines are acknowledged, 1 if a delivery failed, 2 on bad usage.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <librdkafka/rdkafka.h>

#include "rdkafka_client.hpp"

namespace {

unsigned long long delivered = 0, failed = 0;

void on_delivery(rd_kafka_t*, const rd_kafka_message_t* msg, void*) {
  if (msg->err == RD_KAFKA_RESP_ERR_NO_ERROR)
    ++delivered;
  else if (failed++ == 0)
    std::fprintf(stderr, "bare_producer: %s\n", rd_kafka_err2str(msg->err));
}

} // namespace

int main(int argc, char** argv) {
  std::string bootstrap, topic, path;
  unsigned long long records = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--bootstrap-servers") bootstrap = argv[i + 1];
    else if (a == "--topic") topic = argv[i + 1];
    else if (a == "--file") path = argv[i + 1];
    else if (a == "--records") records = std::strtoull(argv[i + 1], nullptr, 10);
  }
  if (bootstrap.empty() || topic.empty() || path.empty() || records == 0) {
    std::fprintf(stderr, "usage: bare_producer --bootstrap-servers B --topic T --file PATH --records N\n");
    return 2;
  }
  std::FILE* in = std::fopen(path.c_str(), "r");
  if (!in) {
    std::perror(("bare_producer: " + path).c_str());
    return 2;
  }
  rd_kafka_t* rk = bench::rdkafka_client("bare_producer", RD_KAFKA_PRODUCER,
                                         {{"bootstrap.servers", bootstrap},
                                          {"enable.idempotence", "true"},
                                          {"linger.ms", "5"},
                                          {"partitioner", "murmur2_random"}},
                                         on_delivery);

  char* line = nullptr;
  size_t capacity = 0;
  unsigned long long sent = 0;
  for (ssize_t n; sent < records && (n = getline(&line, &capacity, in)) > 0; ++sent) {
    size_t len = static_cast<size_t>(n) - (line[n - 1] == '\n' ? 1 : 0);
    while (rd_kafka_producev(rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_VALUE(line, len),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END)
           == RD_KAFKA_RESP_ERR__QUEUE_FULL)
      rd_kafka_poll(rk, 10); // delivery reports make room
    rd_kafka_poll(rk, 0);
  }
  std::free(line);
  std::fclose(in);
  if (sent < records) {
    std::fprintf(stderr, "bare_producer: %s has %llu lines, fewer than %llu\n", path.c_str(), sent, records);
    rd_kafka_destroy(rk);
    return 2;
  }
  while (delivered + failed < sent)
    rd_kafka_poll(rk, 100);
  std::printf("bare_producer: %llu records delivered, %llu failed\n", delivered, failed);
  rd_kafka_destroy(rk);
  return failed == 0 ? 0 : 1;
}
