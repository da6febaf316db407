// A plugin's weir::Sink as the pipeline's SinkWriter: open at construction,
// put + flush per batch, close at destruction.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/convert/json_converter.hpp"
#include "engine/pipeline/sink_pipeline.hpp"
#include "engine/plugins/loader.hpp"
#include "weir/sink.hpp"

namespace weir::plugins {

class SinkAdapter final : public runtime::pipeline::SinkWriter {
public:
  /// Makes the plugin's Sink and opens it with `config` parsed by the plugin's
  /// definition. Throws ConfigError for bad keys, and what open() throws.
  SinkAdapter(const LoadedSink& sink, const std::map<std::string, std::string>& config,
              const std::string& connector, int task);
  /// Calls close(); an exception from it is logged.
  ~SinkAdapter() override;
  SinkAdapter(const SinkAdapter&) = delete;
  SinkAdapter& operator=(const SinkAdapter&) = delete;

  /// Renders the batch's live records as JSON text, then put() and flush(). A
  /// record the sink fails becomes a TaskPut record error for the error policy.
  void write(runtime::data::DecodedBatch& batch) override;
  std::vector<runtime::kafka::TopicPartitionOffset> stored_offsets() override;

private:
  const LoadedSink& plugin_;
  std::unique_ptr<Sink> sink_;
  runtime::convert::JsonConverter json_;
  std::string text_; // every key, value and header value of the batch
};

} // namespace weir::plugins
