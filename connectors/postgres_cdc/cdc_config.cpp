#include "connectors/postgres_cdc/cdc_config.hpp"

namespace weir::connectors::postgres_cdc {

namespace {

/// A replication slot name: lower-case letters, digits and underscores (PostgreSQL's rule).
std::optional<std::string> slot_name(const ConfigValue& v) {
  const auto& s = std::get<std::string>(v);
  if (s.empty() || s.size() > 63)
    return "a slot name has 1 to 63 characters";
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
      return "a slot name may contain only lower-case letters, digits and underscores";
  return std::nullopt;
}

std::vector<std::regex> patterns(const Config& config, const char* key) {
  std::vector<std::regex> out;
  for (const auto& p : config.get_list(key)) {
    try {
      out.emplace_back(p, std::regex::ECMAScript | std::regex::icase);
    } catch (const std::regex_error& e) {
      throw ConfigError(key, "Invalid value " + p + " for configuration " + key
                               + ": not a regular expression (" + e.what() + ")");
    }
  }
  return out;
}

} // namespace

void define_postgres_cdc(ConfigDef& def) {
  def.define("database.hostname", ConfigType::String, Importance::High,
             "Resolvable hostname or IP address of the database server.", validators::non_empty());
  def.define("database.port", ConfigType::Int, "5432", Importance::High,
             "Port of the database server.", validators::range(1, 65535));
  def.define("database.user", ConfigType::String, Importance::High,
             "Name of the database user to be used when connecting to the database.",
             validators::non_empty());
  def.define("database.password", ConfigType::Password, "", Importance::High,
             "Password of the database user to be used when connecting to the database.");
  def.define("database.dbname", ConfigType::String, Importance::High,
             "The name of the database from which the connector should capture changes.",
             validators::non_empty());
  def.define("topic.prefix", ConfigType::String, Importance::High,
             "Topic prefix that identifies and provides a namespace for this database server; "
             "topics are named <topic.prefix>.<schema>.<table>.",
             validators::non_empty());
  def.define("plugin.name", ConfigType::String, "pgoutput", Importance::Medium,
             "The logical decoding plugin. weir speaks pgoutput, which ships with PostgreSQL.",
             [](const ConfigValue& v) -> std::optional<std::string> {
               if (std::get<std::string>(v) != "pgoutput")
                 return "weir's PostgresConnector reads the pgoutput plugin only (it ships with "
                        "PostgreSQL 10 and later); set plugin.name=pgoutput";
               return std::nullopt;
             });
  def.define("slot.name", ConfigType::String, "debezium", Importance::Medium,
             "The name of the PostgreSQL logical decoding slot.", slot_name);
  def.define("publication.name", ConfigType::String, "dbz_publication", Importance::Medium,
             "The name of the PostgreSQL publication to stream changes from.", validators::non_empty());
  def.define("publication.autocreate.mode", ConfigType::String, "all_tables", Importance::Medium,
             "all_tables: create the publication FOR ALL TABLES when it is missing (needs a "
             "superuser); disabled: it must exist; filtered: create or alter it to hold exactly "
             "the captured tables.",
             validators::one_of({"all_tables", "disabled", "filtered"}));
  def.define("table.include.list", ConfigType::List, "", Importance::Medium,
             "Regular expressions matching the fully-qualified names (schema.table) of the tables "
             "to capture; empty: every table.");
  def.define("table.exclude.list", ConfigType::List, "", Importance::Medium,
             "Regular expressions matching the fully-qualified names of tables not to capture.");
  def.define("snapshot.mode", ConfigType::String, "initial", Importance::Medium,
             "initial: read the captured tables first (op r) when no offset is stored, then "
             "stream; no_data (or its older name never): stream only.",
             validators::one_of({"initial", "no_data", "never"}));
  def.define("tombstones.on.delete", ConfigType::Boolean, "true", Importance::Medium,
             "Whether a delete event is followed by a tombstone (the key with a null value).");
  def.define("slot.drop.on.stop", ConfigType::Boolean, "false", Importance::Medium,
             "Whether to drop the replication slot when the task stops in an orderly way.");
  def.define("heartbeat.interval.ms", ConfigType::Int, "0", Importance::Medium,
             "How often, when no captured table changes, to record the server's WAL position "
             "(a record in __debezium-heartbeat.<topic.prefix>), so the slot does not hold WAL; 0 "
             "disables heartbeats.",
             validators::range(0, std::nullopt));
}

CdcConfig CdcConfig::from(const Config& config) {
  CdcConfig c;
  c.host = config.get_string("database.hostname");
  c.port = config.get_int("database.port");
  c.user = config.get_string("database.user");
  c.password = config.get_password("database.password").value();
  c.dbname = config.get_string("database.dbname");
  c.topic_prefix = config.get_string("topic.prefix");
  c.slot = config.get_string("slot.name");
  c.publication = config.get_string("publication.name");
  const auto& mode = config.get_string("publication.autocreate.mode");
  c.publication_mode = mode == "filtered"   ? PublicationMode::Filtered
                       : mode == "disabled" ? PublicationMode::Disabled
                                            : PublicationMode::AllTables;
  c.include = patterns(config, "table.include.list");
  c.exclude = patterns(config, "table.exclude.list");
  c.snapshot = config.get_string("snapshot.mode") == "initial" ? SnapshotMode::Initial
                                                               : SnapshotMode::NoData;
  c.tombstones_on_delete = config.get_bool("tombstones.on.delete");
  c.drop_slot_on_stop = config.get_bool("slot.drop.on.stop");
  c.heartbeat_ms = config.get_int("heartbeat.interval.ms");
  return c;
}

bool CdcConfig::captures(const std::string& schema, const std::string& table) const {
  auto name = schema + "." + table;
  auto any = [&](const std::vector<std::regex>& list) {
    for (const auto& re : list)
      if (std::regex_match(name, re))
        return true;
    return false;
  };
  return (include.empty() || any(include)) && !any(exclude);
}

std::vector<std::pair<std::string, std::string>> CdcConfig::keywords(bool replication) const {
  std::vector<std::pair<std::string, std::string>> kw{
    {"host", host},
    {"port", std::to_string(port)},
    {"user", user},
    {"dbname", dbname},
    {"application_name", "weir-" + slot},
    {"options", "-c TimeZone=UTC -c DateStyle=ISO -c extra_float_digits=3 -c bytea_output=hex"},
  };
  if (!password.empty())
    kw.emplace_back("password", password);
  if (replication)
    kw.emplace_back("replication", "database");
  return kw;
}

} // namespace weir::connectors::postgres_cdc
