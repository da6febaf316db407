// What a plugin SMT costs beside the same logic built in (issue 25: within 20%).
//
// The same records go through two chains of the same logic: the built-in
// InsertField$Value (static.field) + MaskField$Value (two string fields), and a plugin
// (bench/plugins/bench_smt_plugin.cpp, loaded with dlopen from plugin.path as weir
// loads any plugin) with InsertStatic + MaskStrings, written against the public SDK
// only. Each round decodes every batch (not timed) and then times the chain alone, in
// the thread's CPU time, built-in and plugin rounds alternating; the best round of
// each counts. Both chains' outputs are encoded and compared byte for byte first: a
// plugin that did something else would make the comparison meaningless (exit 1).
//
//   plugin_smt_bench --plugin FILE [--records N] [--seconds S]
#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>
#include <string>
#include <vector>

#include <sched.h>
#include <time.h>

#include "engine/plugins/loader.hpp"
#include "runtime/convert/converter.hpp"
#include "transforms/chain.hpp"

using namespace weir;

namespace {

constexpr size_t batch_size = 256;

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string record(size_t i) {
  return R"({"id":)" + std::to_string(100000 + i) + R"(,"cust":"cust-)" + std::to_string(i % 9973)
         + R"(","email":"user)" + std::to_string(i % 5000) + R"(@example.com","amount":")" + std::to_string(i % 500)
         + R"(.25","quantity":)" + std::to_string(1 + i % 7) + R"(,"card":"4111111111)"
         + std::to_string(100000 + i % 900000) + R"(","status":"paid","ts":)" + std::to_string(1700000000000 + i)
         + "}";
}

const std::map<std::string, std::string> builtin_chain{
    {"transforms", "insert,mask"},
    {"transforms.insert.type", "org.apache.kafka.connect.transforms.InsertField$Value"},
    {"transforms.insert.static.field", "pipeline"},
    {"transforms.insert.static.value", "weir"},
    {"transforms.mask.type", "org.apache.kafka.connect.transforms.MaskField$Value"},
    {"transforms.mask.fields", "card,email"},
};

const std::map<std::string, std::string> plugin_chain{
    {"transforms", "insert,mask"},
    {"transforms.insert.type", "bench.InsertStatic"},
    {"transforms.insert.field", "pipeline"},
    {"transforms.insert.value", "weir"},
    {"transforms.mask.type", "bench.MaskStrings"},
    {"transforms.mask.fields", "card,email"},
};

} // namespace

int main(int argc, char** argv) {
  size_t n = 200000;
  double seconds = 3;
  std::string plugin;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--records" && i + 1 < argc)
      n = std::stoul(argv[++i]);
    else if (a == "--seconds" && i + 1 < argc)
      seconds = std::stod(argv[++i]);
    else if (a == "--plugin" && i + 1 < argc)
      plugin = argv[++i];
    else {
      std::cerr << "usage: plugin_smt_bench --plugin FILE [--records N] [--seconds S]\n";
      return 2;
    }
  }
  if (plugin.empty()) {
    std::cerr << "plugin_smt_bench: --plugin FILE is required (build/bench/libbench_smt_plugin.so)\n";
    return 2;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(sched_getcpu(), &set);
  sched_setaffinity(0, sizeof set, &set);

  engine::plugins::load_plugin(plugin);
  std::vector<Batch> batches;
  for (size_t i = 0; i < n; i += batch_size) {
    Batch b;
    for (size_t k = i; k < std::min(n, i + batch_size); ++k)
      b.append("orders", static_cast<int32_t>(k % 6), static_cast<int64_t>(k), 1700000000000, std::nullopt, record(k));
    batches.push_back(std::move(b));
  }
  runtime::convert::RecordCodec codec(
      runtime::convert::make_converter("org.apache.kafka.connect.storage.StringConverter", {}, true),
      runtime::convert::make_converter("org.apache.kafka.connect.json.JsonConverter", {{"schemas.enable", "false"}},
                                       false));
  auto builtin = transforms::Chain::from_config(builtin_chain);
  auto plugged = transforms::Chain::from_config(plugin_chain);
  std::vector<runtime::data::DecodedBatch> decoded(batches.size());

  // Each decoded batch keeps its raw batch (its values view it); decoding again takes
  // it back first.
  bool first = true;
  auto decode_all = [&] {
    for (size_t b = 0; b < batches.size(); ++b)
      codec.decode(first ? std::move(batches[b]) : decoded[b].take_raw(), decoded[b]);
    first = false;
  };
  auto output_of = [&](transforms::Chain& chain) {
    decode_all();
    std::string all;
    Batch out;
    for (auto& d : decoded) {
      chain.apply_all(d);
      out.clear();
      codec.encode(d, out);
      for (size_t i = 0; i < out.size(); ++i)
        all.append(out.bytes(out[i].value)).push_back('\n');
    }
    return all;
  };
  auto expected = output_of(builtin);
  if (output_of(plugged) != expected) {
    std::cerr << "plugin_smt_bench: the plugin chain's output differs from the built-in chain's\n";
    return 1;
  }

  auto timed = [&](transforms::Chain& chain) {
    decode_all();
    double t0 = thread_cpu_seconds();
    for (auto& d : decoded)
      chain.apply_all(d);
    return (thread_cpu_seconds() - t0) * 1e9 / static_cast<double>(n);
  };
  double best_builtin = 1e18, best_plugin = 1e18;
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  size_t rounds = 0;
  do {
    best_builtin = std::min(best_builtin, timed(builtin));
    best_plugin = std::min(best_plugin, timed(plugged));
    ++rounds;
  } while (std::chrono::steady_clock::now() < end);
  std::printf("records %zu, rounds %zu, outputs identical\n", n, rounds);
  std::printf("built-in InsertField$Value + MaskField$Value: %.1f ns/record\n", best_builtin);
  std::printf("plugin   InsertStatic + MaskStrings:        %.1f ns/record\n", best_plugin);
  std::printf("plugin / built-in: %.2f (target <= 1.20)\n", best_plugin / best_builtin);
  return 0;
}
