#include <boost/test/unit_test.hpp>

#include "connectors/jdbc/jdbc_sink_config.hpp"

using namespace weir;
using namespace weir::connectors::jdbc;

namespace {

using Raw = std::map<std::string, std::string>;

Raw with_url(Raw raw) {
  raw.emplace("connection.url", "jdbc:sqlite:/tmp/x.db");
  return raw;
}

// The key and message parse() throws, or empty strings when it succeeds.
std::pair<std::string, std::string> parse_error(const Raw& raw) {
  try {
    JdbcSinkConfig::parse(raw);
  } catch (const ConfigError& e) {
    return {e.key(), e.what()};
  }
  return {};
}

} // namespace

BOOST_AUTO_TEST_SUITE(jdbc_sink_config)

BOOST_AUTO_TEST_CASE(defaults_follow_confluent) {
  auto c = JdbcSinkConfig::parse(with_url({}));
  BOOST_TEST(c.database_path == "/tmp/x.db");
  BOOST_TEST((c.insert_mode == InsertMode::Insert));
  BOOST_TEST((c.pk_mode == PkMode::None));
  BOOST_TEST(c.pk_fields.empty());
  BOOST_TEST(c.fields_whitelist.empty());
  BOOST_TEST(!c.auto_create);
  BOOST_TEST(!c.auto_evolve);
  BOOST_TEST(!c.delete_enabled);
  BOOST_TEST(c.table_name_format == "${topic}");
  BOOST_TEST(c.batch_size == 3000);
}

BOOST_AUTO_TEST_CASE(parses_every_key) {
  auto c = JdbcSinkConfig::parse(with_url({{"insert.mode", "UPSERT"},
                                           {"pk.mode", "record_key"},
                                           {"pk.fields", "a, b"},
                                           {"fields.whitelist", "x,y"},
                                           {"auto.create", "true"},
                                           {"auto.evolve", "TRUE"},
                                           {"delete.enabled", "true"},
                                           {"table.name.format", "kafka_${topic}"},
                                           {"batch.size", "500"}}));
  BOOST_TEST((c.insert_mode == InsertMode::Upsert));
  BOOST_TEST((c.pk_mode == PkMode::RecordKey));
  BOOST_TEST((c.pk_fields == std::vector<std::string>{"a", "b"}));
  BOOST_TEST((c.fields_whitelist == std::vector<std::string>{"x", "y"}));
  BOOST_TEST(c.auto_create);
  BOOST_TEST(c.auto_evolve);
  BOOST_TEST(c.delete_enabled);
  BOOST_TEST(c.table_name("orders") == "kafka_orders");
  BOOST_TEST(c.batch_size == 500);
}

BOOST_AUTO_TEST_CASE(kafka_pk_fields_default_to_the_coordinates) {
  auto c = JdbcSinkConfig::parse(with_url({{"pk.mode", "kafka"}}));
  BOOST_TEST((c.pk_fields == std::vector<std::string>{"__connect_topic", "__connect_partition", "__connect_offset"}));
  auto named = JdbcSinkConfig::parse(with_url({{"pk.mode", "kafka"}, {"pk.fields", "t,p,o"}}));
  BOOST_TEST((named.pk_fields == std::vector<std::string>{"t", "p", "o"}));
  // pk.mode=none ignores pk.fields, as Confluent does.
  BOOST_TEST(JdbcSinkConfig::parse(with_url({{"pk.fields", "id"}})).pk_fields.empty());
}

BOOST_AUTO_TEST_CASE(table_name_replaces_every_placeholder) {
  JdbcSinkConfig c;
  c.table_name_format = "${topic}_x_${topic}";
  BOOST_TEST(c.table_name("a.b") == "a.b_x_a.b");
  c.table_name_format = "fixed";
  BOOST_TEST(c.table_name("t") == "fixed");
}

BOOST_AUTO_TEST_CASE(bad_values_name_their_key) {
  struct Case {
    Raw raw;
    std::string key;
    std::string message_part;
  };
  const std::vector<Case> cases{
      {{}, "connection.url", "Missing required configuration \"connection.url\""},
      {{{"connection.url", "jdbc:mysql://db/x"}}, "connection.url", "SQLite or PostgreSQL"},
      {{{"connection.url", "jdbc:postgresql://db:0/x"}}, "connection.url", "bad port '0'"},
      {{{"connection.url", "jdbc:sqlite:"}}, "connection.url", "path after jdbc:sqlite: is empty"},
      {with_url({{"insert.mode", "merge"}}), "insert.mode", "Invalid value merge for configuration insert.mode"},
      {with_url({{"pk.mode", "key"}}), "pk.mode", "Invalid value key"},
      {with_url({{"batch.size", "-1"}}), "batch.size", "Value must be at least 0"},
      {with_url({{"auto.create", "yes"}}), "auto.create", "auto.create"},
      {with_url({{"table.name.format", " "}}), "table.name.format", "table.name.format"},
      {with_url({{"delete.enabled", "true"}}), "delete.enabled", "must be 'record_key' when delete support is enabled"},
      {with_url({{"delete.enabled", "true"}, {"pk.mode", "record_value"}}), "delete.enabled", "pk.mode=record_value"},
      {with_url({{"insert.mode", "upsert"}}), "insert.mode", "needs a primary key"},
      {with_url({{"insert.mode", "update"}, {"pk.mode", "none"}}), "insert.mode", "needs a primary key"},
      {with_url({{"pk.mode", "kafka"}, {"pk.fields", "a,b"}}), "pk.fields", "exactly 3"},
      {with_url({{"dialect.name", "PostgreSqlDatabaseDialect"}}), "dialect.name", "needs a jdbc:postgresql: connection.url"},
      {{{"connection.url", "jdbc:postgresql://db/x"}, {"dialect.name", "SqliteDatabaseDialect"}}, "dialect.name",
       "a jdbc:postgresql: URL needs"},
      {with_url({{"dialect.name", "MySqlDatabaseDialect"}}), "dialect.name", "SqliteDatabaseDialect and PostgreSqlDatabaseDialect"},
      {with_url({{"db.timezone", "Europe/Paris"}}), "db.timezone", "UTC only"},
      {with_url({{"table.types", "TABLE,VIEW"}}), "table.types", "tables only"},
      {with_url({{"pk.feilds", "id"}}), "pk.feilds", "did you mean \"pk.fields\""},
  };
  for (const auto& c : cases) {
    auto [key, message] = parse_error(c.raw);
    BOOST_TEST_CONTEXT("expecting " << c.key << ": " << c.message_part) {
      BOOST_TEST(key == c.key);
      BOOST_TEST(message.find(c.message_part) != std::string::npos, message);
    }
  }
}

BOOST_AUTO_TEST_CASE(accepts_confluent_keys_without_meaning_on_sqlite) {
  auto c = JdbcSinkConfig::parse(with_url({{"connection.user", "u"},
                                           {"connection.password", "secret"},
                                           {"connection.attempts", "5"},
                                           {"connection.backoff.ms", "100"},
                                           {"dialect.name", "SqliteDatabaseDialect"},
                                           {"db.timezone", "UTC"},
                                           {"db.timezone.date", "UTC"},
                                           {"quote.sql.identifiers", "never"},
                                           {"table.types", "TABLE"},
                                           {"max.retries", "3"},
                                           {"retry.backoff.ms", "10"},
                                           {"mssql.use.merge.holdlock", "false"},
                                           {"trim.sensitive.log", "true"}}));
  BOOST_TEST(c.database_path == "/tmp/x.db");
}

BOOST_AUTO_TEST_CASE(postgres_urls_and_the_keys_postgres_gives_meaning) {
  auto c = JdbcSinkConfig::parse({{"connection.url", "jdbc:postgresql://db.internal:5432/analytics?user=u&password=p"},
                                  {"connection.user", "weir"},
                                  {"connection.password", "secret"},
                                  {"connection.attempts", "5"},
                                  {"connection.backoff.ms", "100"},
                                  {"dialect.name", "PostgreSqlDatabaseDialect"},
                                  {"quote.sql.identifiers", "never"},
                                  {"batch.size", "2000"}});
  BOOST_TEST((c.dialect == Dialect::Postgres));
  BOOST_TEST(c.database_path.empty());
  BOOST_TEST(c.postgres.get("host") == "db.internal");
  BOOST_TEST(c.postgres.get("dbname") == "analytics");
  BOOST_TEST(c.postgres.get("user") == "weir");
  BOOST_TEST(c.postgres.get("password") == "secret");
  BOOST_TEST(c.connection_attempts == 5);
  BOOST_TEST(c.connection_backoff_ms == 100);
  BOOST_TEST(!c.quote_identifiers);
  BOOST_TEST(c.batch_size == 2000);
  auto sqlite = JdbcSinkConfig::parse(with_url({}));
  BOOST_TEST((sqlite.dialect == Dialect::Sqlite));
  BOOST_TEST(sqlite.quote_identifiers);
}

BOOST_AUTO_TEST_CASE(a_malformed_postgres_url_never_shows_its_password) {
  Raw raw{{"connection.url", "jdbc:postgresql://db:99999/x?password=hunter2"}};
  auto [key, message] = parse_error(raw);
  BOOST_TEST(key == "connection.url");
  BOOST_TEST(message.find("bad port") != std::string::npos);
  BOOST_TEST(message.find("hunter2") == std::string::npos);
  auto issues = JdbcSinkConfig::validate(raw);
  BOOST_REQUIRE(issues.size() == 1u);
  BOOST_TEST(issues[0].value.value_or("") == "[hidden]");
  BOOST_TEST(issues[0].errors.front().find("hunter2") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(lets_the_workers_keys_through) {
  // The seed's example, apart from the database URL.
  auto c = JdbcSinkConfig::parse({{"name", "my-optimized-sink"},
                                  {"connector.class", "io.confluent.connect.jdbc.JdbcSinkConnector"},
                                  {"tasks.max", "10"},
                                  {"topics", "user-events"},
                                  {"connection.url", "jdbc:sqlite:/tmp/sink.db"},
                                  {"transforms", "a"},
                                  {"transforms.a.type", "InsertField"},
                                  {"errors.tolerance", "all"},
                                  {"value.converter", "org.apache.kafka.connect.json.JsonConverter"},
                                  {"value.converter.schemas.enable", "false"}});
  BOOST_TEST(c.database_path == "/tmp/sink.db");
}

BOOST_AUTO_TEST_CASE(validate_reports_every_problem) {
  auto issues = JdbcSinkConfig::validate(
      {{"insert.mode", "upsert"}, {"delete.enabled", "true"}, {"batch.size", "x"}});
  std::vector<std::string> names;
  for (const auto& i : issues) names.push_back(i.name);
  BOOST_TEST((names == std::vector<std::string>{"connection.url", "batch.size", "delete.enabled", "insert.mode"}));
  BOOST_TEST(JdbcSinkConfig::validate(with_url({})).empty());
  // Each message is what parse() would throw.
  auto [key, message] = parse_error(with_url({{"delete.enabled", "true"}}));
  auto again = JdbcSinkConfig::validate(with_url({{"delete.enabled", "true"}}));
  BOOST_REQUIRE(again.size() == 1u);
  BOOST_TEST(again[0].errors.front() == message);
}

BOOST_AUTO_TEST_CASE(definition_documents_every_key) {
  for (const auto& key : JdbcSinkConfig::definition().keys()) {
    BOOST_TEST_CONTEXT(key.name) { BOOST_TEST(!key.doc.empty()); }
  }
  BOOST_TEST(JdbcSinkConfig::definition().find("connection.url") != nullptr);
}

BOOST_AUTO_TEST_SUITE_END()
