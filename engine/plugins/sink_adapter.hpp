// A plugin's sink as the pipeline's SinkWriter: a weir::Sink (open at construction,
// put + flush per batch, close at destruction) or a weir::AsyncSink (put with a
// completion, up to max.in.flight.batches at once).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/convert/json_converter.hpp"
#include "engine/pipeline/sink_pipeline.hpp"
#include "engine/plugins/loader.hpp"
#include "weir/sink.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::plugins {

/// A batch's live records as a plugin reads them: SinkRecords over the decoded
/// records, with their JSON text only when the plugin registered SinkInput::JsonText.
/// Its views point into the DecodedBatch and into itself: it lives as long as the
/// plugin may read them.
class PreparedBatch {
public:
  PreparedBatch(const runtime::data::DecodedBatch& batch, SinkInput input,
                runtime::convert::JsonConverter& json);
  PreparedBatch(const PreparedBatch&) = delete;
  PreparedBatch& operator=(const PreparedBatch&) = delete;

  SinkBatch& records() noexcept { return records_; }
  /// The DecodedBatch index of the plugin's record `i`, or -1 when `i` is out of range.
  int64_t decoded_index(size_t i) const noexcept {
    return i < index_.size() ? static_cast<int64_t>(index_[i]) : -1;
  }

private:
  std::string text_; // every key, value and header value as JSON (JsonText only)
  std::vector<SinkHeader> headers_;
  std::vector<uint32_t> index_;
  SinkBatch records_;
};

/// Builds the writer for a plugin's sink: SinkAdapter or AsyncSinkAdapter. Throws
/// ConfigError for bad keys, and what the plugin's open() throws.
std::unique_ptr<runtime::connector_api::SinkWriter> make_sink_writer(
    const LoadedSink& sink, const std::map<std::string, std::string>& config,
    const std::string& connector, int task);

class SinkAdapter final : public runtime::connector_api::SinkWriter {
public:
  /// Makes the plugin's Sink and opens it with `config` parsed by the plugin's
  /// definition. Throws ConfigError for bad keys, and what open() throws.
  SinkAdapter(const LoadedSink& sink, const std::map<std::string, std::string>& config,
              const std::string& connector, int task);
  /// Calls close(); an exception from it is logged.
  ~SinkAdapter() override;
  SinkAdapter(const SinkAdapter&) = delete;
  SinkAdapter& operator=(const SinkAdapter&) = delete;

  /// Prepares the batch's live records, then put() and flush(). A record the sink
  /// fails becomes a TaskPut record error for the error policy.
  void write(runtime::data::DecodedBatch& batch) override;
  std::vector<runtime::kafka::TopicPartitionOffset> stored_offsets() override;

private:
  const LoadedSink& plugin_;
  std::unique_ptr<Sink> sink_;
  runtime::convert::JsonConverter json_;
};

class AsyncSinkAdapter final : public runtime::connector_api::AsyncSinkWriter {
public:
  /// As SinkAdapter's; also reads max.in.flight.batches.
  AsyncSinkAdapter(const LoadedSink& sink, const std::map<std::string, std::string>& config,
                   const std::string& connector, int task);
  /// Calls close() (which stops the plugin's outstanding writes); logged if it throws.
  ~AsyncSinkAdapter() override;
  AsyncSinkAdapter(const AsyncSinkAdapter&) = delete;
  AsyncSinkAdapter& operator=(const AsyncSinkAdapter&) = delete;

  uint32_t max_in_flight() const noexcept override { return max_in_flight_; }
  void start(const runtime::data::DecodedBatch& batch,
             std::function<void(runtime::connector_api::WriteOutcome)> done) override;
  std::string_view class_name() const noexcept override { return plugin_.descriptor.class_name; }
  /// Starts the batch and waits for it: a TaskPut record error per rejected record,
  /// an exception for a failed batch.
  void write(runtime::data::DecodedBatch& batch) override;
  std::vector<runtime::kafka::TopicPartitionOffset> stored_offsets() override;

private:
  const LoadedSink& plugin_;
  std::unique_ptr<AsyncSink> sink_;
  runtime::convert::JsonConverter json_;
  uint32_t max_in_flight_ = 1;
};

} // namespace weir::engine::plugins
