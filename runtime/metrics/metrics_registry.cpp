#include "runtime/metrics/metrics_registry.hpp"

#include <charconv>
#include <cmath>
#include <initializer_list>
#include <utility>

namespace weir::runtime::metrics {

void StatsCell::publish(const StageStats& stats) {
  std::lock_guard lock{mutex_};
  stats_ = stats;
}

StageStats StatsCell::read() const {
  std::lock_guard lock{mutex_};
  return stats_;
}

std::shared_ptr<StatsCell> MetricsRegistry::cell(const StageKey& key, StageRole role) {
  std::lock_guard lock{mutex_};
  auto& slot = cells_[key];
  slot.role = role;
  if (!slot.cell)
    slot.cell = std::make_shared<StatsCell>();
  return slot.cell;
}

void MetricsRegistry::remove_connector(const std::string& connector) {
  std::lock_guard lock{mutex_};
  std::erase_if(cells_, [&](const auto& e) { return e.first.connector == connector; });
}

std::vector<StageSnapshot> MetricsRegistry::snapshot(const std::string& connector) const {
  return snapshot_if([&](const StageKey& key) { return connector.empty() || key.connector == connector; });
}

std::vector<StageSnapshot> MetricsRegistry::snapshot_if(const std::function<bool(const StageKey&)>& wanted) const {
  std::vector<std::pair<StageKey, Entry>> cells;
  {
    std::lock_guard lock{mutex_};
    for (const auto& [key, entry] : cells_)
      if (wanted(key))
        cells.emplace_back(key, entry);
  }
  std::vector<StageSnapshot> out;
  out.reserve(cells.size());
  for (const auto& [key, entry] : cells)
    out.push_back({key, entry.role, entry.cell->read()});
  return out;
}

namespace {

/// Label values escape backslash, double quote and newline (the text format's rule).
void append_label_value(std::string_view v, std::string& out) {
  for (char c : v) {
    if (c == '\\' || c == '"')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
}

/// Counters print as integers; other values in the shortest form that round-trips.
void append_number(double v, std::string& out) {
  if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) {
    out += std::to_string(static_cast<int64_t>(v));
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, end);
}

struct Family {
  const char* name;
  const char* type; // counter | gauge
  const char* help;
};

class Writer {
public:
  explicit Writer(std::string& out) : out_(out) {}

  void family(const Family& f) {
    out_ += "# HELP ";
    out_ += f.name;
    out_ += ' ';
    out_ += f.help;
    out_ += "\n# TYPE ";
    out_ += f.name;
    out_ += ' ';
    out_ += f.type;
    out_ += '\n';
  }

  using Labels = std::initializer_list<std::pair<std::string_view, std::string_view>>;

  void sample(const Family& f, const StageKey& key, bool with_stage, double value, Labels extra = {}) {
    out_ += f.name;
    out_ += '{';
    label("connector", key.connector);
    out_ += ',';
    label("task", std::to_string(key.task));
    if (with_stage) {
      out_ += ',';
      label("stage", key.stage);
    }
    for (const auto& [name, label_value] : extra) {
      out_ += ',';
      label(name, label_value);
    }
    out_ += '}';
    end(value);
  }

  /// A node's sample: no label, or one.
  void sample(const Family& f, double value, std::string_view name = {}, std::string_view label_value = {}) {
    out_ += f.name;
    if (!name.empty()) {
      out_ += '{';
      label(name, label_value);
      out_ += '}';
    }
    end(value);
  }

private:
  void label(std::string_view name, std::string_view value) {
    out_ += name;
    out_ += "=\"";
    append_label_value(value, out_);
    out_ += '"';
  }
  void end(double value) {
    out_ += ' ';
    append_number(value, out_);
    out_ += '\n';
  }

  std::string& out_;
};

using Getter = double (*)(const StageStats&);

struct StageSeries {
  Family family;
  Getter get;
  bool consumers_only;
};

const StageSeries stage_series[] = {
  {{"weir_stage_records_in_total", "counter", "Records received by the stage."},
   [](const StageStats& s) { return double(s.records_in); }, false},
  {{"weir_stage_records_out_total", "counter",
    "Records the stage passed on (a sink: wrote; a source: produced)."},
   [](const StageStats& s) { return double(s.records_out); }, false},
  {{"weir_stage_bytes_in_total", "counter", "Bytes of the batches received by the stage."},
   [](const StageStats& s) { return double(s.bytes_in); }, false},
  {{"weir_stage_errors_total", "counter", "Record and stage errors seen by the stage."},
   [](const StageStats& s) { return double(s.errors); }, false},
  {{"weir_stage_cpu_seconds_total", "counter", "CPU time the stage spent processing."},
   [](const StageStats& s) { return double(s.cpu_ns) / 1e9; }, false},
  {{"weir_stage_busy_seconds_total", "counter", "Wall time the stage spent handling batches."},
   [](const StageStats& s) { return double(s.busy_ns) / 1e9; }, false},
  {{"weir_stage_credit_wait_seconds_total", "counter",
    "Time the stage had output ready and no credit from its downstream."},
   [](const StageStats& s) { return double(s.credit_wait_ns) / 1e9; }, false},
  {{"weir_stage_mailbox_messages", "gauge", "Messages waiting in the stage actor's mailbox."},
   [](const StageStats& s) { return double(s.mailbox); }, false},
  {{"weir_stage_credit_held_batches", "gauge",
    "Batches of the credit this stage granted upstream that are in use."},
   [](const StageStats& s) { return double(s.held.batches); }, false},
  {{"weir_stage_credit_held_bytes", "gauge",
    "Bytes of the credit this stage granted upstream that are in use."},
   [](const StageStats& s) { return double(s.held.bytes); }, false},
  {{"weir_stage_in_flight_batches", "gauge", "Batches sent downstream and not yet credited back."},
   [](const StageStats& s) { return double(s.out_in_flight.batches); }, false},
  {{"weir_stage_in_flight_bytes", "gauge", "Bytes sent downstream and not yet credited back."},
   [](const StageStats& s) { return double(s.out_in_flight.bytes); }, false},
  {{"weir_consumer_lag_records", "gauge", "Records behind the high watermarks (consumers)."},
   [](const StageStats& s) { return double(s.lag); }, true},
  {{"weir_consumer_assigned_partitions", "gauge", "Partitions assigned (consumers)."},
   [](const StageStats& s) { return double(s.partitions); }, true},
};

/// A task's figures, in Kafka Connect's terms, from its stages.
struct TaskTotals {
  StageKey key;
  bool sink = false, source = false;
  double read = 0, sent = 0, polled = 0, written = 0, errors = 0, dead_lettered = 0;
  double put_batches = 0, put_cpu_ns = 0;
  double commits = 0, commit_ns = 0;
};

} // namespace

std::string render_prometheus(const std::vector<StageSnapshot>& stages) {
  std::string out;
  Writer w{out};
  for (const auto& series : stage_series) {
    w.family(series.family);
    for (const auto& s : stages)
      if (!series.consumers_only || s.stats.lag >= 0 || s.stats.partitions >= 0)
        w.sample(series.family, s.key, true, series.get(s.stats));
  }
  const Family source_lag{"weir_source_lag_bytes", "gauge",
                          "Bytes a source's origin keeps for it that Kafka does not hold yet (a "
                          "replication slot's lag: the server's WAL end minus its confirmed position)."};
  w.family(source_lag);
  for (const auto& s : stages)
    if (s.stats.source_lag_bytes >= 0)
      w.sample(source_lag, s.key, true, double(s.stats.source_lag_bytes));
  const Family state{"weir_stage_state", "gauge",
                     "1 for the stage's current state (RUNNING, FINISHED, FAILED, ...)."};
  w.family(state);
  for (const auto& s : stages)
    w.sample(state, s.key, true, 1, {{"state", s.stats.state.empty() ? "UNKNOWN" : s.stats.state}});
  const Family partition_lag{"weir_consumer_records_lag", "gauge",
                             "Records behind the high watermark of one assigned partition (consumers; "
                             "Kafka's consumer records-lag)."};
  w.family(partition_lag);
  for (const auto& s : stages)
    for (const auto& p : s.stats.partition_lags)
      if (p.lag >= 0)
        w.sample(partition_lag, s.key, true, double(p.lag),
                 {{"topic", p.topic}, {"partition", std::to_string(p.partition)}});

  std::vector<TaskTotals> tasks;
  for (const auto& s : stages) {
    StageKey task_key{s.key.connector, s.key.task, {}};
    if (tasks.empty() || tasks.back().key != task_key)
      tasks.push_back({task_key});
    auto& t = tasks.back();
    const auto& st = s.stats;
    t.errors += double(st.errors);
    switch (s.role) {
      case StageRole::sink_reader:
        t.sink = true;
        t.read += double(st.records_out);
        t.commits += double(st.commits);
        t.commit_ns += double(st.commit_ns);
        break;
      case StageRole::sink_writer:
        t.dead_lettered += double(st.dead_lettered);
        t.sent += double(st.records_in);
        t.put_batches += double(st.batches_in);
        t.put_cpu_ns += double(st.cpu_ns);
        break;
      case StageRole::source_reader:
        t.source = true;
        t.polled += double(st.records_out);
        break;
      case StageRole::source_writer:
        t.written += double(st.records_out);
        break;
      case StageRole::transform:
        break;
    }
  }
  auto task_family = [&](const Family& f, bool (*applies)(const TaskTotals&),
                         double (*get)(const TaskTotals&)) {
    w.family(f);
    for (const auto& t : tasks)
      if (applies(t))
        w.sample(f, t.key, false, get(t));
  };
  auto is_sink = [](const TaskTotals& t) { return t.sink; };
  auto is_source = [](const TaskTotals& t) { return t.source; };
  task_family({"kafka_connect_sink_task_sink_record_read_total", "counter",
               "Records read from Kafka by the sink task (Kafka Connect: sink-record-read-total)."},
              is_sink, [](const TaskTotals& t) { return t.read; });
  task_family({"kafka_connect_sink_task_sink_record_send_total", "counter",
               "Records handed to the sink writer after transformation (sink-record-send-total)."},
              is_sink, [](const TaskTotals& t) { return t.sent; });
  task_family({"kafka_connect_sink_task_put_batch_avg_time_ms", "gauge",
               "Average CPU time of a put into the sink writer, ms (put-batch-avg-time-ms)."},
              is_sink, [](const TaskTotals& t) {
                return t.put_batches > 0 ? t.put_cpu_ns / t.put_batches / 1e6 : 0.0;
              });
  task_family({"kafka_connect_sink_task_offset_commit_completion_total", "counter",
               "Offset commits answered by the broker (offset-commit-completion-total)."},
              is_sink, [](const TaskTotals& t) { return t.commits; });
  task_family({"kafka_connect_sink_task_offset_commit_avg_time_ms", "gauge",
               "Average time of an offset commit, request to answer, ms (offset-commit-avg-time-ms)."},
              is_sink, [](const TaskTotals& t) {
                return t.commits > 0 ? t.commit_ns / t.commits / 1e6 : 0.0;
              });
  task_family({"kafka_connect_source_task_source_record_poll_total", "counter",
               "Records polled by the source task (source-record-poll-total)."},
              is_source, [](const TaskTotals& t) { return t.polled; });
  task_family({"kafka_connect_source_task_source_record_write_total", "counter",
               "Records written to Kafka by the source task (source-record-write-total)."},
              is_source, [](const TaskTotals& t) { return t.written; });
  task_family({"kafka_connect_task_error_total_record_errors", "counter",
               "Record errors of the task (task-error-metrics total-record-errors)."},
              [](const TaskTotals&) { return true; }, [](const TaskTotals& t) { return t.errors; });
  task_family({"kafka_connect_task_error_deadletterqueue_produce_requests", "counter",
               "Records the sink task sent to its dead-letter queue (task-error-metrics "
               "deadletterqueue-produce-requests)."},
              [](const TaskTotals& t) { return t.sink; }, [](const TaskTotals& t) { return t.dead_lettered; });
  return out;
}

std::string render_interval_metrics(const std::vector<StageSnapshot>& stages,
                                    const std::map<StageKey, StageRates>& rates, const NodeFigures& node) {
  std::string out;
  Writer w{out};
  using RateGetter = double (*)(const StageRates&);
  struct RateSeries {
    Family family;
    RateGetter get;
  };
  static const RateSeries rate_series[] = {
    {{"weir_stage_busy_ratio", "gauge", "Busy wall time ÷ wall time over the last interval."},
     [](const StageRates& r) { return r.busy; }},
    {{"weir_stage_ns_per_record", "gauge", "CPU nanoseconds per record received over the last interval."},
     [](const StageRates& r) { return r.ns_per_record; }},
    {{"weir_stage_credit_wait_ratio", "gauge",
      "Part of the last interval the stage waited for its downstream's credit."},
     [](const StageRates& r) { return r.credit_wait; }},
  };
  for (const auto& series : rate_series) {
    w.family(series.family);
    for (const auto& s : stages) {
      auto r = rates.find(s.key);
      w.sample(series.family, s.key, true, r == rates.end() ? 0.0 : series.get(r->second));
    }
  }
  // Kafka Connect's rate metrics: a task's records out of one stage per second.
  struct TaskRate {
    Family family;
    StageRole role;
  };
  static const TaskRate task_rates[] = {
    {{"kafka_connect_sink_task_sink_record_read_rate", "gauge",
      "Records read from Kafka per second (sink-record-read-rate)."}, StageRole::sink_reader},
    {{"kafka_connect_sink_task_sink_record_send_rate", "gauge",
      "Records written by the sink per second (sink-record-send-rate)."}, StageRole::sink_writer},
    {{"kafka_connect_source_task_source_record_poll_rate", "gauge",
      "Records polled per second (source-record-poll-rate)."}, StageRole::source_reader},
    {{"kafka_connect_source_task_source_record_write_rate", "gauge",
      "Records written to Kafka per second (source-record-write-rate)."}, StageRole::source_writer},
  };
  for (const auto& series : task_rates) {
    w.family(series.family);
    for (const auto& s : stages)
      if (s.role == series.role) {
        auto r = rates.find(s.key);
        w.sample(series.family, s.key, false, r == rates.end() ? 0.0 : r->second.records_out_per_sec);
      }
  }
  const Family latency{"weir_task_poll_to_ack_seconds", "gauge",
                       "Per record, from the poll that read it to its ack (a sink: written durably; a "
                       "source: acknowledged by Kafka), over the last interval with acks."};
  w.family(latency);
  for (const auto& s : stages) {
    auto r = rates.find(s.key);
    if (r == rates.end() || (s.role != StageRole::sink_reader && s.role != StageRole::source_writer)
        || s.stats.poll_to_ack.counts.empty())
      continue;
    w.sample(latency, s.key, false, r->second.poll_to_ack_p50, {{"quantile", "0.5"}});
    w.sample(latency, s.key, false, r->second.poll_to_ack_p99, {{"quantile", "0.99"}});
  }
  const Family busy{"weir_scheduler_thread_busy_ratio", "gauge",
                    "A scheduler thread's time running actors ÷ wall time, last interval."};
  w.family(busy);
  for (const auto& t : node.scheduler)
    w.sample(busy, t.busy, "thread", std::to_string(t.id));
  const Family threads{"weir_scheduler_threads", "gauge", "Threads of the actor scheduler."};
  w.family(threads);
  w.sample(threads, double(node.scheduler.size()));
  const Family queue{"weir_scheduler_run_queue", "gauge", "Actors ready to run, waiting for a scheduler thread."};
  w.family(queue);
  w.sample(queue, double(node.run_queue));
  const Family group_cpu{"weir_threads_cpu_ratio", "gauge", "CPU cores used by a group of threads, last interval."};
  w.family(group_cpu);
  for (const auto& g : node.process.groups)
    w.sample(group_cpu, g.cpu, "group", g.group);
  const Family group_count{"weir_threads", "gauge", "Threads in a group."};
  w.family(group_count);
  for (const auto& g : node.process.groups)
    w.sample(group_count, g.count, "group", g.group);
  const Family cpu{"weir_process_cpu_ratio", "gauge", "CPU cores used by the process, last interval."};
  w.family(cpu);
  w.sample(cpu, node.process.cpu);
  const Family rss{"weir_process_resident_memory_bytes", "gauge", "Resident memory of the process."};
  w.family(rss);
  w.sample(rss, double(node.process.rss_bytes));
  const Family fds{"weir_process_open_fds", "gauge", "Open file descriptors of the process."};
  w.family(fds);
  w.sample(fds, double(node.process.fds));
  const Family sockets{"weir_process_open_connections", "gauge", "Open sockets of the process."};
  w.family(sockets);
  w.sample(sockets, double(node.process.connections));
  return out;
}

std::string render_worker_metrics(const WorkerFigures& worker) {
  std::string out;
  Writer w{out};
  auto gauge = [&](const char* name, const char* help, double value) {
    const Family f{name, "gauge", help};
    w.family(f);
    w.sample(f, value);
  };
  gauge("kafka_connect_worker_connector_count", "Connectors on this worker (connector-count).",
        double(worker.connectors));
  gauge("kafka_connect_worker_task_count", "Tasks running on this worker (task-count).", double(worker.tasks));
  gauge("kafka_connect_worker_rebalance_epoch",
        "The generation of the assignment this worker runs (epoch; 0 standalone).", double(worker.generation));
  gauge("kafka_connect_worker_rebalance_completed_rebalances_total",
        "Assignments this worker applied (completed-rebalances-total).", double(worker.rebalances));
  gauge("kafka_connect_worker_rebalance_time_since_last_rebalance_ms",
        "Time since this worker applied its last assignment (time-since-last-rebalance-ms; -1 none).",
        worker.since_last_rebalance_ms);
  return out;
}

void RateSampler::sample(const std::vector<StageSnapshot>& stages, std::chrono::steady_clock::time_point now,
                         uint64_t now_ns) {
  for (const auto& s : stages) {
    auto [it, fresh] = rates_.try_emplace(s.key, Rate{s.stats, now});
    auto& r = it->second;
    double dt = std::chrono::duration<double>(now - r.at).count();
    if (fresh || dt < 1.0)
      continue;
    // A batch still in hand counts up to now, so the next interval gets only the rest.
    auto stats = s.stats;
    stats.busy_ns = busy_at(stats, now_ns);
    stats.busy_since_ns = 0;
    auto before = r.rates;
    r.rates = rates_between(r.last, stats, dt);
    // A trickle acks now and then: between acks, the latency of the last ones stays shown.
    if (stats.poll_to_ack.since(r.last.poll_to_ack).total() == 0) {
      r.rates.poll_to_ack_p50 = before.poll_to_ack_p50;
      r.rates.poll_to_ack_p99 = before.poll_to_ack_p99;
    }
    r.last = stats;
    r.at = now;
  }
}

bool RateSampler::due(const StageKey& key, std::chrono::steady_clock::time_point now) const {
  auto it = rates_.find(key);
  return it == rates_.end() || now - it->second.at >= std::chrono::seconds{1};
}

StageRates RateSampler::of(const StageKey& key) const {
  auto it = rates_.find(key);
  return it == rates_.end() ? StageRates{} : it->second.rates;
}

std::map<StageKey, StageRates> RateSampler::all() const {
  std::map<StageKey, StageRates> out;
  for (const auto& [key, r] : rates_)
    out.emplace(key, r.rates);
  return out;
}

void RateSampler::forget(const std::string& connector) {
  std::erase_if(rates_, [&](const auto& r) { return r.first.connector == connector; });
}

} // namespace weir::runtime::metrics
