#include "connectors/jdbc/jdbc_sink_config.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "runtime/config/convert.hpp"

namespace weir::connectors::jdbc {

namespace {

constexpr std::string_view url_prefix = "jdbc:sqlite:";
constexpr std::string_view postgres_dialect = "PostgreSqlDatabaseDialect";

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::optional<std::string> check_url(const ConfigValue& v) {
  const auto& url = std::get<std::string>(v);
  if (is_postgres_url(url)) return std::nullopt; // parsed in cross_check, which never shows the URL
  if (!url.starts_with(url_prefix))
    return "weir's JDBC sink writes to SQLite or PostgreSQL: use jdbc:sqlite:PATH or "
           "jdbc:postgresql://host[:port]/database";
  if (url.size() == url_prefix.size())
    return "the SQLite database path after jdbc:sqlite: is empty";
  return std::nullopt;
}

// A validator accepting only the values (case-insensitive) that keep the key's meaning
// on SQLite; the reason says why the others are refused.
Validator only(std::vector<std::string> allowed, std::string why) {
  return [allowed = std::move(allowed), why = std::move(why)](const ConfigValue& v)
             -> std::optional<std::string> {
    auto ok = [&](const std::string& s) {
      return std::any_of(allowed.begin(), allowed.end(),
                         [&](const std::string& a) { return lower(a) == lower(runtime::trim(s)); });
    };
    if (const auto* s = std::get_if<std::string>(&v); s && !ok(*s)) return why;
    if (const auto* l = std::get_if<std::vector<std::string>>(&v))
      for (const auto& s : *l)
        if (!ok(s)) return why;
    return std::nullopt;
  };
}

ConfigDef make_definition() {
  using validators::one_of;
  ConfigDef def;
  def.group("Connection")
      .define("connection.url", ConfigType::String, Importance::High,
              "JDBC connection URL: jdbc:sqlite:PATH (a file path, or file:... URI) or "
              "jdbc:postgresql://host[:port][,host2[:port2]...][/database][?key=value&...] as "
              "PgJDBC reads it.",
              check_url)
      .define("connection.user", ConfigType::String, "", Importance::High,
              "PostgreSQL: the user (wins over the URL's user parameter). SQLite: ignored.")
      .define("connection.password", ConfigType::Password, "", Importance::High,
              "PostgreSQL: the password (wins over the URL's password parameter); never shown "
              "or logged. SQLite: ignored.")
      .define("dialect.name", ConfigType::String, "", Importance::Low,
              "The database dialect: empty (derived from the URL), SqliteDatabaseDialect or "
              "PostgreSqlDatabaseDialect, which must match the URL.",
              only({"", "SqliteDatabaseDialect", std::string(postgres_dialect)},
                   "weir's JDBC sink implements SqliteDatabaseDialect and PostgreSqlDatabaseDialect"))
      .define("connection.attempts", ConfigType::Int, "3", Importance::Low,
              "PostgreSQL: how many times to try connecting before the write fails. SQLite: "
              "ignored (opening a file is not retried).",
              validators::range(1, std::nullopt))
      .define("connection.backoff.ms", ConfigType::Long, "10000", Importance::Low,
              "PostgreSQL: the wait between connection attempts. SQLite: ignored.",
              validators::range(0, std::nullopt));
  def.group("Writes")
      .define("insert.mode", ConfigType::String, "insert", Importance::High,
              "insert: plain INSERT; upsert: INSERT ... ON CONFLICT(pk) DO UPDATE; update: "
              "UPDATE ... WHERE pk.",
              one_of({"insert", "upsert", "update"}, true))
      .define("batch.size", ConfigType::Int, "3000", Importance::Medium,
              "PostgreSQL: the most rows sent to the server in one COPY; a batch with more goes "
              "in several, inside its one transaction. SQLite: validated only (every record is "
              "one step of a cached prepared statement inside the batch's transaction).",
              validators::range(0, std::nullopt))
      .define("delete.enabled", ConfigType::Boolean, "false", Importance::Medium,
              "Whether null record values (tombstones) delete the row with the record's key. "
              "Requires pk.mode=record_key.")
      .define("table.types", ConfigType::List, "TABLE", Importance::Low,
              "The table types the sink writes to; TABLE only on SQLite.",
              only({"TABLE"}, "weir's JDBC sink writes to tables only (TABLE)"));
  def.group("Data Mapping")
      .define("table.name.format", ConfigType::String, "${topic}", Importance::Medium,
              "The destination table name; ${topic} is replaced by the record's topic.",
              validators::non_empty())
      .define("pk.mode", ConfigType::String, "none", Importance::High,
              "The primary key: none, kafka (topic, partition, offset), record_key (fields of "
              "the key, or the key itself), record_value (fields of the value).",
              one_of({"none", "kafka", "record_key", "record_value"}, true))
      .define("pk.fields", ConfigType::List, "", Importance::Medium,
              "Primary key field names. kafka: none or exactly 3 (default "
              "__connect_topic,__connect_partition,__connect_offset); record_key: all key "
              "fields if empty, exactly one for a primitive key; record_value: all value fields "
              "if empty.")
      .define("fields.whitelist", ConfigType::List, "", Importance::Medium,
              "Record value fields to write (all if empty). Primary key fields are written "
              "regardless.")
      .define("db.timezone", ConfigType::String, "UTC", Importance::Medium,
              "Time zone of written Date/Time/Timestamp values; weir writes UTC only.",
              only({"UTC", "Etc/UTC", "Z", "GMT", "Etc/GMT", "UCT"},
                   "weir's JDBC sink writes times in UTC only"))
      .define("db.timezone.date", ConfigType::String, "NONE", Importance::Low,
              "Accepted and ignored: dates are written as UTC calendar dates.",
              one_of({"NONE", "UTC"}, true));
  def.group("DDL Support")
      .define("auto.create", ConfigType::Boolean, "false", Importance::Medium,
              "Whether to CREATE a missing destination table from the record's schema (or "
              "the inferred types of a schemaless record).")
      .define("auto.evolve", ConfigType::Boolean, "false", Importance::Medium,
              "Whether to ALTER TABLE ... ADD COLUMN for record fields the table lacks.")
      .define("quote.sql.identifiers", ConfigType::String, "ALWAYS", Importance::Medium,
              "PostgreSQL: always quotes table and column names (case kept), never writes them "
              "bare (PostgreSQL folds them to lower case). SQLite: always quoted.",
              one_of({"ALWAYS", "NEVER"}, true));
  def.group("DML Support")
      .define("mssql.use.merge.holdlock", ConfigType::Boolean, "true", Importance::Low,
              "Accepted and ignored (SQL Server only).");
  def.group("Retries")
      .define("max.retries", ConfigType::Int, "10", Importance::Medium,
              "Accepted and ignored: weir's errors.retry.timeout applies instead.",
              validators::range(0, std::nullopt))
      .define("retry.backoff.ms", ConfigType::Int, "3000", Importance::Medium,
              "Accepted and ignored: weir's errors.retry.delay.max.ms applies instead.",
              validators::range(0, std::nullopt))
      .define("trim.sensitive.log", ConfigType::Boolean, "false", Importance::Low,
              "Accepted and ignored: weir never logs record values.");
  return def;
}

// The value a key would take: as given or its default, lower-cased and trimmed; for
// the cross-key checks, which must also run when other keys are invalid.
std::string effective(const std::map<std::string, std::string>& raw, const std::string& key) {
  if (auto it = raw.find(key); it != raw.end()) return lower(runtime::trim(it->second));
  return lower(*JdbcSinkConfig::definition().find(key)->default_value);
}

size_t list_size(std::string_view text) {
  size_t n = 0;
  while (!text.empty()) {
    auto comma = text.find(',');
    if (!runtime::trim(text.substr(0, comma)).empty()) ++n;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return n;
}

// Checks that involve several keys, each reported against the key to change.
std::vector<ConfigIssue> cross_check(const std::map<std::string, std::string>& raw) {
  std::vector<ConfigIssue> issues;
  auto add = [&](const std::string& key, const std::string& reason) {
    auto it = raw.find(key);
    std::optional<std::string> given;
    if (it != raw.end()) given = it->second;
    std::string shown = given ? *given : *JdbcSinkConfig::definition().find(key)->default_value;
    issues.push_back({key, given, {runtime::invalid_value_message(key, shown, reason)}});
  };
  if (auto url = raw.find("connection.url"); url != raw.end() && is_postgres_url(url->second)) {
    try {
      parse_postgres_url(runtime::trim(url->second));
    } catch (const ConfigError& e) {
      // The URL may hold a password: the issue never shows it.
      issues.push_back({"connection.url", std::string(Password::hidden), {e.what()}});
    }
    if (auto d = effective(raw, "dialect.name"); !d.empty() && d != lower(postgres_dialect))
      add("dialect.name", "a jdbc:postgresql: URL needs dialect.name empty or PostgreSqlDatabaseDialect");
  } else if (effective(raw, "dialect.name") == lower(postgres_dialect)) {
    add("dialect.name", "PostgreSqlDatabaseDialect needs a jdbc:postgresql: connection.url");
  }
  auto pk_mode = effective(raw, "pk.mode");
  auto insert_mode = effective(raw, "insert.mode");
  if (effective(raw, "delete.enabled") == "true" && pk_mode != "record_key")
    add("delete.enabled",
        "Primary key mode must be 'record_key' when delete support is enabled (pk.mode=" + pk_mode + ")");
  if ((insert_mode == "upsert" || insert_mode == "update") && pk_mode == "none")
    add("insert.mode", "insert.mode=" + insert_mode +
                           " needs a primary key to match rows by; set pk.mode (kafka, record_key or "
                           "record_value)");
  if (pk_mode == "kafka") {
    auto it = raw.find("pk.fields");
    size_t n = it == raw.end() ? 0 : list_size(it->second);
    if (n != 0 && n != 3)
      add("pk.fields", "PK mode is kafka so there should either be no field names defined for defaults "
                       "__connect_topic,__connect_partition,__connect_offset to be applicable, or exactly 3");
  }
  return issues;
}

} // namespace

std::string_view to_string(InsertMode mode) noexcept {
  switch (mode) {
    case InsertMode::Insert: return "insert";
    case InsertMode::Upsert: return "upsert";
    case InsertMode::Update: return "update";
  }
  return "?";
}

std::string_view to_string(PkMode mode) noexcept {
  switch (mode) {
    case PkMode::None: return "none";
    case PkMode::Kafka: return "kafka";
    case PkMode::RecordKey: return "record_key";
    case PkMode::RecordValue: return "record_value";
  }
  return "?";
}

const std::vector<std::string>& JdbcSinkConfig::default_kafka_pk_fields() {
  static const std::vector<std::string> names{"__connect_topic", "__connect_partition", "__connect_offset"};
  return names;
}

const ConfigDef& JdbcSinkConfig::definition() {
  static const ConfigDef def = make_definition();
  return def;
}

const ParseOptions& JdbcSinkConfig::connector_keys() {
  static const ParseOptions options{
      {"transforms.", "predicates.", "errors.", "key.converter.", "value.converter.",
       "header.converter.", "consumer.override.", "producer.override.", "admin.override."},
      {"name", "connector.class", "tasks.max", "topics", "topics.regex", "key.converter",
       "value.converter", "header.converter", "transforms", "predicates", "config.action.reload"}};
  return options;
}

std::vector<ConfigIssue> JdbcSinkConfig::validate(const std::map<std::string, std::string>& raw,
                                                  const ParseOptions& options) {
  auto issues = definition().validate(raw, options);
  for (auto& issue : cross_check(raw)) {
    auto same = std::find_if(issues.begin(), issues.end(),
                             [&](const ConfigIssue& i) { return i.name == issue.name; });
    if (same == issues.end())
      issues.push_back(std::move(issue));
    else
      same->errors.push_back(std::move(issue.errors.front()));
  }
  return issues;
}

JdbcSinkConfig JdbcSinkConfig::parse(const std::map<std::string, std::string>& raw,
                                     const ParseOptions& options) {
  Config c = definition().parse(raw, options);
  if (auto issues = cross_check(raw); !issues.empty())
    throw ConfigError(issues.front().name, issues.front().errors.front());

  JdbcSinkConfig out;
  out.connection_url = std::string(runtime::trim(c.get_string("connection.url")));
  if (is_postgres_url(out.connection_url)) {
    out.dialect = Dialect::Postgres;
    out.postgres = parse_postgres_url(out.connection_url, runtime::trim(c.get_string("connection.user")),
                                      c.get_password("connection.password").value());
  } else {
    out.database_path = out.connection_url.substr(url_prefix.size());
  }
  out.connection_attempts = c.get_int("connection.attempts");
  out.connection_backoff_ms = c.get_long("connection.backoff.ms");
  out.quote_identifiers = lower(c.get_string("quote.sql.identifiers")) == "always";
  auto insert = lower(c.get_string("insert.mode"));
  out.insert_mode = insert == "upsert"   ? InsertMode::Upsert
                    : insert == "update" ? InsertMode::Update
                                         : InsertMode::Insert;
  auto pk = lower(c.get_string("pk.mode"));
  out.pk_mode = pk == "kafka"          ? PkMode::Kafka
                : pk == "record_key"   ? PkMode::RecordKey
                : pk == "record_value" ? PkMode::RecordValue
                                       : PkMode::None;
  out.pk_fields = c.get_list("pk.fields");
  if (out.pk_mode == PkMode::Kafka && out.pk_fields.empty()) out.pk_fields = default_kafka_pk_fields();
  if (out.pk_mode == PkMode::None) out.pk_fields.clear(); // ignored, as Confluent does
  out.fields_whitelist = c.get_list("fields.whitelist");
  out.auto_create = c.get_bool("auto.create");
  out.auto_evolve = c.get_bool("auto.evolve");
  out.delete_enabled = c.get_bool("delete.enabled");
  out.table_name_format = std::string(runtime::trim(c.get_string("table.name.format")));
  out.batch_size = c.get_int("batch.size");
  return out;
}

std::string JdbcSinkConfig::table_name(std::string_view topic) const {
  static constexpr std::string_view placeholder = "${topic}";
  std::string out;
  std::string_view rest = table_name_format;
  for (auto at = rest.find(placeholder); at != std::string_view::npos; at = rest.find(placeholder)) {
    out.append(rest.substr(0, at)).append(topic);
    rest.remove_prefix(at + placeholder.size());
  }
  out.append(rest);
  return out;
}

} // namespace weir::connectors::jdbc
