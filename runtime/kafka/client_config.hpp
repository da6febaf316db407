// Building librdkafka clients from weir's string properties.
//
// Every client (consumer, producer, admin) goes through make_conf, so a bad property
// fails the same way everywhere: a KafkaError that names the key, before anything
// connects. librdkafka's own log lines go to spdlog, never to stderr.
#pragma once

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

namespace weir::runtime::kafka {

/// Client properties, librdkafka names (which are Kafka's Java client names for
/// everything weir uses: bootstrap.servers, group.id, linger.ms, ...).
using Properties = std::map<std::string, std::string>;

/// A Kafka client failure: a bad property, a failed request, a fatal client state.
class KafkaError : public std::runtime_error {
public:
  explicit KafkaError(const std::string& what, rd_kafka_resp_err_t code = RD_KAFKA_RESP_ERR_UNKNOWN)
    : std::runtime_error(what), code_(code) {}

  /// librdkafka's error code, RD_KAFKA_RESP_ERR_UNKNOWN when none applies.
  rd_kafka_resp_err_t code() const noexcept { return code_; }

private:
  rd_kafka_resp_err_t code_;
};

struct ConfDeleter {
  void operator()(rd_kafka_conf_t* c) const noexcept { rd_kafka_conf_destroy(c); }
};
struct HandleDeleter {
  void operator()(rd_kafka_t* rk) const noexcept { rd_kafka_destroy(rk); }
};
using ConfPtr = std::unique_ptr<rd_kafka_conf_t, ConfDeleter>;
using HandlePtr = std::unique_ptr<rd_kafka_t, HandleDeleter>;

/// Builds a configuration from `props`, after resolving `bootstrap.servers=embedded`
/// (see embedded_cluster.hpp). Routes librdkafka's logs to spdlog. Throws KafkaError
/// "kafka property 'KEY': REASON" for an unknown key or an invalid value.
ConfPtr make_conf(const Properties& props);

/// Creates a client; takes `conf` only on success. Throws KafkaError.
HandlePtr make_handle(rd_kafka_type_t type, ConfPtr conf);

/// `props[key]`, or `fallback` when absent.
std::string get_or(const Properties& props, const std::string& key, const std::string& fallback);

/// `text`, the value of property `key`, as a positive integer; throws KafkaError
/// naming the property otherwise.
uint64_t positive_integer(const std::string& key, const std::string& text);

/// "what: librdkafka's description of err".
std::string describe(const std::string& what, rd_kafka_resp_err_t err);

} // namespace weir::runtime::kafka
