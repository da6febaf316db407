#include <boost/test/unit_test.hpp>

#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include <httplib.h>
#include <simdjson.h>

#include "runtime/convert/avro_binary.hpp"
#include "runtime/convert/avro_compatibility.hpp"
#include "runtime/convert/avro_converter.hpp"
#include "runtime/convert/avro_schema.hpp"
#include "runtime/data/decimal.hpp"

using namespace weir;
using namespace weir::runtime;
using namespace weir::runtime::convert;
using namespace weir::runtime::data;

namespace {

/// An in-process Schema Registry: the endpoints the converter calls, on 127.0.0.1.
class FakeRegistry {
public:
  FakeRegistry() {
    server_.Post(R"(/subjects/([^/]+)/versions)", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex_);
      const std::string subject = req.matches[1];
      authorization_ = req.get_header_value("Authorization");
      if (refused_.count(subject)) {
        res.status = 409;
        res.set_content(R"({"error_code":409,"message":"Schema being registered is incompatible with an earlier schema"})",
                        "application/json");
        return;
      }
      const std::string schema = schema_of(req.body);
      int32_t id = id_of(schema);
      if (id == 0) {
        id = next_id_++;
        schemas_[id] = schema;
      }
      subjects_[subject].push_back(id);
      res.set_content(R"({"id":)" + std::to_string(id) + "}", "application/json");
    });
    server_.Post(R"(/subjects/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex_);
      const std::string subject = req.matches[1];
      const int32_t id = id_of(schema_of(req.body));
      for (size_t v = 0; v < subjects_[subject].size(); ++v)
        if (subjects_[subject][v] == id) {
          res.set_content(R"({"subject":")" + subject + R"(","version":)" + std::to_string(v + 1) + R"(,"id":)" +
                              std::to_string(id) + "}",
                          "application/json");
          return;
        }
      res.status = 404;
      res.set_content(R"({"error_code":40403,"message":"Schema not found"})", "application/json");
    });
    server_.Get(R"(/subjects/([^/]+)/versions/latest)", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex_);
      const auto& versions = subjects_[req.matches[1]];
      if (versions.empty()) {
        res.status = 404;
        res.set_content(R"({"error_code":40401,"message":"Subject not found."})", "application/json");
        return;
      }
      std::string body = R"({"version":)" + std::to_string(versions.size()) + R"(,"id":)" +
                         std::to_string(versions.back()) + R"(,"schema":)";
      append_quoted(schemas_[versions.back()], body);
      res.set_content(body + "}", "application/json");
    });
    server_.Get(R"(/schemas/ids/(\d+))", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex_);
      const int32_t id = std::stoi(req.matches[1]);
      ++fetches_[id];
      auto it = schemas_.find(id);
      if (it == schemas_.end()) {
        res.status = 404;
        res.set_content(R"({"error_code":40403,"message":"Schema )" + std::to_string(id) + R"( not found"})",
                        "application/json");
        return;
      }
      std::string body = R"({"schema":)";
      append_quoted(it->second, body);
      res.set_content(body + "}", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running())
      std::this_thread::yield();
  }
  ~FakeRegistry() {
    server_.stop();
    thread_.join();
  }

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  /// A schema registered by someone else, as version 1 of `subject`.
  void put(int32_t id, std::string schema, const std::string& subject) {
    std::lock_guard lock(mutex_);
    schemas_[id] = std::move(schema);
    subjects_[subject].push_back(id);
  }
  std::string schema(int32_t id) {
    std::lock_guard lock(mutex_);
    return schemas_[id];
  }
  void refuse(std::string subject) {
    std::lock_guard lock(mutex_);
    refused_[std::move(subject)] = true;
  }
  int fetches(int32_t id) {
    std::lock_guard lock(mutex_);
    return fetches_[id];
  }
  std::string authorization() {
    std::lock_guard lock(mutex_);
    return authorization_;
  }
  std::vector<int32_t> versions(const std::string& subject) {
    std::lock_guard lock(mutex_);
    return subjects_[subject];
  }

private:
  static std::string schema_of(const std::string& body) {
    simdjson::dom::parser parser;
    return std::string(parser.parse(body)["schema"].get_string().value());
  }
  int32_t id_of(const std::string& schema) const {
    for (const auto& [id, s] : schemas_)
      if (s == schema)
        return id;
    return 0;
  }
  static void append_quoted(const std::string& s, std::string& out) {
    out += '"';
    for (char c : s) {
      if (c == '"' || c == '\\')
        out += '\\';
      out += c;
    }
    out += '"';
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  int32_t next_id_ = 1;
  std::map<int32_t, std::string> schemas_;
  std::map<std::string, std::vector<int32_t>> subjects_;
  std::map<std::string, bool> refused_;
  std::map<int32_t, int> fetches_;
  std::string authorization_;
};

RecordCodec codec(const std::string& url, std::map<std::string, std::string> more = {}) {
  more["schema.registry.url"] = url;
  return RecordCodec(make_converter("StringConverter", {}, true),
                     make_converter("io.confluent.connect.avro.AvroConverter", more, false, "value.converter."));
}

/// A batch of one record on `topic` whose value is made by `make` in the batch arena.
template <class Make>
DecodedBatch one_record(const std::string& topic, const SchemaPtr& schema, Make make) {
  Batch raw;
  raw.append(topic, 0, 7, 1000, std::string_view("k"), std::string_view("placeholder"));
  DecodedBatch b(std::move(raw));
  b[0].key = Value::string("k");
  b[0].value = make(b.arena());
  b[0].value_schema = schema ? b.retain(schema) : nullptr;
  return b;
}

Batch encode(RecordCodec& c, DecodedBatch& b) {
  Batch out;
  c.encode(b, out);
  return out;
}

std::string bytes_of(const Batch& b, size_t i = 0) { return std::string(b.bytes(b[i].value)); }

std::string hex(std::string_view s) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (!out.empty()) out += ' ';
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

Batch raw_value(const std::string& topic, std::string_view value) {
  Batch raw;
  raw.append(topic, 0, 0, 0, std::nullopt, value);
  return raw;
}

} // namespace

BOOST_AUTO_TEST_SUITE(avro_converter)

BOOST_AUTO_TEST_CASE(registered_under_its_class_name_and_aliases) {
  FakeRegistry registry;
  for (auto name : {"io.confluent.connect.avro.AvroConverter", "AvroConverter", "Avro"})
    BOOST_TEST(make_converter(name, {{"schema.registry.url", registry.url()}}, false)->class_name() ==
               AvroConverter::class_name_v);
  BOOST_CHECK_EXCEPTION(make_converter("Avro", {}, false, "value.converter."), ConfigError, [](const ConfigError& e) {
    return std::string(e.what()).find("value.converter.schema.registry.url") != std::string::npos;
  });
  BOOST_CHECK_EXCEPTION(make_converter("Avro", {{"schema.registry.url", "ftp://registry"}}, false), ConfigError,
                        [](const ConfigError& e) { return std::string(e.what()).find("ftp://registry") != std::string::npos; });
  BOOST_CHECK_THROW(make_converter("Avro",
                                   {{"schema.registry.url", registry.url()},
                                    {"value.subject.name.strategy", "io.confluent.NoSuchStrategy"}},
                                   false),
                    ConfigError);
}

BOOST_AUTO_TEST_CASE(exact_bytes_of_a_small_record) {
  FakeRegistry registry;
  auto schema = SchemaBuilder::struct_()
                    .name("com.example.Small")
                    .field("id", schemas::int32())
                    .field("amount", schemas::int64())
                    .field("name", schemas::string())
                    .build();
  auto c = codec(registry.url());
  auto b = one_record("orders", schema, [&](Arena& arena) {
    Value v = Value::structure(arena, *schema);
    v.fields()[0] = Value::int32(-2);
    v.fields()[1] = Value::int64(300);
    v.fields()[2] = Value::string("hi");
    return v;
  });
  Batch out = encode(c, b);
  BOOST_REQUIRE(out.size() == 1u);
  // Magic 0, schema id 1 big-endian; zigzag -2 = 3, 300 = 600 = d8 04; "hi" = length 2 (04) + bytes.
  BOOST_TEST(hex(bytes_of(out)) == "00 00 00 00 01 03 d8 04 04 68 69");
  BOOST_TEST(registry.versions("orders-value") == std::vector<int32_t>{1});
  BOOST_TEST(registry.schema(1) ==
             R"({"type":"record","name":"Small","namespace":"com.example","fields":[{"name":"id","type":"int"},)"
             R"({"name":"amount","type":"long"},{"name":"name","type":"string"}],"connect.name":"com.example.Small"})");
}

BOOST_AUTO_TEST_CASE(avro_schema_json_as_confluent_writes_it) {
  auto schema = SchemaBuilder::struct_()
                    .name("com.example.Order")
                    .field("id", schemas::int64())
                    .field("note", schemas::optional_string())
                    .field("price", SchemaBuilder::decimal(2).build())
                    .field("at", schemas::timestamp())
                    .field("qty", SchemaBuilder(Type::Int16).build())
                    .field("size", SchemaBuilder::decimal(3).parameter("connect.decimal.precision", "10").optional().build())
                    .build();
  BOOST_TEST(avro::schema_json(*schema) ==
             R"({"type":"record","name":"Order","namespace":"com.example","fields":[)"
             R"({"name":"id","type":"long"},)"
             R"({"name":"note","type":["null","string"],"default":null},)"
             R"({"name":"price","type":{"type":"bytes","scale":2,"precision":64,"connect.version":1,)"
             R"("connect.parameters":{"scale":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal",)"
             R"("logicalType":"decimal"}},)"
             R"({"name":"at","type":{"type":"long","connect.version":1,)"
             R"("connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}},)"
             R"({"name":"qty","type":{"type":"int","connect.type":"int16"}},)"
             R"({"name":"size","type":["null",{"type":"bytes","scale":3,"precision":10,"connect.version":1,)"
             R"("connect.parameters":{"scale":"3","connect.decimal.precision":"10"},)"
             R"("connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}],"default":null}],)"
             R"("connect.name":"com.example.Order"})");
  // Unnamed structs: ConnectDefault in Confluent's namespace, then ConnectDefault2, ...
  auto inner = SchemaBuilder::struct_().field("x", schemas::int32()).optional().build();
  auto outer = SchemaBuilder::struct_().field("a", inner).field("d", SchemaBuilder::date().build()).build();
  BOOST_TEST(avro::schema_json(*outer) ==
             R"({"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[)"
             R"({"name":"a","type":["null",{"type":"record","name":"ConnectDefault2","fields":[)"
             R"({"name":"x","type":"int"}]}],"default":null},)"
             R"({"name":"d","type":{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date",)"
             R"("logicalType":"date"}}]})");
  // Confluent's testFromConnectStructsWithNullName: one unnamed struct used twice (and
  // once required, once optional) is one record, ConnectDefault2, named the second time.
  auto value = SchemaBuilder::struct_().field("value", schemas::int64()).optional().build();
  auto required_value = SchemaBuilder::struct_().field("value", schemas::int64()).build();
  auto twice = SchemaBuilder::struct_()
                   .field("struct", value)
                   .field("array", SchemaBuilder::array(value).build())
                   .field("again", required_value)
                   .build();
  BOOST_TEST(avro::schema_json(*twice) ==
             R"({"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[)"
             R"({"name":"struct","type":["null",{"type":"record","name":"ConnectDefault2","fields":[)"
             R"({"name":"value","type":"long"}]}],"default":null},)"
             R"({"name":"array","type":{"type":"array","items":["null","ConnectDefault2"]}},)"
             R"({"name":"again","type":"ConnectDefault2"}]})");
  // Read back (Avro C accepts it, the references resolve): the same Connect schema.
  BOOST_TEST(avro::ParsedSchema::parse(avro::schema_json(*twice))->connect()->equals(*twice));
  BOOST_TEST(avro::ParsedSchema::parse(avro::schema_json(*schema))->connect()->equals(*schema));
  // RecordNameStrategy's names: the record's full name, else Avro's type name.
  BOOST_TEST(avro::record_name(*schema) == "com.example.Order");
  BOOST_TEST(avro::record_name(*twice) == "io.confluent.connect.avro.ConnectDefault");
  BOOST_TEST(avro::record_name(*SchemaBuilder(Type::Float64).build()) == "double");
  BOOST_TEST(avro::record_name(*SchemaBuilder(Type::Int16).build()) == "int");
  // connect.meta.data=false: no connect.* properties, the logical types stay.
  BOOST_TEST(avro::schema_json(*SchemaBuilder::time().build(), {false}) ==
             R"({"type":"int","logicalType":"time-millis"})");
}

BOOST_AUTO_TEST_CASE(round_trip_of_every_type) {
  FakeRegistry registry;
  auto nested = SchemaBuilder::struct_().name("com.example.Point").field("x", schemas::int32()).optional().build();
  auto schema =
      SchemaBuilder::struct_()
          .name("com.example.Everything")
          .version(3)
          .doc("all of it")
          .field("i8", SchemaBuilder(Type::Int8).build())
          .field("i16", SchemaBuilder(Type::Int16).build())
          .field("i32", schemas::int32())
          .field("i64", schemas::int64())
          .field("f32", SchemaBuilder(Type::Float32).build())
          .field("f64", SchemaBuilder(Type::Float64).build())
          .field("flag", SchemaBuilder(Type::Boolean).build())
          .field("text", schemas::string())
          .field("raw", SchemaBuilder(Type::Bytes).build())
          .field("maybe", schemas::optional_string())
          .field("absent", schemas::optional_int64())
          .field("price", SchemaBuilder::decimal(2).build())
          .field("day", SchemaBuilder::date().build())
          .field("clock", SchemaBuilder::time().build())
          .field("at", schemas::timestamp())
          .field("list", SchemaBuilder::array(schemas::int32()).build())
          .field("dict", SchemaBuilder::map(schemas::string(), schemas::int64()).build())
          .field("by_id", SchemaBuilder::map(schemas::int32(), schemas::string()).build())
          .field("point", nested)
          .field("no_point", nested)
          .field("tagged", SchemaBuilder(Type::String).parameter("owner", "ops").build())
          .build();
  auto c = codec(registry.url());
  auto b = one_record("everything", schema, [&](Arena& arena) {
    Value v = Value::structure(arena, *schema);
    auto f = v.fields();
    f[0] = Value::int8(-8);
    f[1] = Value::int16(-1600);
    f[2] = Value::int32(2147483647);
    f[3] = Value::int64(-9223372036854775807LL - 1);
    f[4] = Value::float32(1.5f);
    f[5] = Value::float64(-2.25e100);
    f[6] = Value::boolean(true);
    f[7] = Value::string("héllo \"world\"");
    f[8] = Value::bytes(std::string_view("\0\xff\x01", 3));
    f[9] = Value::string("here");
    f[10] = Value();
    f[11] = Value::bytes(arena.copy(decimal_bytes(-12345))); // -123.45
    f[12] = Value::int32(19000);
    f[13] = Value::int32(3600000);
    f[14] = Value::int64(1700000000123);
    f[15] = Value::array(arena, 3);
    for (int i : {1, -1, 300})
      f[15].push_back(arena, Value::int32(i));
    f[16] = Value::map(arena, 2);
    f[16].append(arena, Value::string("a"), Value::int64(1));
    f[16].append(arena, Value::string("b"), Value::int64(-2));
    f[17] = Value::map(arena, 2);
    f[17].append(arena, Value::int32(7), Value::string("seven"));
    f[17].append(arena, Value::int32(-1), Value::string("minus one"));
    f[18] = Value::structure(arena, *nested);
    f[18].fields()[0] = Value::int32(42);
    f[19] = Value();
    f[20] = Value::string("t");
    return v;
  });
  Batch out = encode(c, b);
  BOOST_REQUIRE(b.errors().empty());
  BOOST_REQUIRE(out.size() == 1u);
  auto reader = codec(registry.url());
  DecodedBatch back = reader.decode(std::move(out));
  BOOST_REQUIRE_MESSAGE(back.errors().empty(), back.errors().all()[0].message);
  BOOST_TEST(to_debug_string(back[0].value) == to_debug_string(b[0].value));
  BOOST_TEST((back[0].value == b[0].value));
  BOOST_REQUIRE(back[0].value_schema != nullptr);
  BOOST_TEST(back[0].value_schema->equals(*schema), back[0].value_schema->describe());
  BOOST_TEST((back[0].value_schema->field("by_id")->schema->type() == Type::Map));
  BOOST_TEST(back[0].value_schema->field("price")->schema->decimal_scale() == 2);
  BOOST_TEST(*back[0].value_schema->doc() == "all of it");
  BOOST_TEST(*back[0].value_schema->version() == 3);

  // The same schema again: no second registration, the id comes from the cache.
  auto again = one_record("everything", schema, [&](Arena&) { return b[0].value; });
  Batch out2 = encode(c, again);
  BOOST_TEST(hex(bytes_of(out2)).substr(0, 14) == "00 00 00 00 01");
  BOOST_TEST(registry.versions("everything-value").size() == 1u);
}

BOOST_AUTO_TEST_CASE(decodes_avro_native_schemas_enums_fixed_and_unions) {
  FakeRegistry registry;
  registry.put(42, R"({"type":"record","name":"Event","namespace":"com.acme","doc":"an event","fields":[)"
                   R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["CREATED","DELETED"]}},)"
                   R"({"name":"hash","type":{"type":"fixed","name":"Hash","size":2}},)"
                   R"({"name":"either","type":["null","int","string"]},)"
                   R"({"name":"maybe","type":["string","null"]},)"
                   R"({"name":"tags","type":{"type":"map","values":"string"}},)"
                   R"({"name":"count","type":"int","doc":"how many","default":7},)"
                   R"({"name":"single","type":["long"]}]})",
               "events-value");
  std::string value("\0\0\0\0\x2a", 5);
  value += '\x02';           // kind: index 1, DELETED
  value += "\xab\xcd";       // hash: 2 fixed bytes
  value += '\x04';           // either: branch 2 (string)
  value += "\x06" "abc";     // "abc"
  value += '\x02';           // maybe: branch 1 (null)
  value += "\x02\x02k\x02v"; // tags: one entry k -> v
  value += '\x00';           // end of map
  value += '\x0e';           // count: 7
  value += std::string_view("\x00\x04", 2); // single: branch 0, 2
  auto reader = codec(registry.url());
  Batch raw = raw_value("events", value);
  raw.append("events", 0, 1, 0, std::nullopt, std::string_view(value));
  DecodedBatch b = reader.decode(std::move(raw));
  BOOST_REQUIRE_MESSAGE(b.errors().empty(), b.errors().all()[0].message);
  const Schema& s = *b[0].value_schema;
  BOOST_TEST(*s.name() == "com.acme.Event");
  BOOST_TEST(*s.version() == 1); // the subject's version: the schema has no connect.version
  const Schema& kind = *s.field("kind")->schema;
  BOOST_TEST((kind.type() == Type::String));
  BOOST_TEST(*kind.parameter("io.confluent.connect.avro.Enum") == "com.acme.Kind");
  BOOST_TEST(*kind.parameter("io.confluent.connect.avro.Enum.DELETED") == "DELETED");
  BOOST_TEST(b[0].value.field("kind")->as_string() == "DELETED");
  BOOST_TEST(*s.field("hash")->schema->parameter("connect.fixed.size") == "2");
  BOOST_TEST(b[0].value.field("hash")->as_string() == "\xab\xcd");
  const Schema& either = *s.field("either")->schema;
  BOOST_TEST(*either.name() == "io.confluent.connect.avro.Union");
  BOOST_TEST(either.optional());
  BOOST_TEST(either.fields().size() == 2u);
  BOOST_TEST(either.fields()[0].name == "int");
  BOOST_TEST(either.fields()[1].name == "string");
  const Value* e = b[0].value.field("either");
  BOOST_TEST(e->fields()[0].is_null());
  BOOST_TEST(e->fields()[1].as_string() == "abc");
  BOOST_TEST(s.field("maybe")->schema->optional());
  BOOST_TEST(b[0].value.field("maybe")->is_null());
  BOOST_TEST(b[0].value.field("tags")->find("k")->as_string() == "v");
  // Docs become parameters; a field default becomes the Connect default, flagged.
  BOOST_TEST(*s.parameter("io.confluent.connect.avro.record.doc") == "an event");
  BOOST_TEST(*s.parameter("io.confluent.connect.avro.field.doc.count") == "how many");
  const Schema& count = *s.field("count")->schema;
  BOOST_REQUIRE(count.default_value() != nullptr);
  BOOST_TEST(count.default_value()->as_int() == 7);
  BOOST_TEST(*count.parameter("io.confluent.connect.avro.field.default") == "true");
  BOOST_TEST(b[0].value.field("count")->as_int() == 7);
  // A union of one type is a Union struct too.
  const Schema& single = *s.field("single")->schema;
  BOOST_TEST(*single.name() == "io.confluent.connect.avro.Union");
  BOOST_TEST(b[0].value.field("single")->fields()[0].as_int() == 2);
  // Two records of id 42, one fetch.
  BOOST_TEST(b[1].live());
  BOOST_TEST(registry.fetches(42) == 1);

  // The Union struct writes back as the union it came from.
  std::string encoded;
  avro::encode(either, *e, encoded);
  BOOST_TEST(hex(encoded) == "04 06 61 62 63");
  BOOST_TEST(avro::schema_json(either) == R"(["null","int","string"])");
  // Written back: the docs and the field default where Avro keeps them.
  const std::string again = avro::schema_json(s);
  BOOST_TEST(again.find(R"("namespace":"com.acme","doc":"an event","fields")") != std::string::npos, again);
  BOOST_TEST(again.find(R"({"name":"count","type":"int","doc":"how many","default":7})") != std::string::npos, again);
}

// The DataError `f` throws, or "" when it throws none.
template <class F>
std::string data_error(F f) {
  try {
    f();
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

BOOST_AUTO_TEST_CASE(bytes_with_connect_fixed_size_write_as_avro_fixed) {
  // AvroData: named bytes with connect.fixed.size are an Avro fixed of that size, named
  // as the Connect schema; written once, then by name. Unnamed bytes stay bytes.
  auto hash = SchemaBuilder(Type::Bytes).name("com.acme.Hash").parameter("connect.fixed.size", "2").build();
  auto other = SchemaBuilder(Type::Bytes).name("org.x.Other").parameter("connect.fixed.size", "1").optional().build();
  auto unnamed = SchemaBuilder(Type::Bytes).parameter("connect.fixed.size", "2").build();
  auto event = SchemaBuilder::struct_()
                   .name("com.acme.Event")
                   .field("hash", hash)
                   .field("again", hash)
                   .field("other", other)
                   .field("raw", unnamed)
                   .build();
  BOOST_TEST(avro::schema_json(*event) ==
             R"({"type":"record","name":"Event","namespace":"com.acme","fields":[)"
             R"({"name":"hash","type":{"type":"fixed","name":"Hash","size":2,)"
             R"("connect.parameters":{"connect.fixed.size":"2"},"connect.name":"com.acme.Hash"}},)"
             R"({"name":"again","type":"Hash"},)"
             R"({"name":"other","type":["null",{"type":"fixed","name":"Other","namespace":"org.x","size":1,)"
             R"("connect.parameters":{"connect.fixed.size":"1"},"connect.name":"org.x.Other"}],"default":null},)"
             R"({"name":"raw","type":{"type":"bytes","connect.parameters":{"connect.fixed.size":"2"}}}],)"
             R"("connect.name":"com.acme.Event"})");
  BOOST_TEST(avro::schema_json(*event, {false}) ==
             R"({"type":"record","name":"Event","namespace":"com.acme","fields":[)"
             R"({"name":"hash","type":{"type":"fixed","name":"Hash","size":2}},)"
             R"({"name":"again","type":"Hash"},)"
             R"({"name":"other","type":["null",{"type":"fixed","name":"Other","namespace":"org.x","size":1}],"default":null},)"
             R"({"name":"raw","type":"bytes"}]})");
  BOOST_TEST(avro::ParsedSchema::parse(avro::schema_json(*event))->connect()->equals(*event));

  // Binary: a fixed is its bytes, no length; bytes keep theirs.
  Arena arena;
  Value v = Value::structure(arena, *event);
  v.fields()[0] = Value::bytes("\xab\xcd");
  v.fields()[1] = Value::bytes("\x01\x02");
  v.fields()[2] = Value::bytes("\xff");
  v.fields()[3] = Value::bytes("\x05\x06");
  std::string encoded;
  avro::encode(*event, v, encoded);
  BOOST_TEST(hex(encoded) == "ab cd 01 02 02 ff 04 05 06");

  // A value of another length fails, naming the field and both lengths.
  v.fields()[1] = Value::bytes("\x01\x02\x03");
  std::string ignored;
  BOOST_TEST(data_error([&] { avro::encode(*event, v, ignored); }) ==
             "Avro fixed com.acme.Hash at field again is 2 bytes, the value is 3");
  auto outer = SchemaBuilder::struct_().name("com.acme.Outer").field("inner", event).build();
  Value o = Value::structure(arena, *outer);
  o.fields()[0] = v;
  BOOST_TEST(data_error([&] { avro::encode(*outer, o, ignored); }) ==
             "Avro fixed com.acme.Hash at field inner.again is 2 bytes, the value is 3");
  v.fields()[1] = Value::bytes("\x01");
  BOOST_TEST(data_error([&] { avro::encode(*event, v, ignored); }) ==
             "Avro fixed com.acme.Hash at field again is 2 bytes, the value is 1");
  // encode_as (use.latest.version) into a fixed: the same check.
  auto target = avro::ParsedSchema::parse(avro::schema_json(*event));
  BOOST_TEST(data_error([&] { avro::encode_as(target->root(), v, ignored); }) ==
             "Avro fixed at field again is 2 bytes, the value is 1");

  // A decimal in a fixed: its unscaled bytes sign-extended to the size, as AvroData pads.
  auto price = SchemaBuilder::decimal(2).parameter("connect.decimal.precision", "9").parameter("connect.fixed.size", "4").build();
  BOOST_TEST(avro::schema_json(*price) ==
             R"({"type":"fixed","name":"Decimal","namespace":"org.apache.kafka.connect.data","size":4,)"
             R"("scale":2,"precision":9,"connect.version":1,)"
             R"("connect.parameters":{"scale":"2","connect.decimal.precision":"9","connect.fixed.size":"4"},)"
             R"("connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"})");
  std::string dec;
  avro::encode(*price, Value::bytes(arena.copy(decimal_bytes(-12345))), dec);
  BOOST_TEST(hex(dec) == "ff ff cf c7");
}

BOOST_AUTO_TEST_CASE(avro_fixed_round_trips_through_connect) {
  // Avro fixed -> Connect bytes with connect.fixed.size -> the same Avro fixed.
  const std::string json = R"({"type":"record","name":"Event","namespace":"com.acme","fields":[)"
                           R"({"name":"hash","type":{"type":"fixed","name":"Hash","size":2}},)"
                           R"({"name":"maybe","type":["null","Hash"],"default":null},)"
                           R"({"name":"ids","type":{"type":"array","items":{"type":"fixed","name":"Id","namespace":"org.ids","size":3}}}]})";
  auto parsed = avro::ParsedSchema::parse(json);
  const Schema& connect = *parsed->connect();
  BOOST_TEST(*connect.field("hash")->schema->name() == "com.acme.Hash");
  BOOST_TEST(*connect.field("hash")->schema->parameter("connect.fixed.size") == "2");
  BOOST_TEST(avro::schema_json(connect, {false}) == json);
  BOOST_TEST(avro::schema_json(connect) ==
             R"({"type":"record","name":"Event","namespace":"com.acme","fields":[)"
             R"({"name":"hash","type":{"type":"fixed","name":"Hash","size":2,)"
             R"("connect.parameters":{"connect.fixed.size":"2"},"connect.name":"com.acme.Hash"}},)"
             R"({"name":"maybe","type":["null","Hash"],"default":null},)"
             R"({"name":"ids","type":{"type":"array","items":{"type":"fixed","name":"Id","namespace":"org.ids","size":3,)"
             R"("connect.parameters":{"connect.fixed.size":"3"},"connect.name":"org.ids.Id"}}}],)"
             R"("connect.name":"com.acme.Event"})");
  BOOST_TEST(avro::ParsedSchema::parse(avro::schema_json(connect))->connect()->equals(connect));
  // The value's bytes come back the same.
  const std::string bytes("\xab\xcd" "\x02\x01\x02" "\x02\x01\x02\x03\x00", 10);
  Arena arena;
  Value v = avro::decode(parsed->root(), bytes, arena);
  std::string encoded;
  avro::encode(connect, v, encoded);
  BOOST_TEST(hex(encoded) == hex(bytes));
}

BOOST_AUTO_TEST_CASE(unknown_magic_byte_and_short_records) {
  FakeRegistry registry;
  auto reader = codec(registry.url());
  Batch raw = raw_value("payments", std::string_view("\x01\0\0\0\x01\x02", 6));
  raw.append("payments", 0, 1, 0, std::nullopt, std::string_view("\0\0", 2));
  DecodedBatch b = reader.decode(std::move(raw));
  BOOST_REQUIRE(b.errors().size() == 2u);
  const auto& bad_magic = b.errors().all()[0];
  BOOST_TEST(bad_magic.class_name == "io.confluent.connect.avro.AvroConverter");
  BOOST_TEST(bad_magic.exception_class == "org.apache.kafka.connect.errors.DataException");
  BOOST_TEST(bad_magic.message.find("topic payments") != std::string::npos, bad_magic.message);
  BOOST_TEST(bad_magic.message.find("Unknown magic byte!") != std::string::npos, bad_magic.message);
  const auto& short_record = b.errors().all()[1];
  BOOST_TEST(short_record.message.find("2 bytes") != std::string::npos, short_record.message);
}

BOOST_AUTO_TEST_CASE(malformed_binary_fails_the_record) {
  auto parsed = avro::ParsedSchema::parse(
      R"({"type":"record","name":"R","fields":[{"name":"xs","type":{"type":"array","items":"long"}},)"
      R"({"name":"e","type":{"type":"array","items":{"type":"record","name":"E","fields":[]}}}]})");
  Arena arena;
  auto fails = [&](std::string_view bytes, const std::string& what) {
    try {
      avro::decode(parsed->root(), bytes, arena);
    } catch (const DataError& e) {
      return std::string(e.what()).find(what) != std::string::npos;
    }
    return false;
  };
  BOOST_TEST(fails(std::string_view("\x04\x02\x02", 3), "ends early"));         // no end of the array
  BOOST_TEST(fails(std::string_view("\xfe\xff\xff\xff\x0f", 5), "a block of")); // a count far past the bytes
  BOOST_TEST(fails(std::string_view("\x00\xfe\xff\xff\xff\x0f", 6), "a block of")); // empty records: capped
  BOOST_TEST(fails(std::string_view("\x00\x00\x00", 3), "more than one value"));
  Value ok = avro::decode(parsed->root(), std::string_view("\x02\x04\x00\x04\x00", 5), arena);
  BOOST_TEST(ok.fields()[0].items()[0].as_int() == 2);
  BOOST_TEST(ok.fields()[1].size() == 2u);
}

BOOST_AUTO_TEST_CASE(unknown_schema_id) {
  FakeRegistry registry;
  auto reader = codec(registry.url());
  DecodedBatch b = reader.decode(raw_value("t", std::string_view("\0\0\0\0\x63\x02", 6)));
  BOOST_REQUIRE(b.errors().size() == 1u);
  const auto& m = b.errors().all()[0].message;
  BOOST_TEST(m.find("id 99") != std::string::npos, m);
  BOOST_TEST(m.find("Schema 99 not found") != std::string::npos, m);
  BOOST_TEST(registry.fetches(99) == 1);

  // A schema the registry holds, but not under the subject this topic names: Confluent's
  // deserializer fails looking up its version there, and so does weir.
  registry.put(43, R"("string")", "other-value");
  DecodedBatch elsewhere = reader.decode(raw_value("t", std::string_view("\0\0\0\0\x2b\x02x", 7)));
  BOOST_REQUIRE(elsewhere.errors().size() == 1u);
  const auto& m2 = elsewhere.errors().all()[0].message;
  BOOST_TEST(m2.find("\"t-value\"") != std::string::npos, m2);
  BOOST_TEST(m2.find("Schema not found") != std::string::npos, m2);
}

BOOST_AUTO_TEST_CASE(registry_down_stops_the_batch_naming_the_url_and_the_next_url_is_tried) {
  std::string down;
  {
    FakeRegistry gone;
    down = gone.url();
  }
  auto schema = SchemaBuilder::struct_().field("id", schemas::int32()).build();
  auto make = [&](Arena& arena) {
    Value v = Value::structure(arena, *schema);
    v.fields()[0] = Value::int32(1);
    return v;
  };
  // Not the record's fault: the batch stops with a RetriableError naming the URL, and
  // no record is marked Failed (nothing for the dead-letter queue).
  auto c = codec(down);
  auto b = one_record("t", schema, make);
  std::string outage;
  try {
    encode(c, b);
  } catch (const RetriableError& e) {
    outage = e.what();
  }
  BOOST_TEST(outage.find("Schema registry unreachable: " + down) != std::string::npos, outage);
  BOOST_TEST(b.errors().empty());

  FakeRegistry registry;
  auto listed = codec(down + "," + registry.url());
  auto b2 = one_record("t", schema, make);
  Batch out2 = encode(listed, b2);
  BOOST_TEST(b2.errors().empty());
  BOOST_TEST(out2.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_refused_schema_names_subject_and_message) {
  FakeRegistry registry;
  registry.refuse("orders-value");
  auto schema = SchemaBuilder::struct_().field("id", schemas::int32()).build();
  auto c = codec(registry.url());
  auto b = one_record("orders", schema, [&](Arena& arena) {
    Value v = Value::structure(arena, *schema);
    v.fields()[0] = Value::int32(1);
    return v;
  });
  encode(c, b);
  BOOST_REQUIRE(b.errors().size() == 1u);
  const auto& m = b.errors().all()[0].message;
  BOOST_TEST(m.find("\"orders-value\"") != std::string::npos, m);
  BOOST_TEST(m.find("409") != std::string::npos, m);
  BOOST_TEST(m.find("incompatible with an earlier schema") != std::string::npos, m);
}

BOOST_AUTO_TEST_CASE(lookup_without_auto_register_and_subject_strategies) {
  FakeRegistry registry;
  auto schema = SchemaBuilder::struct_().name("com.example.Thing").field("id", schemas::int32()).build();
  auto make = [&](Arena& arena) {
    Value v = Value::structure(arena, *schema);
    v.fields()[0] = Value::int32(5);
    return v;
  };
  auto lookup = codec(registry.url(), {{"auto.register.schemas", "false"}});
  auto b = one_record("things", schema, make);
  encode(lookup, b);
  BOOST_REQUIRE(b.errors().size() == 1u);
  BOOST_TEST(b.errors().all()[0].message.find("Schema not found") != std::string::npos, b.errors().all()[0].message);

  auto by_record = codec(registry.url(), {{"value.subject.name.strategy", "RecordNameStrategy"}});
  auto b2 = one_record("things", schema, make);
  encode(by_record, b2);
  BOOST_TEST(registry.versions("com.example.Thing") == std::vector<int32_t>{1});
  auto by_topic_record = codec(registry.url(), {{"value.subject.name.strategy",
                                                  "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"}});
  auto b3 = one_record("things", schema, make);
  encode(by_topic_record, b3);
  BOOST_TEST(registry.versions("things-com.example.Thing") == std::vector<int32_t>{1});

  // Registered now: the lookup finds it, and use.latest.version writes with the latest.
  auto found = codec(registry.url(), {{"auto.register.schemas", "false"},
                                       {"value.subject.name.strategy", "RecordNameStrategy"}});
  auto b4 = one_record("things", schema, make);
  Batch out = encode(found, b4);
  BOOST_TEST(b4.errors().empty());
  BOOST_TEST(hex(bytes_of(out)) == "00 00 00 00 01 0a");
  auto latest = codec(registry.url(), {{"use.latest.version", "true"}, {"auto.register.schemas", "false"},
                                        {"value.subject.name.strategy", "RecordNameStrategy"}});
  auto b5 = one_record("things", schema, make);
  Batch out5 = encode(latest, b5);
  BOOST_TEST(b5.errors().empty());
  BOOST_TEST(hex(bytes_of(out5)) == "00 00 00 00 01 0a");
}

BOOST_AUTO_TEST_CASE(scrub_name_as_avro_data) {
  BOOST_TEST(avro::scrub_name("ok_1") == "ok_1");
  BOOST_TEST(avro::scrub_name("address.city") == "address_city");
  BOOST_TEST(avro::scrub_name("1st") == "x1st");
  BOOST_TEST(avro::scrub_name("9.x") == "x9_x");
  BOOST_TEST(avro::scrub_name("a b") == "a_b");      // URL-encoded as a+b
  BOOST_TEST(avro::scrub_name("50%") == "x50_25");   // 50%25
  BOOST_TEST(avro::scrub_name("caf\xc3\xa9") == "caf_C3_A9");
  BOOST_TEST(avro::scrub_name("") == "");
}

BOOST_AUTO_TEST_CASE(invalid_names_scrubbed_or_refused_before_registering) {
  FakeRegistry registry;
  auto schema = SchemaBuilder::struct_()
                    .name("my-app.Order-Event")
                    .field("address.city", schemas::string())
                    .field("1st", schemas::int32())
                    .build();
  auto make = [&](Arena& arena) {
    Value v = Value::structure(arena, *schema);
    v.fields()[0] = Value::string("Oslo");
    v.fields()[1] = Value::int32(1);
    return v;
  };
  auto refusing = codec(registry.url());
  auto b = one_record("orders", schema, make);
  encode(refusing, b);
  BOOST_REQUIRE(b.errors().size() == 1u);
  BOOST_TEST(b.errors().all()[0].message ==
                 "Failed to serialize Avro data from topic orders : record name \"Order-Event\" (of Connect schema "
                 "\"my-app.Order-Event\") is not a valid Avro name (letters, digits and _, not starting with a digit); "
                 "set scrub.invalid.names=true to write it as \"Order_Event\", as Confluent's AvroConverter does",
             b.errors().all()[0].message);
  auto flat = SchemaBuilder::struct_().field("address.city", schemas::string()).build();
  auto b2 = one_record("orders", flat, [&](Arena& arena) {
    Value v = Value::structure(arena, *flat);
    v.fields()[0] = Value::string("Oslo");
    return v;
  });
  encode(refusing, b2);
  BOOST_REQUIRE(b2.errors().size() == 1u);
  BOOST_TEST(b2.errors().all()[0].message ==
                 "Failed to serialize Avro data from topic orders : field \"address.city\" of record "
                 "\"io.confluent.connect.avro.ConnectDefault\" is not a valid Avro name (letters, digits and _, not "
                 "starting with a digit); set scrub.invalid.names=true to write it as \"address_city\", as "
                 "Confluent's AvroConverter does",
             b2.errors().all()[0].message);
  BOOST_TEST(registry.versions("orders-value").empty()); // nothing was registered

  auto scrubbing = codec(registry.url(), {{"scrub.invalid.names", "true"},
                                          {"value.subject.name.strategy", "RecordNameStrategy"}});
  auto b3 = one_record("orders", schema, make);
  Batch out = encode(scrubbing, b3);
  BOOST_REQUIRE(b3.errors().empty());
  BOOST_TEST(hex(bytes_of(out)) == "00 00 00 00 01 08 4f 73 6c 6f 02");
  // The subject is the scrubbed full name; connect.name keeps the Connect name.
  BOOST_TEST(registry.versions("my_app.Order_Event") == std::vector<int32_t>{1});
  BOOST_TEST(registry.schema(1) ==
             R"({"type":"record","name":"Order_Event","namespace":"my_app","fields":[)"
             R"({"name":"address_city","type":"string"},{"name":"x1st","type":"int"}],)"
             R"("connect.name":"my-app.Order-Event"})");
}

BOOST_AUTO_TEST_CASE(enhanced_schema_support_writes_enums_back) {
  auto kind = SchemaBuilder(Type::String)
                  .name("com.acme.Kind")
                  .parameter("io.confluent.connect.avro.enum.doc.Kind", "what happened")
                  .parameter("io.confluent.connect.avro.Enum", "com.acme.Kind")
                  .parameter("io.confluent.connect.avro.Enum.CREATED", "CREATED")
                  .parameter("io.confluent.connect.avro.Enum.DELETED", "DELETED")
                  .build();
  auto schema = SchemaBuilder::struct_().name("com.acme.Event").field("kind", kind).field("again", kind).build();
  const std::string params =
      R"("connect.parameters":{"io.confluent.connect.avro.enum.doc.Kind":"what happened",)"
      R"("io.confluent.connect.avro.Enum":"com.acme.Kind","io.confluent.connect.avro.Enum.CREATED":"CREATED",)"
      R"("io.confluent.connect.avro.Enum.DELETED":"DELETED"},"connect.name":"com.acme.Kind"})";
  // Without it, what AvroData writes by default: strings.
  BOOST_TEST(avro::schema_json(*schema) ==
             R"({"type":"record","name":"Event","namespace":"com.acme","fields":[)"
             R"({"name":"kind","type":{"type":"string",)" + params + "},"
             R"({"name":"again","type":{"type":"string",)" + params + "}],"
             R"("connect.name":"com.acme.Event"})");
  avro::WriteOptions enhanced;
  enhanced.enhanced_schema_support = true;
  BOOST_TEST(avro::schema_json(*schema, enhanced) ==
             R"({"type":"record","name":"Event","namespace":"com.acme","fields":[)"
             R"({"name":"kind","type":{"type":"enum","name":"Kind","doc":"what happened",)"
             R"("symbols":["CREATED","DELETED"],)" + params + "},"
             R"({"name":"again","type":"Kind"}],"connect.name":"com.acme.Event"})");

  // An unnamed enum takes a ConnectDefault number, as AvroData's getNameOrDefault: its
  // doc is looked up under it, and the next unnamed record is ConnectDefault3.
  auto color = SchemaBuilder(Type::String)
                   .parameter("io.confluent.connect.avro.enum.doc.ConnectDefault2", "hue")
                   .parameter("io.confluent.connect.avro.Enum", "Color")
                   .parameter("io.confluent.connect.avro.Enum.RED", "RED")
                   .build();
  auto unnamed = SchemaBuilder::struct_()
                     .field("e", color)
                     .field("n", SchemaBuilder::struct_().field("x", schemas::int32()).build())
                     .build();
  BOOST_TEST(avro::schema_json(*unnamed, enhanced) ==
             R"({"type":"record","name":"ConnectDefault","namespace":"io.confluent.connect.avro","fields":[)"
             R"({"name":"e","type":{"type":"enum","name":"Color","namespace":"","doc":"hue","symbols":["RED"],)"
             R"("connect.parameters":{"io.confluent.connect.avro.enum.doc.ConnectDefault2":"hue",)"
             R"("io.confluent.connect.avro.Enum":"Color","io.confluent.connect.avro.Enum.RED":"RED"}}},)"
             R"({"name":"n","type":{"type":"record","name":"ConnectDefault3","fields":[{"name":"x","type":"int"}]}}]})");

  // Through the converter: read from a native Avro schema, written back as its enum.
  FakeRegistry registry;
  registry.put(42, R"({"type":"record","name":"Event","namespace":"com.acme","fields":[)"
                   R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["CREATED","DELETED"]}},)"
                   R"({"name":"who","type":["null","string",{"type":"record","name":"User","namespace":"com.people",)"
                   R"("fields":[{"name":"id","type":"int"}]}]}]})",
               "events-value");
  std::string value("\0\0\0\0\x2a", 5);
  value += '\x02';         // kind: DELETED
  value += "\x04\x06";     // who: branch 2 (User), id 3
  auto c = codec(registry.url(), {{"enhanced.avro.schema.support", "true"}});
  DecodedBatch b = c.decode(raw_value("events", value));
  BOOST_REQUIRE_MESSAGE(b.errors().empty(), b.errors().all()[0].message);
  const Schema& who = *b[0].value_schema->field("who")->schema;
  BOOST_TEST(who.fields()[1].name == "com.people.User"); // the full name, namespace kept
  auto plain = codec(registry.url());
  DecodedBatch p = plain.decode(raw_value("events", value));
  BOOST_TEST(p[0].value_schema->field("who")->schema->fields()[1].name == "User");

  // Written back (a new version of the subject): the enum's index, the enum in the schema.
  Batch out = encode(c, b);
  BOOST_REQUIRE_MESSAGE(b.errors().empty(), b.errors().all()[0].message);
  BOOST_TEST(hex(bytes_of(out)) == "00 00 00 00 01 02 04 06");
  const std::string written = registry.schema(1);
  BOOST_TEST(written.find(R"({"name":"kind","type":{"type":"enum","name":"Kind","symbols":["CREATED","DELETED"],)") !=
                 std::string::npos,
             written);
  BOOST_TEST(written.find(R"({"type":"record","name":"User","namespace":"com.people",)") != std::string::npos, written);
  // A string that is not one of the symbols fails the record.
  b[0].value.fields()[0] = Value::string("GONE");
  encode(c, b);
  BOOST_REQUIRE(b.errors().size() == 1u);
  BOOST_TEST(b.errors().all()[0].message ==
                 "Failed to serialize Avro data from topic events : \"GONE\" is not a symbol of Avro enum "
                 "com.acme.Kind (CREATED, DELETED)",
             b.errors().all()[0].message);
}

BOOST_AUTO_TEST_CASE(keys_use_the_key_subject_and_basic_auth) {
  FakeRegistry registry;
  RecordCodec c(make_converter("Avro",
                               {{"schema.registry.url", registry.url()},
                                {"basic.auth.credentials.source", "USER_INFO"},
                                {"basic.auth.user.info", "fred:s3cret"}},
                               true, "key.converter."),
                make_converter("StringConverter", {}, false));
  Batch raw;
  raw.append("users", 0, 0, 0, std::string_view("placeholder"), std::string_view("v"));
  DecodedBatch b(std::move(raw));
  b[0].key = Value::string("user-1");
  b[0].key_schema = b.retain(schemas::string());
  b[0].value = Value::string("v");
  Batch out = encode(c, b);
  BOOST_REQUIRE(b.errors().empty());
  BOOST_TEST(registry.versions("users-key") == std::vector<int32_t>{1});
  BOOST_TEST(registry.schema(1) == R"("string")");
  BOOST_TEST(hex(out.bytes(out[0].key)) == "00 00 00 00 01 0c 75 73 65 72 2d 31");
  BOOST_TEST(registry.authorization() == "Basic ZnJlZDpzM2NyZXQ="); // base64("fred:s3cret")
  // Read back through the key side too.
  DecodedBatch back = c.decode(std::move(out));
  BOOST_REQUIRE(back.errors().empty());
  BOOST_TEST(back[0].key.as_string() == "user-1");
  BOOST_TEST((back[0].key_schema->type() == Type::String));
}

BOOST_AUTO_TEST_CASE(schemaless_values_and_nulls) {
  FakeRegistry registry;
  auto c = codec(registry.url());
  auto b = one_record("t", nullptr, [](Arena&) { return Value::int64(1); });
  encode(c, b);
  BOOST_REQUIRE(b.errors().size() == 1u);
  BOOST_TEST(b.errors().all()[0].message.find("no Connect schema") != std::string::npos, b.errors().all()[0].message);
  // A null value is a Kafka null without a schema or with an optional one; a required
  // schema refuses it.
  auto tombstone = one_record("t", nullptr, [](Arena&) { return Value(); });
  Batch out = encode(c, tombstone);
  BOOST_REQUIRE(out.size() == 1u);
  BOOST_TEST(out[0].value.is_null());
  auto optional_null = one_record("t", schemas::optional_string(), [](Arena&) { return Value(); });
  Batch out2 = encode(c, optional_null);
  BOOST_REQUIRE(out2.size() == 1u);
  BOOST_TEST(out2[0].value.is_null());
  auto required_null = one_record("t", schemas::string(), [](Arena&) { return Value(); });
  encode(c, required_null);
  BOOST_REQUIRE(required_null.errors().size() == 1u);
  BOOST_TEST(required_null.errors().all()[0].message.find("Found null value for non-optional schema") !=
             std::string::npos);
}


/// The record of the use.latest.version cases, com.example.Thing {id int32 = 5, name
/// string = "ab"}, and a registry to put latest schemas in.
struct LatestFixture {
  FakeRegistry registry;
  SchemaPtr schema =
      SchemaBuilder::struct_().name("com.example.Thing").field("id", schemas::int32()).field("name", schemas::string()).build();

  DecodedBatch record(const std::string& topic) {
    return one_record(topic, schema, [&](Arena& arena) {
      Value v = Value::structure(arena, *schema);
      v.fields()[0] = Value::int32(5);
      v.fields()[1] = Value::string("ab");
      return v;
    });
  }
  RecordCodec latest_codec(std::map<std::string, std::string> more = {}) {
    more.emplace("use.latest.version", "true");
    more.emplace("auto.register.schemas", "false");
    return codec(registry.url(), std::move(more));
  }
  /// The one error encoding the record to `topic` gives.
  std::string error_of(RecordCodec& c, const std::string& topic) {
    auto b = record(topic);
    encode(c, b);
    BOOST_REQUIRE(b.errors().size() == 1u);
    return b.errors().all()[0].message;
  }
};

BOOST_FIXTURE_TEST_CASE(use_latest_version_writes_in_the_latest_schema, LatestFixture) {
  registry.put(7, R"({"type":"record","name":"Thing","namespace":"com.example","fields":[)"
                  R"({"name":"id","type":"long"},{"name":"name","type":"string"},)"
                  R"({"name":"note","type":["null","string"],"default":null}]})",
               "things-value");
  auto latest = latest_codec();
  auto b = record("things");
  Batch out = encode(latest, b);
  BOOST_TEST(b.errors().empty());
  // id 7; id as a long (5), name "ab", note the null branch of its default.
  BOOST_TEST(hex(bytes_of(out)) == "00 00 00 00 07 0a 04 61 62 00");
  BOOST_TEST(registry.versions("things-value") == std::vector<int32_t>{7}); // nothing registered

  // auto.register.schemas comes first, as in Confluent's serializer: the record's own schema.
  auto registering = codec(registry.url(), {{"use.latest.version", "true"}});
  auto b2 = record("things");
  encode(registering, b2);
  BOOST_TEST(b2.errors().empty());
  BOOST_TEST(registry.versions("things-value").size() == 2u);
}

BOOST_FIXTURE_TEST_CASE(latest_compatibility_strict, LatestFixture) {
  // A latest with a required field the record lacks: refused when strict.
  registry.put(8, R"({"type":"record","name":"Thing","namespace":"com.example","fields":[)"
                  R"({"name":"id","type":"long"},{"name":"name","type":"string"},{"name":"tag","type":"string"}]})",
               "things-value");
  auto strict = latest_codec();
  BOOST_TEST(error_of(strict, "things") ==
             "Failed to serialize Avro data from topic things : Incompatible schema of type 'AVRO'. Set "
             "latest.compatibility.strict=false to disable this check. Error messages: "
             "{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'tag' at path '/fields/2' in "
             "the new schema has no default value and is missing in the old schema', additionalInfo:'tag'}");

  // Not strict: tried, and the missing required value fails the record.
  auto lax = latest_codec({{"latest.compatibility.strict", "false"}});
  BOOST_TEST(error_of(lax, "things") ==
             "Failed to serialize Avro data from topic things : field tag of the target schema is not in the "
             "record's schema and has no default");

  // Not strict: a latest of another name (strict refuses it) with the fields in another
  // order is written by field name: name as bytes, id as a double.
  registry.put(9, R"({"type":"record","name":"Other","fields":[)"
                  R"({"name":"name","type":"bytes"},{"name":"id","type":"double"}]})",
               "renamed-value");
  auto b3 = record("renamed");
  Batch out3 = encode(lax, b3);
  BOOST_TEST(b3.errors().empty());
  BOOST_TEST(hex(bytes_of(out3)) == "00 00 00 00 09 04 61 62 00 00 00 00 00 00 14 40");
  const std::string renamed = error_of(strict, "renamed");
  BOOST_TEST(renamed.find("errorType:'NAME_MISMATCH'") != std::string::npos, renamed);
}

BOOST_AUTO_TEST_CASE(encode_as_and_incompatibilities) {
  // Avro's promotions and a union branch chosen by the value's type.
  auto target = avro::ParsedSchema::parse(
      R"({"type":"record","name":"R","fields":[{"name":"f","type":"float"},{"name":"u","type":["null","long","string"]},)"
      R"({"name":"a","type":{"type":"array","items":"double"}}]})");
  auto own = SchemaBuilder::struct_()
                 .name("R")
                 .field("a", SchemaBuilder::array(schemas::of(Type::Int16)).build())
                 .field("u", schemas::int32())
                 .field("f", schemas::int64())
                 .build();
  Arena arena(1024);
  Value v = Value::structure(arena, *own);
  v.fields()[0] = Value::array(arena, 0);
  v.fields()[0].push_back(arena, Value::int16(1));
  v.fields()[1] = Value::int32(-1);
  v.fields()[2] = Value::int64(2);
  std::string out;
  avro::encode_as(target->root(), v, out);
  // f 2.0f, u branch 1 (long) -1, a [1.0]
  BOOST_TEST(hex(out) == "00 00 00 40 02 01 02 00 00 00 00 00 00 f0 3f 00");

  auto writer = avro::ParsedSchema::parse(
      R"({"type":"record","name":"R","fields":[{"name":"f","type":"double"},{"name":"u","type":"boolean"},)"
      R"({"name":"a","type":{"type":"array","items":"int"}}]})");
  const auto errors = avro::incompatibilities(target->root(), writer->root());
  BOOST_REQUIRE(errors.size() == 2u);
  BOOST_TEST(errors[0] == "{errorType:'TYPE_MISMATCH', description:'The type (path '/fields/0/type') of a field in the new "
                          "schema does not match with the old schema', additionalInfo:'reader type: FLOAT not compatible "
                          "with writer type: DOUBLE'}");
  BOOST_TEST(errors[1].find("MISSING_UNION_BRANCH") != std::string::npos, errors[1]);
  BOOST_TEST(avro::incompatibilities(writer->root(), writer->root()).empty());
}

BOOST_AUTO_TEST_SUITE_END()
