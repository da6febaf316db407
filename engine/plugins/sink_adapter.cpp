#include "engine/plugins/sink_adapter.hpp"

#include <future>
#include <mutex>

#include <spdlog/spdlog.h>

#include "runtime/data/errors.hpp"
#include "engine/pipeline/connector_config.hpp"

namespace weir::engine::plugins {

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

/// Makes and opens the plugin's sink object (Sink or AsyncSink).
template <class S, class Make>
std::unique_ptr<S> open_sink(const LoadedSink& plugin, const Make& make, const Config& parsed,
                             const std::string& connector, int task) {
  auto sink = call(plugin, "its factory", [&] { return make(); });
  if (!sink)
    throw std::runtime_error("sink " + plugin.descriptor.class_name + " (" + plugin.path
                             + "): its factory returned no sink");
  call(plugin, "open()", [&] { sink->open(parsed, SinkContext{connector, task}); });
  return sink;
}

template <class S>
void close_sink(const LoadedSink& plugin, S& sink) {
  try {
    call(plugin, "close()", [&] { sink.close(); });
  } catch (const std::exception& e) {
    spdlog::error("sink {}: close() failed: {}", plugin.descriptor.class_name, e.what());
  }
}

std::vector<runtime::kafka::TopicPartitionOffset> to_offsets(std::vector<StoredOffset> stored) {
  std::vector<runtime::kafka::TopicPartitionOffset> out;
  out.reserve(stored.size());
  for (auto& s : stored)
    out.push_back({std::move(s.topic), s.partition, s.next_offset});
  return out;
}

std::string bad_index(const LoadedSink& plugin, size_t index, size_t size) {
  return "sink " + plugin.descriptor.class_name + " failed record " + std::to_string(index)
         + " of a batch of " + std::to_string(size);
}

} // namespace

PreparedBatch::PreparedBatch(const runtime::data::DecodedBatch& batch, SinkInput input,
                             runtime::convert::JsonConverter& json) {
  using runtime::data::Value;
  const bool text = input == SinkInput::JsonText;
  auto render = [&](const Value& v, const runtime::data::Schema* schema) {
    Span s{text_.size(), 0, v.is_null()};
    if (!s.null)
      s.null = !json.from_connect(v, schema, text_);
    s.size = text_.size() - s.begin;
    return s;
  };
  struct Rendered {
    Span key, value;
    size_t first_header, headers;
  };
  std::vector<Rendered> rendered;
  std::vector<std::pair<std::string_view, Span>> header_spans;
  index_.reserve(batch.size());
  for (uint32_t i = 0; i < batch.size(); ++i) {
    const auto& r = batch[i];
    if (!r.live())
      continue;
    index_.push_back(i);
    if (!text)
      continue;
    Rendered out{render(r.key, r.key_schema), render(r.value, r.value_schema), header_spans.size(),
                 r.headers.size()};
    for (const auto& h : r.headers)
      header_spans.emplace_back(h.key, render(h.value, h.schema));
    rendered.push_back(out);
  }

  // text_ no longer grows: views into it stay valid while this object lives.
  auto view = [&](const Span& s) -> std::optional<std::string_view> {
    if (s.null)
      return std::nullopt;
    return std::string_view{text_}.substr(s.begin, s.size);
  };
  headers_.reserve(header_spans.size());
  for (const auto& [key, span] : header_spans)
    headers_.push_back({key, view(span)});
  std::vector<SinkRecord> records;
  records.reserve(index_.size());
  for (size_t k = 0; k < index_.size(); ++k) {
    const auto& rec = batch[index_[k]];
    SinkRecord out{rec.topic, rec.partition, rec.offset, rec.timestamp, std::nullopt, std::nullopt, {}, &rec};
    if (text) {
      const auto& r = rendered[k];
      out.key = view(r.key);
      out.value = view(r.value);
      out.headers = std::span<const SinkHeader>{headers_.data() + r.first_header, r.headers};
    }
    records.push_back(out);
  }
  records_ = SinkBatch{std::move(records)};
}

std::unique_ptr<runtime::connector_api::SinkWriter> make_sink_writer(
    const LoadedSink& sink, const std::map<std::string, std::string>& config,
    const std::string& connector, int task) {
  if (sink.descriptor.make_async)
    return std::make_unique<AsyncSinkAdapter>(sink, config, connector, task);
  return std::make_unique<SinkAdapter>(sink, config, connector, task);
}

SinkAdapter::SinkAdapter(const LoadedSink& sink, const std::map<std::string, std::string>& config,
                         const std::string& connector, int task)
  : plugin_(sink), json_(schemaless()) {
  auto parsed = plugin_.definition.parse(config, engine::pipeline::plugin_passthrough());
  sink_ = open_sink<Sink>(plugin_, plugin_.descriptor.make, parsed, connector, task);
}

SinkAdapter::~SinkAdapter() { close_sink(plugin_, *sink_); }

void SinkAdapter::write(runtime::data::DecodedBatch& batch) {
  PreparedBatch prepared{batch, plugin_.descriptor.input, json_};
  auto& put_batch = prepared.records();
  call(plugin_, "put()", [&] { sink_->put(put_batch); });
  call(plugin_, "flush()", [&] { sink_->flush(); });
  for (const auto& f : put_batch.failures()) {
    auto i = prepared.decoded_index(f.index);
    if (i < 0)
      throw std::runtime_error(bad_index(plugin_, f.index, put_batch.size()));
    if (batch[i].live())
      batch.fail(static_cast<uint32_t>(i), runtime::data::ErrorStage::TaskPut,
                 plugin_.descriptor.class_name, runtime::data::DataError(f.reason));
  }
}

std::vector<runtime::kafka::TopicPartitionOffset> SinkAdapter::stored_offsets() {
  return to_offsets(call(plugin_, "stored_offsets()", [&] { return sink_->stored_offsets(); }));
}

namespace {

/// One start() of an async sink: the prepared records, and the completion's way back.
/// The plugin may complete inside put(); that outcome waits until put() returned, so
/// an exception from put() (which also drops the handle) reports its own message.
struct Start {
  const LoadedSink* plugin;
  std::unique_ptr<PreparedBatch> prepared;
  std::function<void(runtime::connector_api::WriteOutcome)> done;
  std::mutex sync;
  bool in_put = true;
  bool delivered = false;
  std::optional<runtime::connector_api::WriteOutcome> held;

  runtime::connector_api::WriteOutcome translate(BatchOutcome o) const {
    runtime::connector_api::WriteOutcome out;
    out.error = std::move(o.error);
    for (auto& f : o.failures) {
      auto i = prepared->decoded_index(f.index);
      if (i < 0) {
        out.error = bad_index(*plugin, f.index, prepared->records().size());
        break;
      }
      out.failures.push_back({static_cast<uint32_t>(i), std::move(f.reason)});
    }
    return out;
  }

  void deliver(runtime::connector_api::WriteOutcome out) {
    {
      std::lock_guard lock{sync};
      if (std::exchange(delivered, true))
        return;
    }
    done(std::move(out));
  }

  void on_complete(BatchOutcome o) {
    auto out = translate(std::move(o));
    {
      std::lock_guard lock{sync};
      if (in_put) {
        held = std::move(out);
        return;
      }
    }
    deliver(std::move(out));
  }

  /// put() returned (`thrown` empty) or threw.
  void after_put(const std::string& thrown) {
    std::optional<runtime::connector_api::WriteOutcome> out;
    {
      std::lock_guard lock{sync};
      in_put = false;
      out = std::move(held);
    }
    if (!thrown.empty()) {
      if (!out)
        out.emplace();
      out->error = thrown;
    }
    if (out)
      deliver(std::move(*out));
  }
};

} // namespace

AsyncSinkAdapter::AsyncSinkAdapter(const LoadedSink& sink, const std::map<std::string, std::string>& config,
                                   const std::string& connector, int task)
  : plugin_(sink), json_(schemaless()) {
  auto parsed = plugin_.definition.parse(config, engine::pipeline::plugin_passthrough());
  max_in_flight_ = static_cast<uint32_t>(parsed.get_int(in_flight_key));
  sink_ = open_sink<AsyncSink>(plugin_, plugin_.descriptor.make_async, parsed, connector, task);
}

AsyncSinkAdapter::~AsyncSinkAdapter() { close_sink(plugin_, *sink_); }

void AsyncSinkAdapter::start(const runtime::data::DecodedBatch& batch,
                             std::function<void(runtime::connector_api::WriteOutcome)> done) {
  auto state = std::make_shared<Start>();
  state->plugin = &plugin_;
  state->prepared = std::make_unique<PreparedBatch>(batch, plugin_.descriptor.input, json_);
  state->done = std::move(done);
  BatchCompletion completion{[state](BatchOutcome o) { state->on_complete(std::move(o)); }};
  std::string thrown;
  try {
    call(plugin_, "put()", [&] { sink_->put(state->prepared->records(), std::move(completion)); });
  } catch (const std::exception& e) {
    thrown = e.what();
    if (thrown.empty())
      thrown = "put() threw";
  }
  state->after_put(thrown);
}

void AsyncSinkAdapter::write(runtime::data::DecodedBatch& batch) {
  auto result = std::make_shared<std::promise<runtime::connector_api::WriteOutcome>>();
  auto outcome = result->get_future();
  start(batch, [result](runtime::connector_api::WriteOutcome o) { result->set_value(std::move(o)); });
  auto o = outcome.get();
  if (o.error)
    throw std::runtime_error(*o.error);
  for (const auto& f : o.failures)
    if (batch[f.index].live())
      batch.fail(f.index, runtime::data::ErrorStage::TaskPut, plugin_.descriptor.class_name,
                 runtime::data::DataError(f.reason));
}

std::vector<runtime::kafka::TopicPartitionOffset> AsyncSinkAdapter::stored_offsets() {
  return to_offsets(call(plugin_, "stored_offsets()", [&] { return sink_->stored_offsets(); }));
}

} // namespace weir::engine::plugins
