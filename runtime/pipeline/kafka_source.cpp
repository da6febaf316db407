#include "runtime/pipeline/kafka_source.hpp"

namespace weir::runtime::pipeline {

KafkaSource::KafkaSource(Options options, kafka::RebalanceListener listener)
  : options_(std::move(options)), consumer_(options_.consumer, std::move(listener)) {
  consumer_.subscribe(options_.topics);
}

BatchSource::Status KafkaSource::fill(Batch& out, uint64_t max_bytes) {
  auto n = consumer_.poll(out, options_.max_records, max_bytes, options_.poll_timeout);
  // An empty poll already waited poll_timeout: come back soon, but through the
  // mailbox, so credit and stats requests are served in between.
  return n == 0 ? Status::idle : Status::ready;
}

void KafkaSource::set_blocked(bool blocked) {
  if (blocked)
    consumer_.pause();
  else
    consumer_.resume();
}

void KafkaSource::serve() {
  consumer_.poll(scratch_, options_.max_records, 1, std::chrono::milliseconds{0});
}

void KafkaSource::on_durable(const std::vector<kafka::TopicPartitionOffset>& offsets) {
  // Asynchronous: commits are ordered by librdkafka, and a failure is logged and
  // counted; the next commit covers the same records again.
  consumer_.commit(offsets, true);
  ++commits_;
}

} // namespace weir::runtime::pipeline
