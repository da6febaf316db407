#include "engine/plugins/sink_adapter.hpp"

#include <spdlog/spdlog.h>

#include "runtime/data/errors.hpp"
#include "engine/pipeline/connector_config.hpp"

namespace weir::plugins {

namespace {

/// A byte range of the adapter's text buffer (views are taken once it stopped growing).
struct Span {
  size_t begin = 0;
  size_t size = 0;
  bool null = true;
};

/// Runs a plugin call; a non-standard exception becomes a std::runtime_error naming
/// the plugin and the call, so the task fails with a message instead of the actor
/// system seeing an unknown exception.
template <class F>
auto call(const LoadedSink& plugin, const char* what, F&& f) {
  try {
    return f();
  } catch (const std::exception&) {
    throw;
  } catch (...) {
    throw std::runtime_error("sink " + plugin.descriptor.class_name + " (" + plugin.path
                             + ") threw a non-standard exception from " + what);
  }
}

/// Schemaless JSON, what the SDK promises put() (JsonConverter, schemas.enable=false).
runtime::convert::JsonConverter::Options schemaless() {
  runtime::convert::JsonConverter::Options o;
  o.schemas_enable = false;
  return o;
}

} // namespace

SinkAdapter::SinkAdapter(const LoadedSink& sink, const std::map<std::string, std::string>& config,
                         const std::string& connector, int task)
  : plugin_(sink), json_(schemaless()) {
  auto parsed = plugin_.definition.parse(config, runtime::pipeline::plugin_passthrough());
  sink_ = call(plugin_, "its factory", [&] { return plugin_.descriptor.make(); });
  if (!sink_)
    throw std::runtime_error("sink " + plugin_.descriptor.class_name + " (" + plugin_.path
                             + "): its factory returned no Sink");
  call(plugin_, "open()", [&] { sink_->open(parsed, SinkContext{connector, task}); });
}

SinkAdapter::~SinkAdapter() {
  try {
    call(plugin_, "close()", [&] { sink_->close(); });
  } catch (const std::exception& e) {
    spdlog::error("sink {}: close() failed: {}", plugin_.descriptor.class_name, e.what());
  }
}

void SinkAdapter::write(runtime::data::DecodedBatch& batch) {
  using runtime::data::Value;
  text_.clear();
  auto render = [&](const Value& v, const runtime::data::Schema* schema) {
    Span s{text_.size(), 0, v.is_null()};
    if (!s.null)
      s.null = !json_.from_connect(v, schema, text_);
    s.size = text_.size() - s.begin;
    return s;
  };
  struct Rendered {
    uint32_t index;
    Span key, value;
    size_t first_header, headers;
  };
  std::vector<Rendered> rendered;
  std::vector<std::pair<std::string_view, Span>> header_spans;
  rendered.reserve(batch.size());
  for (uint32_t i = 0; i < batch.size(); ++i) {
    auto& r = batch[i];
    if (!r.live())
      continue;
    Rendered out{i, render(r.key, r.key_schema), render(r.value, r.value_schema),
                 header_spans.size(), r.headers.size()};
    for (const auto& h : r.headers)
      header_spans.emplace_back(h.key, render(h.value, h.schema));
    rendered.push_back(out);
  }

  // text_ no longer grows: views into it stay valid during put().
  auto view = [&](const Span& s) -> std::optional<std::string_view> {
    if (s.null)
      return std::nullopt;
    return std::string_view{text_}.substr(s.begin, s.size);
  };
  std::vector<SinkHeader> headers;
  headers.reserve(header_spans.size());
  for (const auto& [key, span] : header_spans)
    headers.push_back({key, view(span)});
  std::vector<SinkRecord> records;
  records.reserve(rendered.size());
  for (const auto& r : rendered) {
    const auto& rec = batch[r.index];
    records.push_back({rec.topic, rec.partition, rec.offset, rec.timestamp, view(r.key),
                       view(r.value),
                       std::span<const SinkHeader>{headers.data() + r.first_header, r.headers}});
  }

  SinkBatch put_batch{std::move(records)};
  call(plugin_, "put()", [&] { sink_->put(put_batch); });
  call(plugin_, "flush()", [&] { sink_->flush(); });
  for (const auto& f : put_batch.failures()) {
    if (f.index >= rendered.size())
      throw std::runtime_error("sink " + plugin_.descriptor.class_name + " failed record "
                               + std::to_string(f.index) + " of a batch of "
                               + std::to_string(rendered.size()));
    auto i = rendered[f.index].index;
    if (batch[i].live())
      batch.fail(i, runtime::data::ErrorStage::TaskPut, plugin_.descriptor.class_name,
                 runtime::data::DataError(f.reason));
  }
}

std::vector<runtime::kafka::TopicPartitionOffset> SinkAdapter::stored_offsets() {
  auto stored = call(plugin_, "stored_offsets()", [&] { return sink_->stored_offsets(); });
  std::vector<runtime::kafka::TopicPartitionOffset> out;
  out.reserve(stored.size());
  for (auto& s : stored)
    out.push_back({std::move(s.topic), s.partition, s.next_offset});
  return out;
}

} // namespace weir::plugins
