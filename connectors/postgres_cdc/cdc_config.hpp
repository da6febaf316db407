// The PostgresConnector's keys, spelled as Debezium's
// (io.debezium.connector.postgresql.PostgresConnector), and the parsed settings a task
// runs with. Keys weir does not support are unknown keys: the usual error, with a
// suggestion, before anything runs.
#pragma once

#include <regex>
#include <string>
#include <vector>

#include "weir/config.hpp"

namespace weir::connectors::postgres_cdc {

void define_postgres_cdc(ConfigDef& def);

enum class SnapshotMode { Initial, NoData };
enum class PublicationMode { AllTables, Disabled, Filtered };

struct CdcConfig {
  std::string host;
  int port = 5432;
  std::string user;
  std::string password;
  std::string dbname;
  std::string topic_prefix;
  std::string slot;
  std::string publication;
  PublicationMode publication_mode = PublicationMode::AllTables;
  std::vector<std::regex> include, exclude;
  SnapshotMode snapshot = SnapshotMode::Initial;
  bool tombstones_on_delete = true;
  bool drop_slot_on_stop = false;
  int64_t heartbeat_ms = 0;

  /// Reads a Config parsed with define_postgres_cdc. Throws ConfigError naming the
  /// key (a table list entry that is not a valid regular expression, ...).
  static CdcConfig from(const Config& config);

  /// Whether `schema.table` is captured: it matches an include pattern (or there are
  /// none) and no exclude pattern; Debezium's lists are anchored, case-insensitive
  /// regular expressions.
  bool captures(const std::string& schema, const std::string& table) const;

  /// libpq keywords: host, port, user, password, dbname, and a session in UTC with
  /// ISO dates, so value text is read one way; `replication` adds replication=database.
  std::vector<std::pair<std::string, std::string>> keywords(bool replication) const;
};

} // namespace weir::connectors::postgres_cdc
