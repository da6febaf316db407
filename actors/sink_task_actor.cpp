#include "actors/sink_task_actor.hpp"

#include <algorithm>
#include <atomic>

#include "actors/async_sink_stage.hpp"
#include "actors/stage.hpp"
#include "engine/pipeline/connector_config.hpp"
#include "engine/pipeline/sink_pipeline.hpp"
#include "engine/pipeline/source_config.hpp"
#include "transforms/chain.hpp"

namespace weir::actors {

namespace {

using namespace runtime;
using namespace engine;

std::unique_ptr<convert::Converter> make_converter(const SinkTaskSpec& spec, bool is_key) {
  return pipeline::task_converter(spec.config, spec.worker_config, is_key);
}

kafka::Properties client_props(const SinkTaskSpec& spec, const std::string& kind) {
  return pipeline::task_client_props(spec.config, spec.worker_config, kind);
}

// Each task's consumer prefetches (kafka::Consumer's default: 20,000 records), so at
// tasks.max=8 a PostgreSQL sink held 160,000 records, half of its peak RSS. Tasks
// sharing a topic each need less to keep the pace, so a connector's tasks share
// about 80,000: 20,000 each up to four tasks, down to 10,000 at eight and more.
// Measured (bench/results/postgres.md, 8 partitions): at 8 tasks 10,000 kept the
// pace of 20,000 in 70% of the memory, and 5,000 was 25% slower; at 4 tasks 10,000
// took twice as long as 20,000. consumer.queued.min.messages still sets it.
//
// The process's sink tasks also share a budget of 160,000, which leaves a process
// with one connector of up to 16 tasks as it was: with hundreds of connectors, their
// prefetched records held most of the peak RSS, and less is also faster there
// (bench/results/many_connectors.md). Read when a task starts, down to 1,000.
std::atomic<int> live_sink_tasks{0};

std::string prefetch_records(int tasks) {
  int per_connector = std::clamp(80000 / std::max(tasks, 1), 10000, 20000);
  int per_process = std::max(160000 / (live_sink_tasks.load() + 1), 1000); // with this one
  return std::to_string(std::min(per_connector, per_process));
}

/// Counts the task among the live ones for as long as its reader exists.
std::shared_ptr<pipeline::TopicReader> counted(std::shared_ptr<pipeline::TopicReader> reader) {
  ++live_sink_tasks;
  auto* raw = reader.get();
  return {raw, [reader = std::move(reader)](pipeline::TopicReader*) mutable {
            reader.reset();
            --live_sink_tasks;
          }};
}

} // namespace

SinkTaskActors spawn_sink_task(caf::actor_system& sys, const SinkTaskSpec& spec) {
  auto settings = pipeline::parse_sink_settings(spec.config, spec.plugin->definition());
  auto policy = std::make_shared<pipeline::ErrorPolicy>(settings.config, spec.connector, spec.task,
                                                        client_props(spec, "producer"));
  auto chain = transforms::Chain::from_config(spec.config);
  auto writer = spec.plugin->make_writer(spec.config, spec.connector, spec.task);
  convert::RecordCodec codec{make_converter(spec, true), make_converter(spec, false),
                             pipeline::task_header_converter(spec.config, spec.worker_config)};

  pipeline::TopicReader::Options consumer;
  consumer.consumer = client_props(spec, "consumer");
  consumer.consumer.try_emplace("queued.min.messages", prefetch_records(spec.tasks));
  consumer.consumer["group.id"] = "connect-" + spec.connector; // Kafka Connect's naming
  consumer.consumer.try_emplace("client.id", "connector-consumer-" + spec.connector + "-"
                                               + std::to_string(spec.task));
  consumer.topics = settings.topics;
  if (!spec.group_instance_id.empty())
    consumer.consumer.try_emplace("group.instance.id", spec.group_instance_id);
  else
    consumer.join_gate = spec.join_gate; // see JoinGate for why static members are not gated
  consumer.start_offsets = writer->stored_offsets(); // exactly-once sinks resume there
  consumer.read_before_settled = writer->exactly_once();
  auto kafka = counted(std::make_shared<pipeline::TopicReader>(consumer));

  using runtime::metrics::StageRole;
  auto cell = [&](const std::string& stage, StageRole role) {
    return spec.metrics ? spec.metrics->cell({spec.connector, spec.task, stage}, role) : nullptr;
  };

  // Spawned back to front: each stage needs its downstream.
  SinkTaskActors task;
  std::string prefix = spec.connector + "-" + std::to_string(spec.task) + "/";
  const bool timed = pipeline::stage_timing_enabled(spec.worker_config);
  if (dynamic_cast<runtime::connector_api::AsyncSinkWriter*>(writer.get())) {
    // Its credit is its in-flight bound: max.in.flight.batches batches.
    std::unique_ptr<runtime::connector_api::AsyncSinkWriter> async{static_cast<runtime::connector_api::AsyncSinkWriter*>(writer.release())};
    AsyncSinkSpec sink{prefix + "sink", std::make_shared<pipeline::AsyncSinkLogic>(std::move(async), policy),
                       spec.capacity.bytes, spec.observer, cell("sink", StageRole::sink_writer)};
    sink.timed = timed;
    task.stages.push_back(spawn_async_sink(sys, std::move(sink)));
  } else {
    DecodedStageSpec sink{prefix + "sink",
                          std::make_shared<pipeline::SinkWriterLogic>(std::move(writer), policy),
                          {}, spec.capacity, spec.observer};
    sink.detached = true; // database and file writes block
    sink.timed = timed;
    sink.cell = cell("sink", StageRole::sink_writer);
    task.stages.push_back(spawn_stage(sys, std::move(sink)));
  }
  task.names.push_back("sink");
  for (size_t i = chain.size(); i-- > 0;) {
    DecodedStageSpec smt{prefix + chain.name(i),
                         std::make_shared<pipeline::TransformLogic>(chain.stage(i), policy),
                         task.stages.back(), spec.capacity, {}};
    smt.cell = cell(chain.name(i), StageRole::transform);
    smt.timed = timed;
    task.stages.push_back(spawn_stage(sys, std::move(smt)));
    task.names.push_back(chain.name(i));
  }
  DecodedFeedSpec feed{prefix + "consumer",
                       std::make_shared<pipeline::ConvertingReader>(kafka, std::move(codec),
                                                                    policy),
                       task.stages.back(), spec.capacity.bytes / 2};
  feed.role = "the consumer of sink task " + spec.connector + "-" + std::to_string(spec.task);
  feed.idle_delay = std::chrono::milliseconds{0}; // an empty poll already waited
  feed.detached = true;
  feed.timed = timed;
  feed.cell = cell("consumer", StageRole::sink_reader);
  task.stages.push_back(spawn_feed(sys, std::move(feed)));
  task.names.push_back("consumer");
  std::reverse(task.stages.begin(), task.stages.end());
  std::reverse(task.names.begin(), task.names.end());
  return task;
}

} // namespace weir::actors
