// The Avro binary path of the AvroConverter (runtime/convert/avro_binary.cpp) beside
// Avro C's generic value reader on the same record, so that writing the codec rather
// than decoding through libavro (docs/transforms.md, "AvroConverter") rests on a
// figure. weir's decode builds the value model in an arena; Avro C's only fills its
// avro_value_t (turning that into weir values would cost more on top).
//
//   build/bench/avro_bench [--seconds S]
//
// A shared 2-core machine moves the rates by 20% and more: compare within one run.
#include <avro.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/convert/avro_binary.hpp"
#include "runtime/convert/avro_schema.hpp"
#include "runtime/data/decimal.hpp"

namespace {

using namespace weir::runtime::data;
namespace avro = weir::runtime::convert::avro;
using Clock = std::chrono::steady_clock;

template <class F>
double per_second(double seconds, F&& f) {
  long n = 0;
  auto t0 = Clock::now();
  double elapsed = 0;
  do {
    for (int i = 0; i < 1000; ++i)
      f();
    n += 1000;
    elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (elapsed < seconds);
  return static_cast<double>(n) / elapsed;
}

} // namespace

int main(int argc, char** argv) {
  double seconds = 2;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--seconds") == 0)
      seconds = std::stod(argv[i + 1]);

  auto schema = SchemaBuilder::struct_()
                    .name("com.example.Order")
                    .field("id", schemas::int64())
                    .field("customer", schemas::string())
                    .field("price", SchemaBuilder::decimal(2).build())
                    .field("at", schemas::timestamp())
                    .field("qty", schemas::int32())
                    .field("note", schemas::optional_string())
                    .field("paid", SchemaBuilder(Type::Boolean).build())
                    .field("score", SchemaBuilder(Type::Float64).build())
                    .field("tags", SchemaBuilder::array(schemas::string()).build())
                    .build();
  Arena arena;
  Value v = Value::structure(arena, *schema);
  auto f = v.fields();
  f[0] = Value::int64(123456789);
  f[1] = Value::string("customer-00042@example.com");
  f[2] = Value::bytes(arena.copy(decimal_bytes(1999)));
  f[3] = Value::int64(1700000000123);
  f[4] = Value::int32(3);
  f[5] = Value::string("leave at the door");
  f[6] = Value::boolean(true);
  f[7] = Value::float64(0.875);
  f[8] = Value::array(arena, 3);
  for (auto tag : {"red", "large", "gift"})
    f[8].push_back(arena, Value::string(tag));

  const std::string json = avro::schema_json(*schema);
  auto parsed = avro::ParsedSchema::parse(json);
  std::string bytes;
  avro::encode(*schema, v, bytes);

  Arena decode_arena;
  long decoded = 0;
  double weir_decode = per_second(seconds, [&] {
    decoded += avro::decode(parsed->root(), bytes, decode_arena).size();
    decode_arena.reset();
  });
  std::string out;
  double weir_encode = per_second(seconds, [&] {
    out.clear();
    avro::encode(*schema, v, out);
  });

  avro_schema_t c_schema = nullptr;
  if (avro_schema_from_json_length(json.data(), json.size(), &c_schema) != 0) {
    std::fprintf(stderr, "avro-c: %s\n", avro_strerror());
    return 1;
  }
  avro_value_iface_t* iface = avro_generic_class_from_schema(c_schema);
  avro_value_t c_value;
  avro_generic_value_new(iface, &c_value);
  avro_reader_t reader = avro_reader_memory(bytes.data(), static_cast<int64_t>(bytes.size()));
  int failures = 0;
  double c_decode = per_second(seconds, [&] {
    avro_reader_memory_set_source(reader, bytes.data(), static_cast<int64_t>(bytes.size()));
    avro_value_reset(&c_value);
    failures += avro_value_read(reader, &c_value) != 0;
  });
  avro_reader_free(reader);
  avro_value_decref(&c_value);
  avro_value_iface_decref(iface);
  avro_schema_decref(c_schema);

  std::printf("record: %zu bytes of Avro, 9 fields (string, decimal, timestamp, optional, array of 3)\n",
              bytes.size());
  std::printf("weir decode into the value model  %10.0f records/s\n", weir_decode);
  std::printf("avro-c avro_value_read (generic)  %10.0f records/s%s\n", c_decode,
              failures ? "  (READ FAILURES)" : "");
  std::printf("weir encode from the value model  %10.0f records/s\n", weir_encode);
  return decoded > 0 && failures == 0 ? 0 : 1;
}
