#include "runtime/kafka/client_config.hpp"

#include "runtime/kafka/embedded_cluster.hpp"

#include <charconv>

#include <sys/prctl.h>

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

// librdkafka before 2.4.0 (Debian 12 has 2.0.2) wakes its main thread up to a
// millisecond before the next timer is due and then polls with a zero timeout until
// it is (confluentinc/librdkafka#4684): about half a millisecond of CPU per timer. A
// consumer has three timers a second (its 1 s timer and max.poll.interval.ms's 500 ms
// check), so 200 idle sink connectors spent a third of a core in that loop. A thread
// inherits its timer slack from the thread that creates it: a client's threads made
// with 2 ms of slack end their timed waits at or after the timer instead. Only their
// timeouts move, by at most 2 ms; a socket or queue with work wakes them at once.
// Producers keep the default: their timed waits include linger.ms, a user's figure.
class SlackForNewThreads {
public:
  explicit SlackForNewThreads(rd_kafka_type_t type)
      : before_{type == RD_KAFKA_CONSUMER && rd_kafka_version() < 0x02040000
                  ? ::prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0)
                  : -1} {
    if (before_ >= 0)
      ::prctl(PR_SET_TIMERSLACK, 2'000'000UL, 0, 0, 0);
  }
  ~SlackForNewThreads() {
    if (before_ >= 0)
      ::prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(before_), 0, 0, 0);
  }
  SlackForNewThreads(const SlackForNewThreads&) = delete;
  SlackForNewThreads& operator=(const SlackForNewThreads&) = delete;

private:
  long before_;
};

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
  rd_kafka_t* rk = nullptr;
  {
    SlackForNewThreads slack{type};
    rk = rd_kafka_new(type, conf.get(), errstr, sizeof errstr);
  }
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
