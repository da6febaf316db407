// SequenceSource: numbered streams into Kafka, built out of tree against the
// installed weir SDK (see docs/writing-a-source.md, which walks through this file).
//
// Each name in `streams` is a source partition {"stream": NAME}; its records count
// n = 1, 2, 3, ... up to max.n (0: without end), and its offset is {"n": LAST}. A
// record's key is the stream's name (STRING) and its value a struct
//   org.weir.examples.Sequence {stream: STRING, n: INT64}
// so a converter with schemas writes both. Streams are split over the tasks; a
// restarted task continues each stream after its stored offset, so the numbers in the
// topic have no gap (and repeat only what was polled after the last commit).
#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <weir/plugin.hpp>

namespace {

using weir::data::Value;

/// The connector part: streams split into contiguous groups, one per task.
class SequenceConnector : public weir::SourceConnector {
public:
  static void define(weir::ConfigDef& def) {
    using weir::ConfigType;
    using weir::Importance;
    def.define("topic", ConfigType::String, Importance::High, "The topic the records go to.",
               weir::validators::non_empty());
    def.define("streams", ConfigType::List, "main", Importance::High,
               "Names of the streams to count, one source partition each. Each task "
               "counts a share of them.",
               weir::validators::non_empty());
    def.define("max.n", ConfigType::Long, "0", Importance::Medium,
               "The last number of each stream; 0 counts without end.",
               weir::validators::non_negative());
    def.define("batch.size", ConfigType::Int, "100", Importance::Low,
               "The most records one poll returns.", weir::validators::range(1, std::nullopt));
    def.define("poll.interval.ms", ConfigType::Long, "0", Importance::Low,
               "The least time between two polls that return records (a rate limit).",
               weir::validators::non_negative());
  }

  std::vector<weir::TaskConfig> task_configs(const weir::Config& config, int max_tasks) override {
    const auto& streams = config.get_list("streams");
    size_t tasks = std::min(streams.size(), static_cast<size_t>(std::max(1, max_tasks)));
    std::vector<weir::TaskConfig> out(tasks);
    for (size_t i = 0; i < streams.size(); ++i) {
      auto& share = out[i * tasks / streams.size()]["streams"];
      share += (share.empty() ? "" : ",") + streams[i];
    }
    return out;
  }
};

class SequenceTask : public weir::SourceTask {
public:
  void start(const weir::Config& config, const weir::SourceContext&, const weir::OffsetReader& offsets) override {
    topic_ = config.get_string("topic");
    max_n_ = config.get_long("max.n");
    batch_size_ = static_cast<size_t>(config.get_int("batch.size"));
    interval_ = std::chrono::milliseconds{config.get_long("poll.interval.ms")};
    schema_ = weir::data::SchemaBuilder::struct_()
                .name("org.weir.examples.Sequence")
                .field("stream", weir::data::schemas::string())
                .field("n", weir::data::schemas::int64())
                .build();
    for (const auto& name : config.get_list("streams")) {
      Stream s{name, 1};
      // Resume after the last number Kafka holds (OffsetStorageReader.offset).
      if (auto stored = offsets.offset(partition(name)))
        for (const auto& [key, value] : *stored)
          if (key == "n" && value.is_integer())
            s.next = value.as_int() + 1;
      streams_.push_back(std::move(s));
    }
  }

  Poll poll(weir::SourceOutput& out) override {
    auto now = std::chrono::steady_clock::now();
    if (now < next_poll_)
      return Poll::Idle;
    next_poll_ = now + interval_;
    size_t added = 0;
    for (auto& s : streams_) {
      int64_t first = s.next;
      while (added < batch_size_ && (max_n_ == 0 || s.next <= max_n_) && out.has_room()) {
        out.add(record(out, s.name, s.next++));
        ++added;
      }
      if (s.next != first)
        out.set_offset(partition(s.name), {{"n", Value::int64(s.next - 1)}});
    }
    bool done = std::all_of(streams_.begin(), streams_.end(),
                            [&](const Stream& s) { return max_n_ != 0 && s.next > max_n_; });
    if (done)
      return added > 0 ? Poll::Ready : Poll::End;
    return interval_.count() > 0 ? Poll::Idle : Poll::Ready;
  }

  std::string idle_reason() const override {
    return streams_.empty() ? "no stream to count" : "";
  }

private:
  struct Stream {
    std::string name;
    int64_t next = 1;
  };

  static weir::SourceMap partition(const std::string& stream) {
    return {{"stream", Value::string(stream)}};
  }

  weir::SourceRecord record(weir::SourceOutput& out, const std::string& stream, int64_t n) const {
    auto name = out.copy(stream); // record strings live in the batch's arena
    Value value = Value::structure(out.arena(), *schema_);
    value.fields()[0] = Value::string(name);
    value.fields()[1] = Value::int64(n);
    weir::SourceRecord r;
    r.topic = topic_;
    r.key = Value::string(name);
    r.key_schema = weir::data::schemas::string();
    r.value = value;
    r.value_schema = schema_;
    return r;
  }

  std::string topic_;
  int64_t max_n_ = 0;
  size_t batch_size_ = 100;
  std::chrono::milliseconds interval_{0};
  std::chrono::steady_clock::time_point next_poll_{};
  weir::data::SchemaPtr schema_;
  std::vector<Stream> streams_;
};

void register_plugin(weir::PluginRegistrar& r) {
  // Record n of a stream follows from its offset alone: a transactional restart
  // neither skips nor repeats one.
  r.add_source<SequenceConnector, SequenceTask>("org.weir.examples.SequenceSourceConnector",
                                                {"SequenceSource"}, "1.0.0",
                                                weir::ExactlyOnce::Supported);
}

} // namespace

WEIR_PLUGIN(register_plugin)
