// Records per second through the transform path on one core:
//   JsonConverter decode -> InsertField -> ReplaceField -> MaskField -> Cast -> encode
// on ~180-byte schemaless JSON records, beside the raw simdjson DOM parse rate of
// the same records measured in the same run (issue 4's target: >= 40% of it).
//
//   transform_bench [--records N] [--seconds S] [--write-results] [--only PATH] [--dump FILE]
//
// --only keeps one path (for a profiler); --dump writes the full path's output, one
// value per line, so two builds can be checked to produce the same bytes.
// --write-results writes bench/results/transforms.md (the table, the machine's core
// count, CPU, compiler and library versions). Build with optimizations (the default
// debugoptimized is -O2); the build type is printed with the results.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <time.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <sched.h>
#include <simdjson.h>

#include "runtime/convert/converter.hpp"
#include "transforms/chain.hpp"

using namespace weir;
using clock_type = std::chrono::steady_clock;

namespace {

constexpr size_t batch_size = 256;

// Deterministic ~180-byte order records with a little variety in every field.
std::vector<std::string> make_records(size_t n) {
  std::vector<std::string> out;
  out.reserve(n);
  const char* statuses[] = {"new", "paid", "shipped", "returned"};
  for (size_t i = 0; i < n; ++i) {
    std::ostringstream s;
    s << R"({"id":)" << (100000 + i) << R"(,"cust":"cust-)" << (i % 9973) << R"(","email":"user)" << (i % 5000)
      << R"(@example.com","amount":")" << (i % 500) << "." << (i % 100 < 10 ? "0" : "") << (i % 100)
      << R"(","quantity":)" << (1 + i % 7) << R"(,"card":"4111111111)" << (100000 + i % 900000)
      << R"(","status":")" << statuses[i % 4] << R"(","internal":"batch )" << (i % 31)
      << R"(","ts":)" << (1700000000000 + i) << "}";
    out.push_back(s.str());
  }
  return out;
}

const std::map<std::string, std::string> chain_config{
    {"transforms", "insert,replace,mask,cast"},
    {"transforms.insert.type", "org.apache.kafka.connect.transforms.InsertField$Value"},
    {"transforms.insert.topic.field", "_topic"},
    {"transforms.insert.offset.field", "_offset"},
    {"transforms.replace.type", "org.apache.kafka.connect.transforms.ReplaceField$Value"},
    {"transforms.replace.exclude", "internal"},
    {"transforms.replace.renames", "cust:customer_id"},
    {"transforms.mask.type", "org.apache.kafka.connect.transforms.MaskField$Value"},
    {"transforms.mask.fields", "card,email"},
    {"transforms.cast.type", "org.apache.kafka.connect.transforms.Cast$Value"},
    {"transforms.cast.spec", "amount:float64,quantity:int32"},
};

// CPU time of this thread: what one core spent, even when other processes share it
// (wall time would count the time we were descheduled).
double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Runs every path (each processes every record once) in turn, round after round,
// until `seconds` have passed; returns each path's best round in records per CPU
// second. Interleaving keeps the paths' conditions alike on a shared machine, so
// their ratios hold even when absolute numbers move.
std::vector<double> measure(size_t records, double seconds, const std::vector<std::function<void()>>& paths) {
  std::vector<double> best(paths.size(), 0);
  for (const auto& p : paths)
    p(); // warm caches, arenas, schema caches
  auto end = clock_type::now() + std::chrono::duration<double>(seconds);
  do {
    for (size_t i = 0; i < paths.size(); ++i) {
      double t0 = thread_cpu_seconds();
      paths[i]();
      double dt = thread_cpu_seconds() - t0;
      best[i] = std::max(best[i], static_cast<double>(records) / dt);
    }
  } while (clock_type::now() < end);
  return best;
}

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.starts_with("model name")) {
      auto p = line.find(':');
      return p == std::string::npos ? line : line.substr(p + 2);
    }
  return "unknown";
}

std::string fmt(double v) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(2);
  s << v / 1e6;
  return s.str();
}

} // namespace

int main(int argc, char** argv) {
  size_t n = 200000;
  double seconds = 3;
  bool write = false;
  std::string only; // profile one path: raw, decode or full
  std::string dump; // write the full path's output values, one per line, and exit
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--records" && i + 1 < argc)
      n = std::stoul(argv[++i]);
    else if (a == "--seconds" && i + 1 < argc)
      seconds = std::stod(argv[++i]);
    else if (a == "--write-results")
      write = true;
    else if (a == "--only" && i + 1 < argc)
      only = argv[++i];
    else if (a == "--dump" && i + 1 < argc)
      dump = argv[++i];
    else {
      std::cerr << "usage: transform_bench [--records N] [--seconds S] [--write-results] [--only raw|decode|chain|codec|full] [--dump FILE]\n";
      return 2;
    }
  }
  // One core: pin to the CPU we start on, so the numbers are a single core's.
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(sched_getcpu(), &set);
  sched_setaffinity(0, sizeof set, &set);

  auto records = make_records(n);
  size_t bytes = 0;
  for (const auto& r : records)
    bytes += r.size();

  // Batches as a Kafka consumer would hand them over.
  std::vector<Batch> batches;
  for (size_t i = 0; i < n; i += batch_size) {
    Batch b;
    size_t end = std::min(n, i + batch_size);
    b.reserve(end - i, (end - i) * 200);
    for (size_t k = i; k < end; ++k)
      b.append("orders", static_cast<int32_t>(k % 6), static_cast<int64_t>(k), 1700000000000 + static_cast<int64_t>(k),
               std::nullopt, records[k]);
    batches.push_back(std::move(b));
  }
  runtime::convert::RecordCodec codec(
      runtime::convert::make_converter("org.apache.kafka.connect.storage.StringConverter", {}, true),
      runtime::convert::make_converter("org.apache.kafka.connect.json.JsonConverter", {{"schemas.enable", "false"}}, false));
  auto chain = transforms::Chain::from_config(chain_config);
  runtime::data::DecodedBatch decoded;
  Batch out;
  out.reserve(batch_size, batch_size * 256);
  std::vector<simdjson::padded_string> padded;
  padded.reserve(n);
  for (const auto& r : records)
    padded.emplace_back(r);
  simdjson::dom::parser parser;
  size_t sink = 0, errors = 0;

  if (!dump.empty()) {
    // The output of one full pass, to compare builds (the same records give the same bytes).
    std::ofstream f(dump);
    for (auto& b : batches) {
      codec.decode(std::move(b), decoded);
      chain.apply_all(decoded);
      out.clear();
      codec.encode(decoded, out);
      for (size_t i = 0; i < out.size(); ++i)
        f << out.bytes(out[i].value) << '\n';
      b = decoded.take_raw();
    }
    return 0;
  }

  const char* names[] = {"raw", "decode", "codec", "chain", "full"};
  std::vector<std::function<void()>> paths{
      // 1. Raw simdjson DOM parse of the same bytes, each record pre-padded (its best case).
      [&] {
        for (const auto& p : padded) {
          auto doc = parser.parse(p);
          sink += doc.error() ? 0 : 1;
        }
      },
      // 2. Converter decode into the value model only.
      [&] {
        for (auto& b : batches) {
          codec.decode(std::move(b), decoded);
          b = decoded.take_raw();
        }
      },
      // 3. Decode and encode, no SMTs.
      [&] {
        for (auto& b : batches) {
          codec.decode(std::move(b), decoded);
          out.clear();
          codec.encode(decoded, out);
          b = decoded.take_raw();
        }
      },
      // 4. Decode and the four SMTs, no encode.
      [&] {
        for (auto& b : batches) {
          codec.decode(std::move(b), decoded);
          chain.apply_all(decoded);
          b = decoded.take_raw();
        }
      },
      // 5. The whole path: decode, four SMTs, encode.
      [&] {
        for (auto& b : batches) {
          codec.decode(std::move(b), decoded);
          chain.apply_all(decoded);
          out.clear();
          codec.encode(decoded, out);
          errors += decoded.errors().size();
          b = decoded.take_raw();
        }
      },
  };
  // --only keeps one path (for profiling); the others report 0.
  std::vector<std::function<void()>> selected;
  std::vector<size_t> index;
  for (size_t i = 0; i < paths.size(); ++i)
    if (only.empty() || only == names[i]) {
      selected.push_back(paths[i]);
      index.push_back(i);
    }
  std::vector<double> rates(paths.size(), 0);
  auto measured = measure(n, seconds, selected);
  for (size_t i = 0; i < index.size(); ++i)
    rates[index[i]] = measured[i];
  double raw_rate = rates[0] > 0 ? rates[0] : 1, decode_rate = rates[1], codec_rate = rates[2],
         chain_rate = rates[3], full_rate = rates[4];
  auto wanted = [&](const char* path) { return only.empty() || only == path; };
  if (errors != 0 || (sink == 0 && wanted("raw"))) {
    std::cerr << "unexpected record errors: " << errors << "\n";
    return 1;
  }
  std::string sample = out.empty() ? std::string() : std::string(out.bytes(out[0].value));

  double ratio = full_rate / raw_rate;
  std::ostringstream table;
  table << "| path (one core, " << n << " records of " << bytes / n << " bytes avg) | M records/s | ns/record | vs raw parse |\n"
        << "| --- | ---: | ---: | ---: |\n";
  auto row = [&](const char* name, double rate) {
    if (rate <= 0)
      return;
    table << "| " << name << " | " << fmt(rate) << " | " << static_cast<int>(1e9 / rate + 0.5) << " | "
          << static_cast<int>(rate / raw_rate * 100 + 0.5) << "% |\n";
  };
  row("raw simdjson DOM parse (baseline)", raw_rate);
  row("JsonConverter decode into the value model", decode_rate);
  row("decode + encode (no SMTs)", codec_rate);
  row("decode + InsertField + ReplaceField + MaskField + Cast", chain_rate);
  row("**decode + InsertField + ReplaceField + MaskField + Cast + encode**", full_rate);
  std::cout << table.str() << "\nratio full path / raw parse: " << static_cast<int>(ratio * 100 + 0.5)
            << "% (target >= 40%)\n";

  if (write) {
    std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    std::ofstream f(WEIR_BENCH_RESULTS "/transforms.md");
    f << "# Transform path throughput\n\n"
      << "Produced by `build/bench/transform_bench --write-results` (" << date << "). Records per CPU second\n"
      << "of one core (the process pinned to one CPU, time measured as the thread's CPU time), best of\n"
      << "repeated passes over the same records, each path measured in the same run. Issue 4's target:\n"
      << "the full path at >= 40% of the raw parse rate.\n\n"
      << table.str() << "\n**Full path / raw parse: " << static_cast<int>(ratio * 100 + 0.5) << "%**\n\n"
      << "Chain: `InsertField$Value` (topic.field, offset.field), `ReplaceField$Value` (exclude one field,\n"
      << "rename one), `MaskField$Value` (two string fields), `Cast$Value` (string -> float64, int64 -> int32);\n"
      << "JsonConverter with schemas.enable=false for values, StringConverter for (null) keys; batches of "
      << batch_size << ".\n\n"
      << "Example input: `" << records[0] << "`\n\n"
      << "Example output: `" << sample << "`\n\n"
      << "Machine: " << std::thread::hardware_concurrency() << " cores, " << cpu_model() << "\n"
      << "Build: g++ " << __VERSION__ << ", buildtype " << WEIR_BUILDTYPE << ", simdjson " << SIMDJSON_STRINGIFY(SIMDJSON_VERSION)
      << " (implementation: " << simdjson::get_active_implementation()->name() << ")\n";
    std::cout << "wrote " << WEIR_BENCH_RESULTS "/transforms.md\n";
  }
  return 0;
}
