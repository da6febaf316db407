#include "engine/plugins/source_adapter.hpp"

#include <algorithm>
#include <stdexcept>

#include <spdlog/spdlog.h>

#include "engine/pipeline/source_config.hpp"
#include "runtime/convert/json_fast_decode.hpp"
#include "runtime/convert/json_text.hpp"
#include "runtime/data/decoded_batch.hpp"

namespace weir::engine::plugins {

namespace {

/// Runs a plugin call; a non-standard exception becomes a std::runtime_error naming
/// the plugin and the call, so the task fails with a message.
template <class F>
auto call(const LoadedSource& plugin, const char* what, F&& f) {
  try {
    return f();
  } catch (const std::exception&) {
    throw;
  } catch (...) {
    throw std::runtime_error("source " + plugin.descriptor.class_name + " (" + plugin.path
                             + ") threw a non-standard exception from " + what);
  }
}

void append_primitive(const std::string& key, const data::Value& v, std::string& out) {
  using data::Kind;
  switch (v.kind()) {
    case Kind::Null: out += "null"; return;
    case Kind::Boolean: out += v.as_bool() ? "true" : "false"; return;
    case Kind::Int8:
    case Kind::Int16:
    case Kind::Int32:
    case Kind::Int64: runtime::convert::append_int(v.as_int(), out); return;
    case Kind::Float32: runtime::convert::append_json_float(v.as_float32(), out); return;
    case Kind::Float64: runtime::convert::append_json_double(v.as_double(), out); return;
    case Kind::String: runtime::convert::append_json_string(v.as_string(), out); return;
    default:
      throw std::invalid_argument("source partition or offset key " + key + " has a value of kind "
                                  + std::string{data::to_string(v.kind())}
                                  + ": only null, boolean, numbers and strings can be stored");
  }
}

bool same_value(const data::Value& a, const data::Value& b) noexcept {
  if (a.is_integer() && b.is_integer())
    return a.as_int() == b.as_int();
  if (a.is_number() && b.is_number())
    return a.as_double() == b.as_double();
  return a == b;
}

std::vector<SourceOffset> parse_offsets(const runtime::connector_api::OffsetMap& stored, data::Arena& arena) {
  std::vector<SourceOffset> out;
  out.reserve(stored.size());
  for (const auto& [partition, offset] : stored)
    out.push_back({parse_source_map(partition, arena), parse_source_map(offset, arena)});
  return out;
}

} // namespace

std::string source_map_json(const SourceMap& map) {
  std::vector<const std::pair<std::string, data::Value>*> sorted;
  sorted.reserve(map.size());
  for (const auto& entry : map)
    sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->first < b->first; });
  std::string out = "{";
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i]->first == sorted[i - 1]->first)
      throw std::invalid_argument("source partition or offset key " + sorted[i]->first + " is given twice");
    if (i > 0)
      out += ',';
    runtime::convert::append_json_string(sorted[i]->first, out);
    out += ':';
    append_primitive(sorted[i]->first, sorted[i]->second, out);
  }
  out += '}';
  return out;
}

SourceMap parse_source_map(std::string_view json, data::Arena& arena) {
  // The decoder views the bytes it reads: give it a copy that lives in `arena`.
  thread_local runtime::convert::FastJsonDecoder decoder;
  auto v = decoder.decode(arena.copy(json), arena);
  if (v.kind() != data::Kind::Map)
    throw std::runtime_error("stored source partition or offset " + std::string{json} + " is not a JSON object");
  SourceMap out;
  out.reserve(v.size());
  for (const auto& e : v.entries())
    out.emplace_back(std::string{e.key.as_string()}, e.value);
  return out;
}

bool same_source_map(const SourceMap& a, const SourceMap& b) noexcept {
  if (a.size() != b.size())
    return false;
  for (const auto& [key, value] : a) {
    auto it = std::find_if(b.begin(), b.end(), [&](const auto& e) { return e.first == key; });
    if (it == b.end() || !same_value(value, it->second))
      return false;
  }
  return true;
}

/// The stored offsets start() hands the plugin; their strings live in its arena.
class SourceAdapter::Reader final : public OffsetReader {
public:
  explicit Reader(const runtime::connector_api::OffsetMap& stored) : offsets_(parse_offsets(stored, arena_)) {}

  std::optional<SourceMap> offset(const SourceMap& partition) const override {
    for (const auto& o : offsets_)
      if (same_source_map(o.partition, partition))
        return o.offset;
    return std::nullopt;
  }
  std::span<const SourceOffset> offsets() const override { return offsets_; }

private:
  data::Arena arena_; // declared first: offsets_ view into it
  std::vector<SourceOffset> offsets_;
};

/// What one poll() appends to: records into the adapter, their metadata into the
/// raw batch (which is what the batch's credit counts), offsets as JSON.
class SourceAdapter::Output final : public SourceOutput {
public:
  Output(SourceAdapter& adapter, runtime::connector_api::SourceRecords& out) : adapter_(adapter), out_(out) {}

  data::Arena& arena() noexcept override { return *adapter_.arena_; }
  bool has_room() const noexcept override {
    // The values' memory is the arena's: charge what it holds so far against the batch.
    return out_.has_room(adapter_.arena_->capacity());
  }
  void add(SourceRecord record) override {
    if (record.topic.empty())
      throw std::invalid_argument("source " + adapter_.plugin_.descriptor.class_name
                                  + " added a record without a topic");
    out_.add(record.topic, std::nullopt, std::nullopt, record.timestamp.value_or(-1),
             record.partition.value_or(-1));
    adapter_.polled_.push_back(std::move(record));
  }
  size_t size() const noexcept override { return adapter_.polled_.size(); }
  void set_offset(const SourceMap& partition, const SourceMap& offset) override {
    out_.set_offset(source_map_json(partition), source_map_json(offset));
  }

private:
  SourceAdapter& adapter_;
  runtime::connector_api::SourceRecords& out_;
};

SourceAdapter::SourceAdapter(const LoadedSource& source, const std::map<std::string, std::string>& config,
                             const std::string& connector, int task)
  : plugin_(source), config_(source.definition.parse(config, engine::pipeline::source_plugin_passthrough())),
    context_{connector, task} {
  task_ = call(plugin_, "its task factory", [&] { return plugin_.descriptor.make_task(); });
  if (!task_)
    throw std::runtime_error("source " + plugin_.descriptor.class_name + " (" + plugin_.path
                             + "): its task factory returned no SourceTask");
}

SourceAdapter::~SourceAdapter() {
  if (!started_)
    return;
  try {
    call(plugin_, "stop()", [&] { task_->stop(); });
  } catch (const std::exception& e) {
    spdlog::error("source {}: stop() failed: {}", plugin_.descriptor.class_name, e.what());
  }
}

void SourceAdapter::start(const runtime::connector_api::OffsetMap& stored) {
  stored_ = std::make_unique<Reader>(stored);
  call(plugin_, "start()", [&] { task_->start(config_, context_, *stored_); });
  started_ = true;
}

SourceAdapter::Status SourceAdapter::poll(runtime::connector_api::SourceRecords& out) {
  // A fresh arena per poll: the previous one belongs to a batch that another actor
  // may still be reading, and it is freed with that batch.
  arena_ = std::make_shared<data::Arena>();
  polled_.clear();
  Output output{*this, out};
  auto status = call(plugin_, "poll()", [&] { return task_->poll(output); });
  if (!polled_.empty())
    uncommitted_.push_back(polled_.size());
  switch (status) {
    case weir::SourceTask::Poll::Ready: return Status::ready;
    case weir::SourceTask::Poll::Idle: return Status::idle;
    case weir::SourceTask::Poll::End: return Status::end;
  }
  return Status::idle;
}

void SourceAdapter::decode(runtime::data::DecodedBatch& batch, uint32_t index) {
  auto& rec = batch[index];
  auto& from = polled_.at(rec.raw_index);
  rec.key = from.key;
  rec.key_schema = from.key_schema ? batch.retain(from.key_schema) : nullptr;
  rec.value = from.value;
  rec.value_schema = from.value_schema ? batch.retain(from.value_schema) : nullptr;
  for (const auto& h : from.headers)
    rec.headers.push_back(batch.arena(), Header{h.key, h.value, h.schema ? batch.retain(h.schema) : nullptr});
  batch.keep_alive(arena_);
}

void SourceAdapter::committed_batches(uint64_t count) {
  uint64_t records = 0;
  for (; batches_committed_ < count && !uncommitted_.empty(); ++batches_committed_) {
    records += uncommitted_.front();
    uncommitted_.pop_front();
  }
  if (records == 0)
    return;
  try {
    call(plugin_, "commit_records()", [&] { task_->commit_records(records); });
  } catch (const std::exception& e) {
    spdlog::error("source {}: commit_records() failed: {}", plugin_.descriptor.class_name, e.what());
  }
}

void SourceAdapter::commit(const runtime::connector_api::OffsetMap& committed) {
  // Called from the poll loop: a failing acknowledgement must not fail the task,
  // as in Kafka Connect, where commit() exceptions are logged.
  try {
    data::Arena arena;
    auto offsets = parse_offsets(committed, arena);
    call(plugin_, "commit()", [&] { task_->commit(offsets); });
  } catch (const std::exception& e) {
    spdlog::error("source {}: commit() failed: {}", plugin_.descriptor.class_name, e.what());
  }
}

std::string SourceAdapter::idle_reason() const {
  return call(plugin_, "idle_reason()", [&] { return task_->idle_reason(); });
}

} // namespace weir::engine::plugins
