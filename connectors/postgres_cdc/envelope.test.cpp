#include "connectors/postgres_cdc/envelope.hpp"

#include <boost/test/unit_test.hpp>

#include "runtime/convert/json_converter.hpp"
#include "runtime/data/arena.hpp"
#include "runtime/data/errors.hpp"

using namespace weir::connectors::postgres_cdc;
using namespace weir::runtime;

namespace {

ColumnInfo column(std::string name, uint32_t oid, std::string type, bool not_null = false,
                  bool pk = false, int32_t typmod = -1) {
  return {std::move(name), oid, typmod, std::move(type), not_null, pk};
}

/// Debezium's documentation example: public.customers(id serial PRIMARY KEY,
/// first_name, last_name, email all varchar NOT NULL).
std::shared_ptr<const TableSchema> customers() {
  return make_table_schema("PostgreSQL_server", 16385, "public", "customers",
                           {column("id", 23, "integer", true, true),
                            column("first_name", 1043, "character varying(255)", true),
                            column("last_name", 1043, "character varying(255)", true),
                            column("email", 1043, "character varying(255)", true)},
                           nullptr);
}

Tuple tuple_of(std::vector<std::optional<std::string_view>> cells, std::string& storage) {
  storage.clear();
  write_tuple(cells, storage);
  std::string_view rest = storage;
  return read_tuple(rest);
}

std::string payload(const data::Value& v, const data::Schema& s) {
  convert::JsonConverter json({.schemas_enable = false});
  return std::string{*json.serialize(v, &s)};
}

std::string with_schema(const data::Value& v, const data::Schema& s) {
  convert::JsonConverter json({.schemas_enable = true});
  return std::string{*json.serialize(v, &s)};
}

SourceInfo doc_source() {
  SourceInfo s;
  s.version = "3.6.1.Final";
  s.server_name = "PostgreSQL_server";
  s.database = "postgres";
  s.commit_micros = 1559033904863000;
  s.tx_id = 555;
  s.lsn = 24023128;
  s.last_commit_lsn = 24023119;
  return s;
}

} // namespace

BOOST_AUTO_TEST_SUITE(postgres_cdc_envelope)

BOOST_AUTO_TEST_CASE(create_event_as_debezium_documents_it) {
  auto t = customers();
  data::Arena arena;
  std::string storage;
  auto row = tuple_of({"1", "Anne", "Kretchmar", "annek@noanswer.org"}, storage);
  auto after = row_value(*t, row, arena);
  auto v = envelope_value(*t, doc_source(), 'c', {}, after, 1559033904863123, arena);
  BOOST_TEST(payload(v, *t->envelope)
             == R"({"before":null,"after":{"id":1,"first_name":"Anne","last_name":"Kretchmar",)"
                R"("email":"annek@noanswer.org"},"source":{"version":"3.6.1.Final","connector":"postgresql",)"
                R"("name":"PostgreSQL_server","ts_ms":1559033904863,"snapshot":"false","db":"postgres",)"
                R"("sequence":"[\"24023119\",\"24023128\"]","ts_us":1559033904863000,)"
                R"("ts_ns":1559033904863000000,"schema":"public","table":"customers","txId":555,)"
                R"("lsn":24023128,"xmin":null},"transaction":null,"op":"c","ts_ms":1559033904863,)"
                R"("ts_us":1559033904863123,"ts_ns":1559033904863123000})");
  auto key = key_value(*t, row, arena);
  BOOST_TEST(with_schema(key, *t->key)
             == R"({"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],)"
                R"("optional":false,"name":"PostgreSQL_server.public.customers.Key"},"payload":{"id":1}})");
}

BOOST_AUTO_TEST_CASE(envelope_schema_names_and_source_block) {
  auto t = customers();
  BOOST_TEST(t->topic == "PostgreSQL_server.public.customers");
  BOOST_TEST(*t->envelope->name() == "PostgreSQL_server.public.customers.Envelope");
  BOOST_TEST(*t->envelope->version() == 2);
  BOOST_TEST(*t->row->name() == "PostgreSQL_server.public.customers.Value");
  BOOST_TEST(t->row->optional());
  std::vector<std::string> fields;
  for (const auto& f : t->envelope->fields())
    fields.push_back(f.name);
  BOOST_TEST((fields == std::vector<std::string>{"before", "after", "source", "transaction", "op",
                                                 "ts_ms", "ts_us", "ts_ns"}));
  const auto& source = *source_schema();
  BOOST_TEST(*source.name() == "io.debezium.connector.postgresql.Source");
  fields.clear();
  for (const auto& f : source.fields())
    fields.push_back(f.name);
  BOOST_TEST((fields == std::vector<std::string>{"version", "connector", "name", "ts_ms", "snapshot", "db",
                                                 "sequence", "ts_us", "ts_ns", "schema", "table", "txId",
                                                 "lsn", "xmin"}));
  BOOST_TEST(*source.field("snapshot")->schema->name() == "io.debezium.data.Enum");
}

BOOST_AUTO_TEST_CASE(delete_with_a_key_only_before_fills_not_null_columns_as_debezium_does) {
  auto t = customers();
  data::Arena arena;
  std::string storage;
  auto old = tuple_of({"1", std::nullopt, std::nullopt, std::nullopt}, storage);
  auto before = row_value(*t, old, arena);
  auto v = envelope_value(*t, doc_source(), 'd', before, {}, 0, arena);
  auto json = payload(v, *t->envelope);
  BOOST_TEST(json.starts_with(R"({"before":{"id":1,"first_name":"","last_name":"","email":""},"after":null,)"));
  BOOST_TEST(json.find(R"("op":"d")") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(types_map_as_debezium_maps_them) {
  std::vector<std::string> warnings;
  auto t = make_table_schema(
    "inv", 1, "public", "types",
    {column("b", 16, "boolean"), column("s", 21, "smallint"), column("i", 23, "integer"),
     column("l", 20, "bigint"), column("f", 700, "real"), column("d", 701, "double precision"),
     column("n", 1700, "numeric(10,2)", false, false, (10 << 16) + 2 + 4),
     column("v", 1700, "numeric"), column("t", 25, "text"), column("y", 17, "bytea"),
     column("dt", 1082, "date"), column("tm", 1083, "time without time zone"),
     column("ts", 1114, "timestamp without time zone"),
     column("ts3", 1114, "timestamp(3) without time zone", false, false, 3),
     column("tz", 1184, "timestamp with time zone"), column("u", 2950, "uuid"), column("j", 3802, "jsonb"),
     column("p", 600, "point")},
    [&](const std::string& m) { warnings.push_back(m); });
  BOOST_REQUIRE(warnings.size() == 1u);
  BOOST_TEST(warnings[0].find("column p of table public.types has type point") != std::string::npos);
  BOOST_TEST(!t->key); // no primary key: null keys, as Debezium's
  data::Arena arena;
  std::string storage;
  auto row = tuple_of({"t", "-7", "42", "9000000000", "1.5", "2.25", "12.30", "-0.0015", "txt", "\\x00ff",
                       "2024-02-29", "13:14:15.5", "2024-02-29 13:14:15.123456", "1970-01-01 00:00:01.5",
                       "2024-02-29 13:14:15.25+00", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "{\"a\": 1}",
                       "(1,2)"},
                      storage);
  auto v = row_value(*t, row, arena);
  BOOST_TEST(with_schema(v, *t->row).find(R"({"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"n"})")
             != std::string::npos);
  BOOST_TEST(payload(v, *t->row)
             == R"({"b":true,"s":-7,"i":42,"l":9000000000,"f":1.5,"d":2.25,"n":"BM4=",)"
                R"("v":{"scale":4,"value":"8Q=="},"t":"txt","y":"AP8=","dt":19782,"tm":47655500000,)"
                R"("ts":1709212455123456,"ts3":1500,"tz":"2024-02-29T13:14:15.25Z",)"
                R"j("u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11","j":"{\"a\": 1}","p":"(1,2)"})j");
  std::vector<std::string> names;
  for (const auto& f : t->row->fields())
    names.push_back(f.schema->name().value_or(""));
  BOOST_TEST(names[10] == "io.debezium.time.Date");
  BOOST_TEST(names[11] == "io.debezium.time.MicroTime");
  BOOST_TEST(names[12] == "io.debezium.time.MicroTimestamp");
  BOOST_TEST(names[13] == "io.debezium.time.Timestamp");
  BOOST_TEST(names[14] == "io.debezium.time.ZonedTimestamp");
  BOOST_TEST(names[15] == "io.debezium.data.Uuid");
  BOOST_TEST(names[16] == "io.debezium.data.Json");
  BOOST_TEST(names[7] == "io.debezium.data.VariableScaleDecimal");
}

BOOST_AUTO_TEST_CASE(unreadable_text_names_table_and_column) {
  auto t = make_table_schema("inv", 1, "public", "orders", {column("qty", 23, "integer")}, nullptr);
  data::Arena arena;
  std::string storage;
  try {
    row_value(*t, tuple_of({"many"}, storage), arena);
    BOOST_FAIL("no error");
  } catch (const data::DataError& e) {
    BOOST_TEST(std::string{e.what()} == "PostgresConnector: column qty (integer) of table public.orders: "
                                        "cannot read 'many'");
  }
  BOOST_CHECK_THROW(row_value(*t, tuple_of({"1", "2"}, storage), arena), data::DataError);
}

BOOST_AUTO_TEST_CASE(unchanged_toast_values) {
  auto t = make_table_schema("inv", 1, "public", "docs",
                             {column("id", 23, "integer", true, true), column("body", 25, "text")}, nullptr);
  data::Arena arena;
  std::string storage;
  storage.clear();
  // 'u': an unchanged TOASTed value, which pgoutput does not send.
  storage = std::string("\0\2t\0\0\0\0011u", 10);
  std::string_view rest = storage;
  auto v = row_value(*t, read_tuple(rest), arena);
  BOOST_TEST(payload(v, *t->row) == R"({"id":1,"body":"__debezium_unavailable_value"})");
}

BOOST_AUTO_TEST_CASE(dates_and_times) {
  int32_t days;
  BOOST_TEST(parse_date("1970-01-01", days));
  BOOST_TEST(days == 0);
  BOOST_TEST(parse_date("1969-12-31", days));
  BOOST_TEST(days == -1);
  BOOST_TEST(!parse_date("infinity", days));
  int64_t us;
  BOOST_TEST(parse_time("00:00:00.000001", us));
  BOOST_TEST(us == 1);
  BOOST_TEST(parse_time("23:59:59", us));
  BOOST_TEST(us == 86399000000);
  BOOST_TEST(!parse_time("12:00", us));
}

BOOST_AUTO_TEST_SUITE_END()
