// `weir demo`: the quickstart on the embedded Kafka (librdkafka's mock cluster),
// with no external service. A DatagenConnector task (user-events quickstart: poller
// -> producer actor, credit-linked) fills a topic; a JdbcSinkConnector task
// (consumer -> one actor per SMT -> sink writer) reads them back, transforms them
// and writes them into an SQLite table, with the offsets in the same transaction.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <caf/actor_system.hpp>
#include <caf/after.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <spdlog/spdlog.h>

#include "actors/messages.hpp"
#include "actors/sink_task_actor.hpp"
#include "actors/source_task_actor.hpp"
#include "cli/commands.hpp"
#include "engine/connector_registry.hpp"
#include "runtime/kafka/admin.hpp"
#include "runtime/kafka/embedded_cluster.hpp"

namespace weir::cli {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct Options {
  uint64_t records = 100'000;
  int partitions = 8;
  std::string output_dir = "weir-demo";
  std::string bootstrap = "embedded";
};

actors::StageStats ask(caf::scoped_actor& self, const caf::actor& who, actors::StageStats last) {
  self->request(who, 1s, actors::stats_atom::value).receive([&](const actors::StageStats& s) { last = s; },
                                                    [](const caf::error&) {});
  return last;
}

int run_demo(const Options& opt) {
  spdlog::set_level(spdlog::level::warn);
  namespace fs = std::filesystem;
  fs::create_directories(opt.output_dir);
  auto output = (fs::path{opt.output_dir} / "weir-demo.db").string();
  for (auto suffix : {"", "-wal", "-shm"})
    fs::remove(output + suffix);

  std::printf("weir demo: DatagenConnector (%llu user events) -> Kafka topic (%d partitions) -> consumer actor"
              " -> InsertField actor -> MaskField actor -> JdbcSinkConnector actor -> %s\n",
              static_cast<unsigned long long>(opt.records), opt.partitions, output.c_str());
  const std::string topic = "user-events";
  const runtime::kafka::Properties client{{"bootstrap.servers", opt.bootstrap}};
  if (runtime::kafka::EmbeddedCluster::is_embedded(opt.bootstrap)) {
    auto& cluster = runtime::kafka::EmbeddedCluster::instance();
    cluster.create_topic(topic, opt.partitions);
    std::printf("embedded Kafka (librdkafka mock cluster, in memory) at %s\n",
                cluster.bootstrap().c_str());
  } else {
    runtime::kafka::create_topics(client, {{topic, opt.partitions, 1}});
    std::printf("Kafka at %s\n", opt.bootstrap.c_str());
  }

  caf::actor_system_config cfg;
  actors::announce_types(cfg);
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};

  std::map<std::string, std::string> worker{
    {"bootstrap.servers", opt.bootstrap},
    {"key.converter", "org.apache.kafka.connect.storage.StringConverter"},
    {"value.converter", "org.apache.kafka.connect.json.JsonConverter"},
    {"value.converter.schemas.enable", "false"},
  };

  // The sink connector, exactly as `weir standalone` runs it: a JDBC sink
  // with two SMTs; its task is consumer -> InsertField -> MaskField -> writer actors.
  std::map<std::string, std::string> connector{
    {"name", "demo-sink"},
    {"connector.class", "JdbcSinkConnector"},
    {"topics", topic},
    {"connection.url", "jdbc:sqlite:" + output},
    {"table.name.format", "user_events"},
    {"auto.create", "true"},
    {"insert.mode", "upsert"},
    {"pk.mode", "record_value"},
    {"pk.fields", "event_id"},
    {"transforms", "addsrc,mask"},
    {"transforms.addsrc.type", "org.apache.kafka.connect.transforms.InsertField$Value"},
    {"transforms.addsrc.static.field", "pipeline"},
    {"transforms.addsrc.static.value", "weir-demo"},
    {"transforms.mask.type", "org.apache.kafka.connect.transforms.MaskField$Value"},
    {"transforms.mask.fields", "email"},
  };
  actors::SinkTaskSpec spec;
  spec.connector = "demo-sink";
  spec.plugin = engine::find_sink("JdbcSinkConnector");
  spec.config = connector;
  spec.worker_config = worker;
  auto task = actors::spawn_sink_task(sys, spec);
  auto consumer = task.first();
  auto sink = task.last();
  // The consumer joins its group first, so it reads while the loader writes.
  auto joined = Clock::now() + 30s;
  while (Clock::now() < joined && ask(self, consumer, {}).partitions <= 0)
    std::this_thread::sleep_for(100ms);

  // Loader: a DatagenConnector task, exactly as `weir standalone` runs one.
  actors::SourceTaskSpec loader_spec;
  loader_spec.connector = "demo-datagen";
  loader_spec.plugin = engine::find_source("DatagenConnector");
  loader_spec.config = {{"name", "demo-datagen"},
                        {"connector.class", "DatagenConnector"},
                        {"kafka.topic", topic},
                        {"quickstart", "user-events"},
                        {"iterations", std::to_string(opt.records)},
                        {"max.interval", "0"},
                        {"random.seed", "42"},
                        // The embedded cluster keeps only the newest few MB of each
                        // partition: one request at a time keeps the loader within
                        // reach of the consumer.
                        {"producer.override.max.in.flight.requests.per.connection", "1"},
                        {"producer.override.batch.size", "16384"}};
  loader_spec.worker_config = worker;
  loader_spec.observer = self;
  auto loader = actors::spawn_source_task(sys, loader_spec);
  auto producer = loader.last();

  auto start = Clock::now();
  actors::StageStats prod, cons, snk;
  bool loaded = false;
  uint64_t last_written = 0;
  auto last_tick = start;
  auto deadline = start + 300s;
  int stalled = 0; // seconds with everything loaded and read, yet records missing
  while (snk.records_in < opt.records && Clock::now() < deadline && stalled < 5) {
    self->receive([&](actors::done_atom, const actors::StageStats& s) { prod = s; loaded = true; },
                  caf::after(1s) >> [] {});
    if (!loaded)
      prod = ask(self, producer, prod);
    cons = ask(self, consumer, cons);
    snk = ask(self, sink, snk);
    auto now = Clock::now();
    double dt = std::chrono::duration<double>(now - last_tick).count();
    // The consumer's own lag (records behind the high watermarks) once it knows it.
    int64_t lag = cons.lag >= 0 ? cons.lag
                                : static_cast<int64_t>(prod.records_out) - static_cast<int64_t>(snk.records_in);
    std::printf("  [%5.1fs] produced %9llu | consumed %9llu | rows written %9llu | %9.0f rec/s |"
                " consumer lag %lld | in flight to sink %u batches\n",
                std::chrono::duration<double>(now - start).count(),
                static_cast<unsigned long long>(prod.records_out),
                static_cast<unsigned long long>(cons.records_out),
                static_cast<unsigned long long>(snk.records_out),
                (snk.records_in - last_written) / (dt > 0 ? dt : 1),
                static_cast<long long>(lag), cons.out_in_flight.batches);
    std::fflush(stdout);
    last_written = snk.records_in;
    last_tick = now;
    if (snk.errors > 0 || cons.errors > 0 || prod.errors > 0)
      break;
    stalled = loaded && lag == 0 && snk.records_in == last_written ? stalled + 1 : 0;
  }
  double secs = std::chrono::duration<double>(Clock::now() - start).count();
  for (const auto& stage : task.stages)
    self->send_exit(stage, caf::exit_reason::user_shutdown);
  for (const auto& stage : loader.stages)
    self->send_exit(stage, caf::exit_reason::user_shutdown);
  task.stages.clear(); // the actor system waits for detached actors' handles to go
  loader.stages.clear();

  bool ok = snk.records_in == opt.records && prod.errors == 0 && snk.errors == 0;
  std::printf("\nsummary\n");
  std::printf("  records produced    %llu (delivery errors: %llu)\n",
              static_cast<unsigned long long>(prod.records_out),
              static_cast<unsigned long long>(prod.errors));
  std::printf("  rows written        %llu to table user_events in %s\n",
              static_cast<unsigned long long>(snk.records_out), output.c_str());
  std::printf("  elapsed             %.2f s (%.0f records/s end to end)\n", secs,
              secs > 0 ? snk.records_in / secs : 0.0);
  std::printf("  peak in flight      consumer->first stage %u batches / %llu bytes (credit %u / %llu)\n",
              cons.out_max_in_flight.batches,
              static_cast<unsigned long long>(cons.out_max_in_flight.bytes),
              cons.out_capacity.batches, static_cast<unsigned long long>(cons.out_capacity.bytes));
  if (!ok) {
    std::fprintf(stderr, "weir demo: FAILED: %s\n",
                 !snk.last_error.empty()    ? snk.last_error.c_str()
                 : !prod.last_error.empty() ? prod.last_error.c_str()
                 : stalled >= 5 ? "records are missing: the embedded Kafka keeps only the newest "
                                  "few MB of each partition, and the loader ran too far ahead of "
                                  "the sink (use fewer --records, more --partitions, or a real "
                                  "broker with --bootstrap-servers)"
                                : "not every record arrived in time");
    return 1;
  }
  std::printf("  look at it:         sqlite3 %s 'SELECT * FROM user_events LIMIT 3'\n",
              output.c_str());
  return 0;
}

} // namespace

Runner add_demo(CLI::App& app) {
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand("demo", "Run the quickstart pipeline on the embedded Kafka");
  sub->add_option("--records", opt->records, "Number of events to generate")->capture_default_str();
  sub->add_option("--partitions", opt->partitions, "Partitions of the demo topic")
    ->capture_default_str();
  sub->add_option("--output-dir", opt->output_dir, "Where the sink writes")->capture_default_str();
  sub->add_option("--bootstrap-servers", opt->bootstrap,
                  "Kafka to use; 'embedded' is the in-process mock cluster")
    ->capture_default_str();
  return [opt] { return run_demo(*opt); };
}

} // namespace weir::cli
