#include "runtime/kafka/client_config.hpp"

#include "runtime/kafka/embedded_cluster.hpp"

#include <charconv>

#include <spdlog/spdlog.h>

namespace weir::runtime::kafka {

namespace {

// librdkafka logs with syslog levels; called from its internal threads, which is
// fine because spdlog's default logger is thread-safe. Its debug lines (level 7)
// come only when a client's `debug` property asks for them (which sets its
// log_level to 7), so they are logged at info: spdlog's debug level is off.
void log_to_spdlog(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  auto lvl = level <= 2   ? spdlog::level::critical
             : level == 3 ? spdlog::level::err
             : level == 4 ? spdlog::level::warn
                          : spdlog::level::info;
  spdlog::log(lvl, "librdkafka {} {}: {}", rk ? rd_kafka_name(rk) : "-", fac, buf);
}

} // namespace

ConfPtr make_conf(const Properties& props) {
  ConfPtr conf{rd_kafka_conf_new()};
  rd_kafka_conf_set_log_cb(conf.get(), log_to_spdlog);
  char errstr[512];
  for (const auto& [key, value] : resolve_bootstrap(props)) {
    if (rd_kafka_conf_set(conf.get(), key.c_str(), value.c_str(), errstr, sizeof errstr)
        != RD_KAFKA_CONF_OK)
      throw KafkaError("kafka property '" + key + "': " + errstr, RD_KAFKA_RESP_ERR__INVALID_ARG);
  }
  return conf;
}

HandlePtr make_handle(rd_kafka_type_t type, ConfPtr conf) {
  char errstr[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf.get(), errstr, sizeof errstr);
  if (!rk)
    throw KafkaError(std::string("cannot create kafka client: ") + errstr);
  conf.release(); // rd_kafka_new owns it now
  return HandlePtr{rk};
}

std::string get_or(const Properties& props, const std::string& key, const std::string& fallback) {
  auto it = props.find(key);
  return it == props.end() ? fallback : it->second;
}

uint64_t positive_integer(const std::string& key, const std::string& text) {
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || end != text.data() + text.size() || n == 0)
    throw KafkaError("kafka property '" + key + "': '" + text + "' is not a positive integer",
                     RD_KAFKA_RESP_ERR__INVALID_ARG);
  return n;
}

std::string describe(const std::string& what, rd_kafka_resp_err_t err) {
  return what + ": " + rd_kafka_err2str(err);
}

} // namespace weir::runtime::kafka
