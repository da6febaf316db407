#include "runtime/metrics/stage_rates.hpp"

#include <algorithm>

namespace weir::runtime::metrics {

namespace {

double delta(uint64_t now, uint64_t then) { return now >= then ? static_cast<double>(now - then) : 0.0; }

} // namespace

StageRates rates_between(const StageStats& then, const StageStats& now, double seconds) {
  StageRates r;
  if (seconds <= 0)
    return r;
  auto fraction = [&](uint64_t n, uint64_t t) { return std::clamp(delta(n, t) / (seconds * 1e9), 0.0, 1.0); };
  r.records_in_per_sec = delta(now.records_in, then.records_in) / seconds;
  r.records_out_per_sec = delta(now.records_out, then.records_out) / seconds;
  r.bytes_in_per_sec = delta(now.bytes_in, then.bytes_in) / seconds;
  r.cpu_per_sec = delta(now.cpu_ns, then.cpu_ns) / seconds / 1e9;
  r.busy = fraction(now.busy_ns, then.busy_ns);
  auto records = delta(now.records_in, then.records_in);
  r.ns_per_record = records > 0 ? delta(now.cpu_ns, then.cpu_ns) / records : 0.0;
  r.credit_wait = fraction(now.credit_wait_ns, then.credit_wait_ns);
  r.idle = fraction(now.idle_ns, then.idle_ns);
  auto acked = now.poll_to_ack.since(then.poll_to_ack);
  r.poll_to_ack_p50 = acked.quantile_seconds(0.5);
  r.poll_to_ack_p99 = acked.quantile_seconds(0.99);
  return r;
}

} // namespace weir::runtime::metrics
