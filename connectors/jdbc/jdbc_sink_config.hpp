// The JDBC sink's configuration: Confluent's JdbcSinkConnector keys, on SQLite or
// PostgreSQL.
//
// A connector config moves over from Kafka Connect unchanged: `connection.url` names
// an SQLite file (`jdbc:sqlite:PATH`) or a PostgreSQL server as PgJDBC reads it
// (`jdbc:postgresql://...`, see postgres_url.hpp). Keys that have no meaning on the
// chosen database are accepted and ignored (see docs/jdbc-sink.md for the list); keys
// whose value would change what gets written are accepted only with the values weir
// implements (`db.timezone=UTC`, `table.types=TABLE`, the URL's dialect).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "connectors/jdbc/postgres_url.hpp"
#include "weir/config.hpp"

namespace weir::connectors::jdbc {

enum class InsertMode : uint8_t { Insert, Upsert, Update };
enum class PkMode : uint8_t { None, Kafka, RecordKey, RecordValue };
enum class Dialect : uint8_t { Sqlite, Postgres };

std::string_view to_string(InsertMode mode) noexcept; ///< `insert`, `upsert`, `update`
std::string_view to_string(PkMode mode) noexcept;     ///< `none`, `kafka`, ...

/// The parsed, cross-checked configuration of one JDBC sink connector.
struct JdbcSinkConfig {
  static constexpr std::string_view connector_class = "io.confluent.connect.jdbc.JdbcSinkConnector";
  static constexpr std::string_view connector_alias = "JdbcSinkConnector";
  /// The class Kafka Connect names in record errors (`__connect.errors.class.name`).
  static constexpr std::string_view task_class = "io.confluent.connect.jdbc.sink.JdbcSinkTask";
  /// pk.mode=kafka's default column names, in Confluent's order.
  static const std::vector<std::string>& default_kafka_pk_fields();

  std::string connection_url;
  Dialect dialect = Dialect::Sqlite; ///< from the URL
  std::string database_path; ///< SQLite: connection_url without `jdbc:sqlite:`
  /// PostgreSQL: libpq's keywords, connection.user/password applied (holds the password).
  PostgresConnection postgres;
  int32_t connection_attempts = 3;       ///< PostgreSQL: tries per connect
  int64_t connection_backoff_ms = 10000; ///< PostgreSQL: wait between tries
  bool quote_identifiers = true;         ///< PostgreSQL: quote.sql.identifiers=always
  InsertMode insert_mode = InsertMode::Insert;
  PkMode pk_mode = PkMode::None;
  /// As configured; for pk.mode=kafka the three defaults when none were given.
  std::vector<std::string> pk_fields;
  std::vector<std::string> fields_whitelist;
  bool auto_create = false;
  bool auto_evolve = false;
  bool delete_enabled = false;
  std::string table_name_format = "${topic}";
  int32_t batch_size = 3000;

  /// The declared keys (also what `/connector-plugins/.../config` shows).
  static const ConfigDef& definition();

  /// Parses and cross-checks a connector config. Keys the worker owns (`name`,
  /// `topics`, `transforms.*`, `errors.*`, converters, ...) pass through by default.
  /// Throws weir::ConfigError naming the offending key.
  static JdbcSinkConfig parse(const std::map<std::string, std::string>& raw,
                              const ParseOptions& options = connector_keys());

  /// Every problem at once, for `/config/validate`: the ConfigDef's issues plus the
  /// cross-key checks parse() makes. Empty means parse() succeeds.
  static std::vector<ConfigIssue> validate(const std::map<std::string, std::string>& raw,
                                           const ParseOptions& options = connector_keys());

  /// The keys of Kafka Connect's ConnectorConfig / SinkConnectorConfig, which the
  /// worker reads and this connector lets through.
  static const ParseOptions& connector_keys();

  /// `table.name.format` with every `${topic}` replaced by `topic`.
  std::string table_name(std::string_view topic) const;
};

} // namespace weir::connectors::jdbc
