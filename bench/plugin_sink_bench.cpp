// What a plugin sink costs weir per record: the same decoded batches through the
// plugin adapter (engine/plugins/sink_adapter) into a sink registered for JSON text
// (weir renders every key, value and header, the SDK's behaviour before values) and
// into one registered for values only (SinkInput::Values: nothing rendered). Each
// sink does the least a real one would: the text sink looks at the value's text, the
// values sink reads the value's "id" field. Decoding is done once, before timing.
//
//   plugin_sink_bench [--records N] [--seconds S]
//
// Prints records per CPU second and CPU seconds per million records for both, best
// round of several interleaved rounds (bench/results/plugin_sink.md). Exits 1 when a
// sink did not read every record in a first pass.
#include <time.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/plugins/sink_adapter.hpp"
#include "runtime/convert/converter.hpp"

using namespace weir;

namespace {

constexpr size_t batch_size = 2000; // max.poll.records' default: a consumer's batch

std::string make_record(size_t i) {
  const char* statuses[] = {"new", "paid", "shipped", "returned"};
  std::ostringstream s;
  s << R"({"id":)" << (100000 + i) << R"(,"cust":"cust-)" << (i % 9973) << R"(","email":"user)" << (i % 5000)
    << R"(@example.com","amount":")" << (i % 500) << "." << (i % 100) << R"(","quantity":)" << (1 + i % 7)
    << R"(,"status":")" << statuses[i % 4] << R"(","ts":)" << (1700000000000 + i) << "}";
  return s.str();
}

double cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

volatile uint64_t sink_hole = 0; // keeps the sinks' reads from being optimized away
// Records each sink found what it reads in (a text, an id), checked after a first
// pass: a sink that saw nothing would make the comparison meaningless.
uint64_t text_seen = 0, values_seen = 0;

class TextSink : public Sink {
public:
  static void define(ConfigDef&) {}
  void open(const Config&, const SinkContext&) override {}
  void put(SinkBatch& batch) override {
    uint64_t sum = 0;
    for (const auto& r : batch)
      if (r.value) {
        sum += r.value->size();
        ++text_seen;
      }
    sink_hole = sink_hole + sum;
  }
};

class ValueSink : public Sink {
public:
  static constexpr SinkInput input = SinkInput::Values;
  static void define(ConfigDef&) {}
  void open(const Config&, const SinkContext&) override {}
  void put(SinkBatch& batch) override {
    uint64_t sum = 0;
    for (const auto& r : batch)
      if (auto* id = r.data->value.kind() == data::Kind::Map ? r.data->value.find("id") : nullptr) {
        sum += static_cast<uint64_t>(id->as_int());
        ++values_seen;
      }
    sink_hole = sink_hole + sum;
  }
};

template <class T>
engine::plugins::LoadedSink loaded(const std::string& name, SinkInput input) {
  SinkDescriptor d{name, {}, "1", [](ConfigDef& def) { T::define(def); },
                   [] { return std::unique_ptr<Sink>(new T()); }};
  d.input = input;
  return engine::plugins::LoadedSink{std::move(d), ConfigDef{}, "(bench)"};
}

} // namespace

int main(int argc, char** argv) {
  size_t records = 200000;
  double seconds = 3;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--records" && i + 1 < argc)
      records = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--seconds" && i + 1 < argc)
      seconds = std::strtod(argv[++i], nullptr);
    else {
      std::cerr << "usage: plugin_sink_bench [--records N] [--seconds S]\n";
      return 2;
    }
  }

  runtime::convert::RecordCodec codec(
      runtime::convert::make_converter("org.apache.kafka.connect.storage.StringConverter", {}, true),
      runtime::convert::make_converter("org.apache.kafka.connect.json.JsonConverter", {{"schemas.enable", "false"}},
                                       false));
  std::vector<runtime::data::DecodedBatch> batches;
  for (size_t k = 0; k < records;) {
    Batch b;
    for (size_t j = 0; j < batch_size && k < records; ++j, ++k) {
      auto key = "cust-" + std::to_string(k % 9973);
      b.append("orders", static_cast<int32_t>(k % 6), static_cast<int64_t>(k), 1700000000000 + static_cast<int64_t>(k),
               key, make_record(k));
    }
    batches.push_back(codec.decode(std::move(b)));
  }

  auto text_plugin = loaded<TextSink>("bench.TextSink", SinkInput::JsonText);
  auto value_plugin = loaded<ValueSink>("bench.ValueSink", SinkInput::Values);
  engine::plugins::SinkAdapter text{text_plugin, {}, "bench", 0};
  engine::plugins::SinkAdapter values{value_plugin, {}, "bench", 0};
  struct Path {
    const char* name;
    runtime::connector_api::SinkWriter* writer;
    double best = 0; // CPU seconds of the fastest round
  };
  std::vector<Path> paths{{"JSON text (SinkInput::JsonText)", &text}, {"values (SinkInput::Values)", &values}};

  for (auto& p : paths)
    for (auto& b : batches)
      p.writer->write(b);
  if (text_seen != records || values_seen != records) {
    std::cerr << "plugin_sink_bench: of " << records << " records, the text sink read " << text_seen
              << " and the values sink " << values_seen << "\n";
    return 1;
  }

  // Rounds alternate between the paths, so a busy machine slows both alike.
  auto until = cpu_seconds() + seconds;
  int rounds = 0;
  do {
    for (auto& p : paths) {
      auto t0 = cpu_seconds();
      for (auto& b : batches)
        p.writer->write(b);
      auto t = cpu_seconds() - t0;
      p.best = p.best == 0 ? t : std::min(p.best, t);
    }
    ++rounds;
  } while (cpu_seconds() < until || rounds < 2);

  std::cout << records << " records (~" << make_record(0).size() << " bytes of JSON each), batches of "
            << batch_size << ", best of " << rounds << " rounds\n";
  std::cout << "| sink reads | records/s (one core) | CPU s per million records |\n|---|---:|---:|\n";
  for (const auto& p : paths)
    std::cout << "| " << p.name << " | " << static_cast<uint64_t>(static_cast<double>(records) / p.best) << " | "
              << p.best * 1e6 / static_cast<double>(records) << " |\n";
  std::cout << "values / text: " << paths[0].best / paths[1].best << "x the records per CPU second\n";
  return 0;
}
