// Avro with a real Schema Registry (issue 27, "What it must show" 1 and 2): `weir
// standalone` against the real broker and the registry scripts/schema-registry.sh
// starts (WEIR_SCHEMA_REGISTRY_URL). What weir writes is read, and what weir reads is
// written, by tests/integration/avro_tool.py: fastavro and the Confluent framing by
// hand, no weir code.
//  1. DatagenConnector -> AvroConverter -> topic: the subject `<topic>-value` is
//     registered, every record carries magic 0 and its id, and the script decodes them
//     to the values the same seed gives through JsonConverter;
//  2. records the script encodes (its own schema, registered by it) -> the JDBC sink
//     with AvroConverter -> SQLite and PostgreSQL: columns typed from the Avro schema
//     (decimal -> NUMERIC, timestamp-millis -> TIMESTAMP), values exact;
//  3. a new optional field registered mid-stream: the sink's auto.evolve adds the
//     column; a schema the registry refuses as incompatible fails the task with an
//     error naming the topic and the subject;
//  4. SetSchemaMetadata, Cast, ReplaceField and Flatten between Datagen and
//     AvroConverter: the registry accepts what they make, and the script decodes the
//     values JsonConverter writes through the same chain;
// with AvroConverter set for the whole worker, a record that is not Avro goes to the
// DLQ (errors.tolerance=all) naming the converter and Confluent's error, and the others
// arrive; a registry that cannot be reached is an outage, not bad records: even with
// errors.tolerance=all the sink task fails naming it, and its DLQ stays empty; one
// back within errors.retry.timeout (a Toxiproxy proxy disabled, then enabled) costs
// nothing.
#include "tests/support/kafka_tools.hpp"
#include "tests/support/postgres.hpp"
#include "tests/support/ports.hpp"
#include "tests/support/process.hpp"
#include "tests/support/toxiproxy.hpp"

#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

using namespace weir::testing;
using namespace std::chrono_literals;

namespace {

std::string registry_url() {
  const char* url = std::getenv("WEIR_SCHEMA_REGISTRY_URL");
  BOOST_REQUIRE_MESSAGE(url && *url, "WEIR_SCHEMA_REGISTRY_URL is not set: this test needs a real Schema Registry "
                                     "(scripts/schema-registry.sh start prints its URL, or run scripts/test.sh)");
  return url;
}

std::string python() {
  const char* p = std::getenv("WEIR_PYTHON");
  return p && *p ? p : "python3";
}

std::string tool() {
  const char* dir = std::getenv("WEIR_TESTS_DIR");
  BOOST_REQUIRE_MESSAGE(dir && *dir, "WEIR_TESTS_DIR is not set (tests/integration/meson.build sets it)");
  return std::string{dir} + "/avro_tool.py";
}

std::string hex(const std::string& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

std::string unhex(const std::string& text) {
  std::string out;
  for (size_t i = 0; i + 1 < text.size(); i += 2)
    out += static_cast<char>(std::stoi(text.substr(i, 2), nullptr, 16));
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty())
      out.push_back(line);
  return out;
}

/// Runs avro_tool.py with `args`, `input` on its stdin; its stdout. Fails the test
/// when it exits non-zero, with what it said.
std::string run_tool(const TempDir& dir, const std::string& args, const std::string& input) {
  auto in = dir / "tool.in", out = dir / "tool.out", err = dir / "tool.err";
  {
    std::ofstream f(in);
    f << input;
  }
  auto cmd = python() + " " + tool() + " " + args + " < " + in + " > " + out + " 2> " + err;
  int rc = std::system(cmd.c_str());
  BOOST_REQUIRE_MESSAGE(rc == 0, cmd << " failed (" << rc << "): " << read_file(err));
  return read_file(out);
}

std::string shell_quoted(const std::string& s) { return "'" + s + "'"; }

struct Setup : StandaloneFiles {
  std::string registry = registry_url();

  explicit Setup(const std::map<std::string, std::string>& worker = {})
    : StandaloneFiles("weir-itest-avro", worker) {}
  std::map<std::string, std::string> avro_values() const {
    return {{"value.converter", "io.confluent.connect.avro.AvroConverter"},
            {"value.converter.schema.registry.url", registry}};
  }
};

/// Waits (60 s at most) until `sql` returns `n` rows from the SQLite file `db`; the
/// rows it returned last.
std::vector<std::vector<std::string>> wait_for_rows(const std::string& db, const std::string& sql, size_t n) {
  std::vector<std::vector<std::string>> rows;
  wait_until(60s, 250ms, [&] {
    if (!std::ifstream(db))
      return false;
    Sqlite sqlite(db);
    rows.clear();
    return sqlite.try_query(sql, rows).empty() && rows.size() == n;
  });
  return rows;
}

/// Runs the source `config` (without its topic) twice in one `weir standalone`: into
/// a new topic through JsonConverter and into another through AvroConverter; reads
/// `n` records of each. {JSON records, Avro records, the Avro topic}.
struct TwoTopics {
  std::vector<InRecord> json, avro;
  std::string avro_topic;
};
TwoTopics run_json_and_avro(const Setup& s, const std::string& name, std::map<std::string, std::string> config,
                            size_t n) {
  auto json_topic = unique_name("weir-itest-" + name + "-json"), avro_topic = unique_name("weir-itest-" + name);
  create_topic(json_topic, 1);
  create_topic(avro_topic, 1);
  auto avro = config;
  avro["kafka.topic"] = avro_topic;
  for (auto& [k, v] : s.avro_values())
    avro[k] = v;
  config["kafka.topic"] = json_topic;
  auto weir = start_standalone(s.worker, {s.connector(name + "-json", config), s.connector(name, avro)}, s.log);
  TwoTopics out{read_topic(json_topic, n, 60s, 1s), read_topic(avro_topic, n, 60s, 1s), avro_topic};
  stop_cleanly(*weir);
  BOOST_REQUIRE_EQUAL(out.json.size(), n);
  BOOST_REQUIRE_MESSAGE(out.avro.size() == n, out.avro.size() << " Avro records\n" << tail_lines(weir->output()));
  return out;
}

/// Decodes `records` with the script and compares them with `json` (the same records
/// through JsonConverter): "N equal", or the script's first difference.
std::string compare_decoded(const Setup& s, const std::vector<InRecord>& records, const std::vector<InRecord>& json) {
  std::string values, expected;
  for (size_t i = 0; i < records.size() && i < json.size(); ++i) {
    values += hex(records[i].value.value_or("")) + "\n";
    expected += json[i].value.value_or("null") + "\n";
  }
  {
    std::ofstream f(s.dir / "expected.json");
    f << expected;
  }
  return run_tool(s.dir, "same " + shell_quoted(s.dir / "expected.json"), run_tool(s.dir, "decode " + shell_quoted(s.registry), values));
}


} // namespace

BOOST_AUTO_TEST_SUITE(avro)

BOOST_AUTO_TEST_CASE(datagen_writes_confluent_avro_that_fastavro_reads) {
  Setup s;
  auto [as_json, as_avro, avro_topic] =
    run_json_and_avro(s, "avro", {{"connector.class", "DatagenConnector"}, {"quickstart", "orders"},
                                  {"iterations", "2000"}, {"max.interval", "0"}, {"random.seed", "7"}},
                      2000);
  // The subject is the topic's, and every record names its latest schema.
  auto ids = lines_of(run_tool(s.dir, "id " + shell_quoted(s.registry) + " " + shell_quoted(avro_topic + "-value"), ""));
  BOOST_REQUIRE_EQUAL(ids.size(), 1u);
  // Every record: magic 0, then the id of the subject's schema, big-endian.
  std::string id_bytes(4, '\0');
  for (int i = 0; i < 4; ++i)
    id_bytes[3 - i] = static_cast<char>((std::stoul(ids[0]) >> (8 * i)) & 0xff);
  for (size_t i = 0; i < as_avro.size(); ++i) {
    auto v = as_avro[i].value.value_or("");
    BOOST_REQUIRE_MESSAGE(v.size() > 5 && v[0] == 0 && v.substr(1, 4) == id_bytes,
                          "record " << i << " is not magic 0 and id " << ids[0] << ": " << hex(v.substr(0, 8)));
  }
  // fastavro's values equal JsonConverter's for the same seed.
  auto same = compare_decoded(s, as_avro, as_json);
  BOOST_TEST(same == "2000 equal\n", same);
}

namespace {

const std::string payment_schema =
  R"({"type":"record","name":"Payment","namespace":"weir.test","fields":[)"
  R"({"name":"id","type":"int"},{"name":"payer","type":"string"},)"
  R"({"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},)"
  R"({"name":"paid_at","type":{"type":"long","logicalType":"timestamp-millis"}},)"
  R"({"name":"note","type":["null","string"],"default":null}]})";

/// Three payments as the script encodes them (amounts as exact decimals).
const std::string payments = R"({"id": 1, "payer": "ann", "amount": 12.50, "paid_at": 1767225600000, "note": null}
{"id": 2, "payer": "bob", "amount": -0.01, "paid_at": 1767225601234, "note": "refund"}
{"id": 3, "payer": "cé", "amount": 99999999.99, "paid_at": 0, "note": ""}
)";

/// Produces the script's encoding of `payments` (schema registered under
/// `<topic>-value` by the script) to a new topic; its name.
std::string produce_payments(const Setup& s) {
  auto topic = unique_name("weir-itest-avro-pay");
  create_topic(topic, 1);
  auto framed = lines_of(
    run_tool(s.dir,
             "encode " + shell_quoted(s.registry) + " " + shell_quoted(topic + "-value") + " "
               + shell_quoted(payment_schema),
             payments));
  BOOST_REQUIRE_EQUAL(framed.size(), 3u);
  produce(topic, framed.size(), [&](size_t i) { return OutRecord{0, std::to_string(i + 1), unhex(framed[i])}; });
  return topic;
}

std::map<std::string, std::string> jdbc_sink(const Setup& s, const std::string& topic) {
  auto config = s.avro_values();
  config.insert({{"connector.class", "io.confluent.connect.jdbc.JdbcSinkConnector"},
                 {"topics", topic},
                 {"table.name.format", "payments_${topic}"},
                 {"auto.create", "true"},
                 {"insert.mode", "insert"},
                 {"pk.mode", "none"}});
  return config;
}

} // namespace

BOOST_AUTO_TEST_CASE(avro_from_another_client_lands_typed_in_sqlite) {
  Setup s;
  auto topic = produce_payments(s);
  auto db = s.dir / "sink.db";
  auto config = jdbc_sink(s, topic);
  config["connection.url"] = "jdbc:sqlite:" + db;
  config["table.name.format"] = "payments";
  auto weir = start_standalone(s.worker, {s.connector("sqlite", config)}, s.log);
  auto rows = wait_for_rows(db, "SELECT id, payer, amount, paid_at, note FROM payments ORDER BY id", 3);
  BOOST_REQUIRE_MESSAGE(rows.size() == 3u, rows.size() << " rows\n" << tail_lines(weir->output()));
  Sqlite sql(db);
  auto columns = sql.query("SELECT name, type FROM pragma_table_info('payments') ORDER BY cid");
  stop_cleanly(*weir);
  std::string types;
  for (const auto& c : columns)
    types += c[0] + " " + c[1] + "; ";
  BOOST_TEST(types == "id INTEGER; payer TEXT; amount NUMERIC; paid_at TIMESTAMP; note TEXT; ", types);
  BOOST_TEST(rows[0] == (std::vector<std::string>{"1", "ann", "12.5", "2026-01-01 00:00:00.000", "<null>"}));
  BOOST_TEST(rows[1] == (std::vector<std::string>{"2", "bob", "-0.01", "2026-01-01 00:00:01.234", "refund"}));
  BOOST_TEST(rows[2] == (std::vector<std::string>{"3", "cé", "99999999.99", "1970-01-01 00:00:00.000", ""}));
}

BOOST_AUTO_TEST_CASE(avro_from_another_client_lands_typed_in_postgres) {
  Setup s;
  auto topic = produce_payments(s);
  auto table = "payments_" + std::to_string(::getpid()) + "_" + std::to_string(std::rand() % 100000);
  Postgres pg;
  auto config = jdbc_sink(s, topic);
  for (auto& [k, v] : postgres_sink_keys())
    config[k] = v;
  config["table.name.format"] = table;
  auto weir = start_standalone(s.worker, {s.connector("pg", config)}, s.log);
  std::string rows;
  bool landed = wait_until(60s, 250ms, [&] {
    rows = pg.rows("SELECT id, payer, amount, paid_at, note FROM " + table + " ORDER BY id");
    return std::count(rows.begin(), rows.end(), ';') == 2 && !rows.starts_with("error");
  });
  BOOST_REQUIRE_MESSAGE(landed, rows << "\n" << tail_lines(weir->output()));
  auto types = pg.rows("SELECT column_name || ' ' || data_type FROM "
                       "information_schema.columns WHERE table_name = '" + table + "' ORDER BY ordinal_position");
  stop_cleanly(*weir);
  pg.exec("DROP TABLE " + table);
  BOOST_TEST(types == "id integer;payer text;amount numeric;paid_at timestamp without time zone;note text", types);
  BOOST_TEST(rows == "1|ann|12.50|2026-01-01 00:00:00|NULL;"
                     "2|bob|-0.01|2026-01-01 00:00:01.234|refund;"
                     "3|cé|99999999.99|1970-01-01 00:00:00|",
             rows);
}


BOOST_AUTO_TEST_CASE(a_new_optional_field_adds_a_column_and_an_incompatible_schema_is_refused) {
  Setup s;
  // Version 1, then version 2 with an optional field (BACKWARD compatible).
  auto topic = unique_name("weir-itest-avro-evolve");
  create_topic(topic, 1);
  const std::string v1 = R"({"type":"record","name":"Pet","fields":[{"name":"id","type":"int"},)"
                         R"({"name":"name","type":"string"}]})";
  const std::string v2 = R"({"type":"record","name":"Pet","fields":[{"name":"id","type":"int"},)"
                         R"({"name":"name","type":"string"},{"name":"owner","type":["null","string"],"default":null}]})";
  auto subject = shell_quoted(topic + "-value");
  auto first = lines_of(run_tool(s.dir, "encode " + shell_quoted(s.registry) + " " + subject + " " + shell_quoted(v1),
                                 "{\"id\": 1, \"name\": \"rex\"}\n"));
  auto second = lines_of(run_tool(s.dir, "encode " + shell_quoted(s.registry) + " " + subject + " " + shell_quoted(v2),
                                  "{\"id\": 2, \"name\": \"tom\", \"owner\": \"ann\"}\n"));
  BOOST_REQUIRE(first.size() == 1u && second.size() == 1u);
  BOOST_TEST(first[0].substr(0, 10) != second[0].substr(0, 10), "both versions have the same id");
  auto framed = std::vector{unhex(first[0]), unhex(second[0])};
  produce(topic, 2, [&](size_t i) { return OutRecord{0, std::nullopt, framed[i]}; });

  auto db = s.dir / "sink.db";
  auto config = jdbc_sink(s, topic);
  config["connection.url"] = "jdbc:sqlite:" + db;
  config["table.name.format"] = "pets";
  config["auto.evolve"] = "true";
  auto weir = start_standalone(s.worker, {s.connector("evolve", config)}, s.log);
  auto rows = wait_for_rows(db, "SELECT id, name, owner FROM pets ORDER BY id", 2);
  BOOST_REQUIRE_MESSAGE(rows.size() == 2u, rows.size() << " rows\n" << tail_lines(weir->output()));
  BOOST_TEST(rows[0] == (std::vector<std::string>{"1", "rex", "<null>"}));
  BOOST_TEST(rows[1] == (std::vector<std::string>{"2", "tom", "ann"}));

  // Datagen's orders under a subject that holds Pet: BACKWARD refuses them.
  auto refused = unique_name("weir-itest-avro-refused");
  create_topic(refused, 1);
  run_tool(s.dir, "encode " + shell_quoted(s.registry) + " " + shell_quoted(refused + "-value") + " " + shell_quoted(v1), "");
  auto datagen = s.avro_values();
  datagen.insert({{"connector.class", "DatagenConnector"}, {"kafka.topic", refused}, {"quickstart", "orders"},
                  {"iterations", "10"}, {"max.interval", "0"}});
  stop_cleanly(*weir);
  weir = start_standalone(s.worker, {s.connector("refused", datagen)}, s.log + ".2");
  std::vector<TaskStatus> status;
  bool failed = wait_until(60s, 250ms, [&] {
    status = task_statuses(s.state, "refused");
    return !status.empty() && status[0].state == "FAILED";
  });
  BOOST_REQUIRE_MESSAGE(failed, describe(status) << "\n" << tail_lines(weir->output()));
  BOOST_TEST_MESSAGE("the refused task:" << describe(status));
  BOOST_TEST(status[0].trace.find(refused + "-value") != std::string::npos, status[0].trace);
  BOOST_TEST(status[0].trace.find(refused) != std::string::npos, status[0].trace);
  BOOST_TEST(status[0].trace.find("409") != std::string::npos, status[0].trace);
  BOOST_TEST(read_topic(refused, 1, 3s, 0s).empty(), "records reached the topic whose subject refused them");
  stop_cleanly(*weir);
}

BOOST_AUTO_TEST_CASE(schema_changing_smts_write_schemas_the_registry_accepts) {
  Setup s;
  auto [as_json, as_avro, avro_topic] = run_json_and_avro(
    s, "avro-smt",
    {{"connector.class", "DatagenConnector"}, {"quickstart", "orders"},
     {"iterations", "500"}, {"max.interval", "0"}, {"random.seed", "11"},
     {"transforms", "flat,cast,rename,meta"},
     {"transforms.flat.type", "org.apache.kafka.connect.transforms.Flatten$Value"},
     {"transforms.flat.delimiter", "_"},
     {"transforms.cast.type", "org.apache.kafka.connect.transforms.Cast$Value"},
     {"transforms.cast.spec", "orderunits:string,orderid:int64"},
     {"transforms.rename.type", "org.apache.kafka.connect.transforms.ReplaceField$Value"},
     {"transforms.rename.renames", "orderid:id,address_zipcode:zip"},
     {"transforms.rename.exclude", "itemid"},
     {"transforms.meta.type", "org.apache.kafka.connect.transforms.SetSchemaMetadata$Value"},
     {"transforms.meta.schema.name", "weir.test.Order"},
     {"transforms.meta.schema.version", "3"}},
    500);
  auto schema = run_tool(s.dir, "schema " + shell_quoted(s.registry) + " " + shell_quoted(avro_topic + "-value"), "");
  BOOST_TEST(schema.find(R"("name": "Order")") != std::string::npos, schema);
  BOOST_TEST(schema.find(R"("namespace": "weir.test")") != std::string::npos, schema);
  BOOST_TEST(schema.find(R"("connect.version": 3)") != std::string::npos, schema);
  BOOST_TEST(schema.find(R"("name": "zip")") != std::string::npos, schema);
  BOOST_TEST(schema.find("itemid") == std::string::npos, schema);
  auto same = compare_decoded(s, as_avro, as_json);
  BOOST_TEST(same == "500 equal\n", same);
}

BOOST_AUTO_TEST_CASE(an_unreachable_registry_fails_the_task_and_sends_nothing_to_the_dlq) {
  Setup s;
  auto topic = produce_payments(s);
  auto config = jdbc_sink(s, topic);
  config["connection.url"] = "jdbc:sqlite:" + s.dir / "sink.db";
  config["value.converter.schema.registry.url"] = "http://127.0.0.1:9"; // discard: nobody listens
  config["errors.tolerance"] = "all";
  config["errors.deadletterqueue.topic.name"] = topic + "-dlq";
  config["errors.deadletterqueue.topic.replication.factor"] = "1";
  auto weir = start_standalone(s.worker, {s.connector("outage", config)}, s.log);
  std::vector<TaskStatus> status;
  bool failed = wait_until(60s, 250ms, [&] {
    status = task_statuses(s.state, "outage");
    return !status.empty() && status[0].state == "FAILED";
  });
  BOOST_REQUIRE_MESSAGE(failed, describe(status) << "\n" << tail_lines(weir->output()));
  BOOST_TEST(status[0].trace.find("Schema registry unreachable: http://127.0.0.1:9") != std::string::npos,
             status[0].trace);
  BOOST_TEST(read_topic(topic + "-dlq", 0, 0s, 3s).empty(), "the outage sent records to the DLQ");
  stop_cleanly(*weir);
}

BOOST_AUTO_TEST_CASE(a_registry_back_within_errors_retry_timeout_loses_nothing) {
  Setup s;
  auto topic = produce_payments(s);
  // The converter reaches the registry through a proxy that is down for its first
  // seconds.
  Toxiproxy toxiproxy{s.dir / "toxiproxy.log"};
  std::smatch m;
  BOOST_REQUIRE(std::regex_search(s.registry, m, std::regex{R"(^http://127\.0\.0\.1:([0-9]+)(/.*)$)"}));
  auto port = free_ports(1)[0];
  toxiproxy.create("registry", port, static_cast<uint16_t>(std::stoi(m[1])));
  toxiproxy.set_enabled("registry", false);
  auto db = s.dir / "sink.db";
  auto config = jdbc_sink(s, topic);
  config["connection.url"] = "jdbc:sqlite:" + db;
  config["table.name.format"] = "payments";
  config["value.converter.schema.registry.url"] = "http://127.0.0.1:" + std::to_string(port) + m[2].str();
  config["errors.retry.timeout"] = "60000";
  config["errors.retry.delay.max.ms"] = "1000";
  auto weir = start_standalone(s.worker, {s.connector("comeback", config)}, s.log);
  BOOST_REQUIRE_MESSAGE(wait_until(30s, 100ms, [&] {
                          return weir->output().find("Exception in converter (retrying in") != std::string::npos;
                        }),
                        "no retry logged\n" << tail_lines(weir->output()));
  toxiproxy.set_enabled("registry", true);
  auto rows = wait_for_rows(db, "SELECT id FROM payments ORDER BY id", 3);
  BOOST_TEST(rows.size() == 3u, rows.size() << " rows\n" << tail_lines(weir->output()));
  auto status = task_statuses(s.state, "comeback");
  BOOST_TEST((!status.empty() && status[0].state == "RUNNING"), describe(status));
  stop_cleanly(*weir);
}

BOOST_AUTO_TEST_CASE(a_worker_wide_avro_converter_sends_what_is_not_avro_to_the_dlq) {
  Setup s{{{"value.converter", "io.confluent.connect.avro.AvroConverter"},
           {"value.converter.schema.registry.url", registry_url()}}};
  auto topic = produce_payments(s);
  produce(topic, 1, [](size_t) { return OutRecord{0, std::string{"4"}, std::string{R"({"id": 4})"}}; });
  auto db = s.dir / "sink.db";
  auto weir = start_standalone(s.worker,
                               {s.connector("worker-wide", {{"connector.class", "JdbcSinkConnector"},
                                                            {"topics", topic},
                                                            {"connection.url", "jdbc:sqlite:" + db},
                                                            {"table.name.format", "payments"},
                                                            {"auto.create", "true"},
                                                            {"errors.tolerance", "all"},
                                                            {"errors.deadletterqueue.topic.name", topic + "-dlq"},
                                                            {"errors.deadletterqueue.topic.replication.factor", "1"},
                                                            {"errors.deadletterqueue.context.headers.enable", "true"}})},
                               s.log);
  auto rows = wait_for_rows(db, "SELECT id FROM payments ORDER BY id", 3);
  BOOST_TEST(rows.size() == 3u, rows.size() << " rows\n" << tail_lines(weir->output()));
  auto dead = read_topic(topic + "-dlq", 1, 60s, 1s);
  stop_cleanly(*weir);
  BOOST_REQUIRE_EQUAL(dead.size(), 1u);
  BOOST_TEST(dead[0].value.value_or("") == R"({"id": 4})");
  BOOST_TEST(dead[0].header("__connect.errors.class.name") == "io.confluent.connect.avro.AvroConverter");
  BOOST_TEST(dead[0].header("__connect.errors.stage") == "VALUE_CONVERTER");
  BOOST_TEST(dead[0].header("__connect.errors.exception.message").find("Unknown magic byte!") != std::string::npos,
             dead[0].header("__connect.errors.exception.message"));
}

BOOST_AUTO_TEST_SUITE_END()
