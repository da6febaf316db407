// The ceiling of a sink: a bare librdkafka consumer that reads a whole topic and
// does nothing else (no decoding, no commits, no actors).
//
//   bare_consumer --bootstrap-servers B --topic T --group G --records N [--one-per-call]
//
// It joins a fresh group G (auto.offset.reset=earliest, so it reads from the
// beginning), takes messages in batches from the consumer queue
// (rd_kafka_consume_batch_queue), counts them, and exits 0 after N. With
// --one-per-call it takes what is queued one message per call, as weir's consumer
// must on librdkafka before 2.1.0 (runtime/kafka/consumer.cpp, take_queued): the
// cost of that alone.
// It prints `first_record_ns=<CLOCK_MONOTONIC ns>` when the first record arrives, for
// bench_run's startup-to-first-record figure.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include <librdkafka/rdkafka.h>

#include "rdkafka_client.hpp"

namespace {

long long mono_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

} // namespace

int main(int argc, char** argv) {
  std::string bootstrap, topic, group;
  unsigned long long records = 0;
  bool one_per_call = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--one-per-call") {
      one_per_call = true;
      continue;
    }
    if (i + 1 >= argc) break;
    if (a == "--bootstrap-servers") bootstrap = argv[i + 1];
    else if (a == "--topic") topic = argv[i + 1];
    else if (a == "--group") group = argv[i + 1];
    else if (a == "--records") records = std::strtoull(argv[i + 1], nullptr, 10);
    ++i;
  }
  if (bootstrap.empty() || topic.empty() || group.empty() || records == 0) {
    std::fprintf(stderr, "usage: bare_consumer --bootstrap-servers B --topic T --group G --records N [--one-per-call]\n");
    return 2;
  }
  rd_kafka_t* rk = bench::subscribed_consumer("bare_consumer", topic,
                                              {{"bootstrap.servers", bootstrap},
                                               {"group.id", group},
                                               {"auto.offset.reset", "earliest"},
                                               {"enable.auto.commit", "false"},
                                               {"enable.auto.offset.store", "false"},
                                               {"partition.assignment.strategy", "cooperative-sticky"}});
  rd_kafka_queue_t* queue = rd_kafka_queue_get_consumer(rk);

  std::vector<rd_kafka_message_t*> msgs(10000);
  unsigned long long seen = 0, bytes = 0;
  while (seen < records) {
    // It waits until the array is full or the timeout expires: block for the first
    // message only, then take what is already there (as weir's consumer does).
    ssize_t got = rd_kafka_consume_batch_queue(queue, 1000, msgs.data(), 1);
    if (got == 1 && one_per_call) {
      while (static_cast<size_t>(got) < msgs.size() && rd_kafka_consume_batch_queue(queue, 0, msgs.data() + got, 1) == 1)
        ++got;
    } else if (got == 1) {
      ssize_t more = rd_kafka_consume_batch_queue(queue, 0, msgs.data() + 1, msgs.size() - 1);
      got += more > 0 ? more : 0;
    }
    for (ssize_t i = 0; i < got; ++i) {
      if (msgs[i]->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (seen++ == 0) {
          std::printf("first_record_ns=%lld\n", mono_ns());
          std::fflush(stdout);
        }
        bytes += msgs[i]->len;
      }
      rd_kafka_message_destroy(msgs[i]);
    }
  }
  std::printf("bare_consumer: %llu records, %llu value bytes\n", seen, bytes);
  rd_kafka_queue_destroy(queue);
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return 0;
}
