#include "actors/source_task_actor.hpp"

#include "actors/producer_stage.hpp"
#include "actors/stage.hpp"
#include "engine/pipeline/producer_logic.hpp"
#include "engine/pipeline/sink_pipeline.hpp"
#include "engine/pipeline/source_config.hpp"
#include "engine/pipeline/source_pipeline.hpp"
#include "transforms/chain.hpp"

namespace weir::actors {

using namespace runtime;
using namespace engine;

SourceTaskActors spawn_source_task(caf::actor_system& sys, const SourceTaskSpec& spec) {
  auto settings = pipeline::parse_source_settings(spec.config, spec.plugin->definition());
  auto producer_props = pipeline::task_client_props(spec.config, spec.worker_config, "producer");
  producer_props.try_emplace("client.id", "connector-producer-" + spec.connector + "-"
                                            + std::to_string(spec.task));
  auto policy = std::make_shared<pipeline::ErrorPolicy>(settings.config, spec.connector, spec.task,
                                                        producer_props);
  auto chain = transforms::Chain::from_config(spec.config);
  std::unique_ptr<pipeline::TopicCreator> topics;
  if (auto creation = pipeline::TopicCreation::parse(spec.config,
                                                     pipeline::topic_creation_enabled(spec.worker_config)))
    topics = std::make_unique<pipeline::TopicCreator>(
      std::move(*creation), pipeline::task_client_props(spec.config, spec.worker_config, "admin"));
  auto encoder = std::make_shared<pipeline::SourceEncoder>(
    convert::RecordCodec{pipeline::task_converter(spec.config, spec.worker_config, true),
                         pipeline::task_converter(spec.config, spec.worker_config, false),
                         pipeline::task_header_converter(spec.config, spec.worker_config)},
    policy, std::move(topics));
  auto task = spec.plugin->make_task(spec.config, spec.connector, spec.task);
  task->start(spec.stored_offsets);
  auto offsets = std::make_shared<runtime::connector_api::SourceOffsets>(spec.stored_offsets);

  pipeline::ProducerTransactions transactions;
  if (!spec.transactional_id.empty()) {
    producer_props["transactional.id"] = spec.transactional_id;
    producer_props["enable.idempotence"] = "true";
    transactions.enabled = true;
    transactions.offsets_topic = spec.offsets_topic;
    transactions.connector = spec.connector;
    if (settings.boundary == pipeline::TransactionBoundary::Interval)
      transactions.interval = settings.boundary_interval;
  }
  ProducerSpec producer{spec.connector + "-" + std::to_string(spec.task) + "/producer",
                        std::make_shared<pipeline::ProducerLogic>(producer_props, encoder, offsets,
                                                                  std::move(transactions)),
                        spec.capacity, spec.observer};

  using runtime::metrics::StageRole;
  auto cell = [&](const std::string& stage, StageRole role) {
    return spec.metrics ? spec.metrics->cell({spec.connector, spec.task, stage}, role) : nullptr;
  };
  producer.cell = cell("producer", StageRole::source_writer);

  // Spawned back to front: each stage needs its downstream.
  SourceTaskActors out;
  const bool timed = pipeline::stage_timing_enabled(spec.worker_config);
  out.offsets = offsets;
  std::string prefix = spec.connector + "-" + std::to_string(spec.task) + "/";
  out.stages.push_back(spawn_producer(sys, std::move(producer)));
  out.names.push_back("producer");
  for (size_t i = chain.size(); i-- > 0;) {
    DecodedStageSpec smt{prefix + chain.name(i),
                         std::make_shared<pipeline::TransformLogic>(chain.stage(i), policy),
                         out.stages.back(), spec.capacity, {}};
    smt.cell = cell(chain.name(i), StageRole::transform);
    smt.timed = timed;
    out.stages.push_back(spawn_stage(sys, std::move(smt)));
    out.names.push_back(chain.name(i));
  }
  auto kind = std::string{task->kind()};
  DecodedFeedSpec feed{prefix + kind,
                       std::make_shared<pipeline::SourcePoller>(std::move(task), offsets, policy),
                       out.stages.back(), spec.capacity.bytes / 2};
  feed.role = "the " + kind + " poller of source task " + spec.connector + "-"
              + std::to_string(spec.task);
  feed.detached = true; // file reads and database queries block
  feed.timed = timed;
  feed.cell = cell("poller", StageRole::source_reader);
  out.stages.push_back(spawn_feed(sys, std::move(feed)));
  out.names.push_back("poller");
  std::reverse(out.stages.begin(), out.stages.end());
  std::reverse(out.names.begin(), out.names.end());
  return out;
}

} // namespace weir::actors
