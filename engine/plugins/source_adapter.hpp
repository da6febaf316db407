// A plugin's weir::SourceTask as the pipeline's SourceTask.
//
// The plugin builds its records' values in an arena of the adapter's (a fresh one
// per poll); the raw batch carries only each record's topic, partition and
// timestamp, and decode() hands the values to the decoded batch as they are, keeping
// that arena alive with the batch: no copy and no JSON text between the plugin and
// the converters. Source partitions and offsets are rendered as canonical JSON (keys
// sorted), which is how weir stores every source's offsets.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/plugins/loader.hpp"
#include "runtime/connector_api/source_task.hpp"
#include "weir/source.hpp"
#include "engine/runtime_names.hpp"

namespace weir::engine::plugins {

/// `map` as canonical JSON text: keys sorted, values as Kafka Connect's JsonConverter
/// writes them. Throws std::invalid_argument naming a key whose value is not a
/// primitive (or a repeated key).
std::string source_map_json(const SourceMap& map);

/// Parses JSON text stored for a partition or offset into a SourceMap whose strings
/// live in `arena`. Throws std::runtime_error for text that is not a JSON object.
SourceMap parse_source_map(std::string_view json, data::Arena& arena);

/// Whether two partitions name the same thing: the same keys with equal values, in
/// any order (integers compared by value whatever their width).
bool same_source_map(const SourceMap& a, const SourceMap& b) noexcept;

class SourceAdapter final : public runtime::connector_api::SourceTask {
public:
  /// Makes the plugin's task; `config` is parsed by the plugin's definition (throws
  /// ConfigError for a bad key).
  SourceAdapter(const LoadedSource& source, const std::map<std::string, std::string>& config,
                const std::string& connector, int task);
  /// Calls stop() if start() succeeded; an exception from it is logged.
  ~SourceAdapter() override;
  SourceAdapter(const SourceAdapter&) = delete;
  SourceAdapter& operator=(const SourceAdapter&) = delete;

  void start(const runtime::connector_api::OffsetMap& stored) override;
  Status poll(runtime::connector_api::SourceRecords& out) override;
  runtime::connector_api::Form key_form() const noexcept override { return runtime::connector_api::Form::Custom; }
  runtime::connector_api::Form value_form() const noexcept override { return runtime::connector_api::Form::Custom; }
  void decode(runtime::data::DecodedBatch& batch, uint32_t index) override;
  void committed_batches(uint64_t count) override;
  void commit(const runtime::connector_api::OffsetMap& committed) override;
  std::string idle_reason() const override;
  std::string_view kind() const noexcept override { return plugin_.kind; }

private:
  class Output;
  class Reader;

  const LoadedSource& plugin_;
  Config config_;
  SourceContext context_;
  std::unique_ptr<weir::SourceTask> task_;
  bool started_ = false;
  std::unique_ptr<Reader> stored_;       ///< what start() was given; lives with the task
  std::shared_ptr<data::Arena> arena_;   ///< the last poll's values; its batch keeps it too
  std::vector<SourceRecord> polled_;     ///< the last poll's records, until decode()
  std::deque<uint64_t> uncommitted_;     ///< records per batch not yet committed, in order
  uint64_t batches_committed_ = 0;
};

} // namespace weir::engine::plugins
