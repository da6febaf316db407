#include "connectors/jdbc/jdbc_source.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "runtime/convert/json_text.hpp"
#include "runtime/data/decoded_batch.hpp"
#include "connectors/jdbc/postgres_source.hpp"
#include "connectors/jdbc/postgres_url.hpp"
#include "connectors/jdbc/sql_text.hpp"
#include "runtime/data/errors.hpp"

namespace weir::connectors::jdbc {

namespace {

using namespace runtime::data;
using Clock = std::chrono::steady_clock;
constexpr std::string_view url_prefix = "jdbc:sqlite:";


std::string lower(std::string s) {
  for (auto& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// SQLite's type affinity rules (datatype3.html, 3.1), with BOOLEAN and dates
/// kept apart so they read naturally in JSON.
Type type_of(const std::string& declared) {
  auto d = lower(declared);
  auto has = [&](const char* s) { return d.find(s) != std::string::npos; };
  if (has("bool"))
    return Type::Boolean;
  if (has("int"))
    return Type::Int64;
  if (has("char") || has("clob") || has("text") || has("date") || has("time"))
    return Type::String;
  if (has("blob") || d.empty())
    return Type::Bytes;
  return Type::Float64; // REAL, FLOAT, DOUBLE, NUMERIC, DECIMAL
}

std::string database_path(const Config& config) {
  const auto& url = config.get_string("connection.url");
  return url.substr(url_prefix.size());
}

sqlite3* open_database(const std::string& path) {
  if (!std::filesystem::exists(path))
    throw std::runtime_error("JdbcSourceConnector: database " + path + " does not exist");
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr)
      != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw std::runtime_error("JdbcSourceConnector: cannot open " + path + ": " + why);
  }
  sqlite3_busy_timeout(db, 5000);
  return db;
}

struct StmtDeleter {
  void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

Stmt prepare_sql(sqlite3* db, const std::string& sql, const std::string& what) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) != SQLITE_OK)
    throw std::runtime_error("JdbcSourceConnector: " + what + ": " + sqlite3_errmsg(db));
  return Stmt{s};
}

std::string text_column(sqlite3_stmt* s, int i) {
  auto* p = sqlite3_column_text(s, i);
  return p ? reinterpret_cast<const char*>(p) : "";
}

/// Column value tags in a row's encoded bytes.
enum Tag : char { Null, Integer, Real, Text, Blob };

int64_t read_i64(const char* p) {
  int64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

/// A timestamp column in milliseconds: integers as they are, date text by julianday().
std::string timestamp_ms(const std::string& column) {
  auto c = jdbc::quoted(column);
  return "(CASE WHEN typeof(" + c + ") IN ('integer', 'real') THEN CAST(" + c
         + " AS INTEGER) ELSE CAST(round((julianday(" + c + ") - 2440587.5) * 86400000) AS "
           "INTEGER) END)";
}

} // namespace

struct JdbcSourceTask::Table {
  std::string name, topic, partition;
  std::vector<std::string> columns;
  std::vector<Type> types;
  SchemaPtr schema;
  Stmt query;
  bool open = false;
  Clock::time_point next_query{};
  int64_t last_incrementing = -1; // Confluent's start: every id above -1
  int64_t last_timestamp = 0;     // milliseconds since the epoch
  int incrementing_index = -1;    // column of the incrementing id
  std::string offset_text;
};

void define_jdbc_source(ConfigDef& def) {
  def.define("connection.url", ConfigType::String, Importance::High,
             "JDBC connection URL: jdbc:postgresql://HOST[:PORT]/DATABASE[?...] or "
             "jdbc:sqlite:PATH",
             [](const ConfigValue& v) -> std::optional<std::string> {
               const auto& url = std::get<std::string>(v);
               if (is_postgres_url(url)) {
                 try {
                   parse_postgres_url(url);
                 } catch (const std::exception& e) {
                   return std::string{e.what()};
                 }
                 return std::nullopt;
               }
               if (!url.starts_with(url_prefix))
                 return "weir's JDBC source reads PostgreSQL (jdbc:postgresql://HOST/DATABASE) "
                        "and SQLite (jdbc:sqlite:PATH)";
               if (url.size() == url_prefix.size())
                 return "the SQLite database path after jdbc:sqlite: is empty";
               return std::nullopt;
             });
  def.define("connection.user", ConfigType::String, "", Importance::High,
             "JDBC connection user (PostgreSQL).");
  def.define("connection.password", ConfigType::Password, "", Importance::High,
             "JDBC connection password (PostgreSQL).");
  def.define("query", ConfigType::String, "", Importance::Medium,
             "If specified, the query to perform to select new or updated rows, instead of "
             "copying tables; the mode's WHERE clause is appended to it (PostgreSQL).");
  def.define("schema.pattern", ConfigType::String, "", Importance::Medium,
             "Schemas to read tables from, as a LIKE pattern; empty: every schema but the "
             "system ones (PostgreSQL).");
  def.define("table.types", ConfigType::List, "TABLE", Importance::Low,
             "The types of table to copy: TABLE, VIEW, PARTITIONED TABLE, MATERIALIZED VIEW, "
             "FOREIGN TABLE (PostgreSQL).",
             [](const ConfigValue& v) -> std::optional<std::string> {
               for (const auto& t : std::get<std::vector<std::string>>(v))
                 if (t != "TABLE" && t != "VIEW" && t != "PARTITIONED TABLE" && t != "MATERIALIZED VIEW"
                     && t != "FOREIGN TABLE")
                   return "unknown table type " + t
                          + " (TABLE, VIEW, PARTITIONED TABLE, MATERIALIZED VIEW, FOREIGN TABLE)";
               return std::nullopt;
             });
  def.define("numeric.mapping", ConfigType::String, "none", Importance::Low,
             "Map NUMERIC values by precision and optionally scale to integral or decimal "
             "types: none, best_fit, best_fit_eager_double, precision_only (PostgreSQL).",
             validators::one_of({"none", "best_fit", "best_fit_eager_double", "precision_only"}));
  def.define("validate.non.null", ConfigType::Boolean, "true", Importance::Low,
             "Whether to check that the incrementing and timestamp columns are NOT NULL "
             "(PostgreSQL).");
  def.define("mode", ConfigType::String, Importance::High,
             "The mode for updating a table each time it is polled: bulk, incrementing, "
             "timestamp or timestamp+incrementing",
             validators::one_of({"bulk", "incrementing", "timestamp", "timestamp+incrementing"}));
  def.define("incrementing.column.name", ConfigType::String, "", Importance::Medium,
             "The name of the strictly incrementing column to use to detect new rows.");
  def.define("timestamp.column.name", ConfigType::String, "", Importance::Medium,
             "The name of the timestamp column to use to detect new or modified rows.");
  def.define("timestamp.delay.interval.ms", ConfigType::Long, "0", Importance::High,
             "How long to wait after a row with a certain timestamp appears before including "
             "it, so that transactions with earlier timestamps can complete.",
             validators::range(0, std::nullopt));
  def.define("table.whitelist", ConfigType::List, "", Importance::Medium,
             "List of tables to include in copying; empty: every table.");
  def.define("table.blacklist", ConfigType::List, "", Importance::Medium,
             "List of tables to exclude from copying.");
  def.define("topic.prefix", ConfigType::String, Importance::High,
             "Prefix to prepend to table names to generate the name of the Kafka topic.");
  def.define("poll.interval.ms", ConfigType::Int, "5000", Importance::High,
             "Frequency in ms to poll for new data in each table.", validators::range(1, std::nullopt));
  def.define("table.poll.interval.ms", ConfigType::Long, "60000", Importance::Low,
             "Frequency in ms to poll for new or removed tables, which may result in updated "
             "task configurations to start polling for data in added tables or stop polling "
             "for data in removed tables.",
             validators::range(1, std::nullopt));
  def.define("batch.max.rows", ConfigType::Int, "100", Importance::Low,
             "Maximum number of rows to include in a single batch when polling for new data.",
             validators::range(1, std::nullopt));
  def.define("tables", ConfigType::List, "", Importance::Low,
             "Set per task by the connector: the tables this task copies.");
  def.define("task.idle.reason", ConfigType::String, "", Importance::Low,
             "Set per task by the connector: why this task has no table to copy.");
}

bool is_postgres_source(const Config& config) {
  return is_postgres_url(config.get_string("connection.url"));
}

SourceMode source_mode(const Config& config) {
  auto mode = config.get_string("mode");
  auto m = mode == "bulk"           ? SourceMode::Bulk
           : mode == "incrementing" ? SourceMode::Incrementing
           : mode == "timestamp"    ? SourceMode::Timestamp
                                    : SourceMode::TimestampIncrementing;
  if (uses_incrementing(m) && config.get_string("incrementing.column.name").empty())
    throw ConfigError("incrementing.column.name",
                      "Missing configuration incrementing.column.name: mode " + mode + " needs it");
  if (uses_timestamp(m) && config.get_string("timestamp.column.name").empty())
    throw ConfigError("timestamp.column.name",
                      "Missing configuration timestamp.column.name: mode " + mode + " needs it");
  return m;
}

std::string offset_json(SourceMode mode, const SourceOffset& offset) {
  if (mode == SourceMode::Bulk)
    return {};
  std::string text = "{";
  if (uses_timestamp(mode)) {
    // java.sql.Timestamp: getTime() in ms, getNanos() the fraction of its second.
    auto us = offset.timestamp_micros;
    auto seconds = us / 1000000 - (us % 1000000 < 0);
    auto micros_of_second = us - seconds * 1000000;
    text += "\"timestamp\":" + std::to_string(seconds * 1000 + micros_of_second / 1000)
            + ",\"timestamp_nanos\":" + std::to_string(micros_of_second * 1000);
  }
  if (mode == SourceMode::TimestampIncrementing)
    text += ',';
  if (uses_incrementing(mode))
    text += "\"incrementing\":" + std::to_string(offset.incrementing);
  return text + '}';
}

namespace {

std::optional<int64_t> offset_number(std::string_view text, std::string_view key) {
  auto at = text.find("\"" + std::string{key} + "\"");
  if (at == std::string_view::npos)
    return std::nullopt;
  auto colon = text.find(':', at);
  auto p = colon == std::string_view::npos ? colon : text.find_first_not_of(" ", colon + 1);
  int64_t v = 0;
  if (p != std::string_view::npos
      && std::from_chars(text.data() + p, text.data() + text.size(), v).ec == std::errc{})
    return v;
  return std::nullopt;
}

} // namespace

SourceOffset read_offset(SourceMode mode, std::string_view text, const std::string& partition) {
  auto need = [&](std::string_view key) {
    if (auto v = offset_number(text, key))
      return *v;
    throw std::runtime_error("JdbcSourceConnector: stored offset " + std::string{text} + " of "
                             + partition + " has no number \"" + std::string{key} + "\"");
  };
  SourceOffset o;
  if (uses_incrementing(mode))
    o.incrementing = need("incrementing");
  if (uses_timestamp(mode)) {
    auto ms = need("timestamp");
    auto seconds = ms / 1000 - (ms % 1000 < 0);
    if (auto nanos = offset_number(text, "timestamp_nanos"))
      o.timestamp_micros = seconds * 1000000 + *nanos / 1000;
    else
      o.timestamp_micros = ms * 1000;
  }
  return o;
}

std::string table_partition(const std::string& table) {
  std::string p = "{\"protocol\":\"1\",\"table\":";
  runtime::convert::append_json_string(table, p);
  return p + "}";
}

std::string query_partition() { return R"({"query":"query"})"; }

std::vector<std::string> select_tables(const Config& config) {
  if (is_postgres_source(config))
    return select_postgres_tables(config);
  auto path = database_path(config);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db{open_database(path), sqlite3_close};
  auto list = prepare_sql(db.get(), "SELECT name FROM sqlite_master WHERE type IN ('table', "
                                    "'view') AND name NOT LIKE 'sqlite_%' ORDER BY name",
                          "listing the tables of " + path);
  std::vector<std::string> all;
  while (sqlite3_step(list.get()) == SQLITE_ROW)
    all.push_back(text_column(list.get(), 0));
  const auto& white = config.get_list("table.whitelist");
  const auto& black = config.get_list("table.blacklist");
  for (const auto& t : white)
    if (std::find(all.begin(), all.end(), t) == all.end())
      throw std::runtime_error("JdbcSourceConnector: table " + t + " (table.whitelist) does not "
                               "exist in " + path);
  std::vector<std::string> out;
  for (const auto& t : all)
    if ((white.empty() || std::find(white.begin(), white.end(), t) != white.end())
        && std::find(black.begin(), black.end(), t) == black.end())
      out.push_back(t);
  return out;
}

JdbcSourceTask::JdbcSourceTask(const Config& config)
  : path_(database_path(config)), mode_(source_mode(config)), incrementing_column_(config.get_string("incrementing.column.name")),
    timestamp_column_(config.get_string("timestamp.column.name")),
    topic_prefix_(config.get_string("topic.prefix")),
    poll_interval_(config.get_int("poll.interval.ms")),
    timestamp_delay_(config.get_long("timestamp.delay.interval.ms")),
    batch_max_rows_(static_cast<size_t>(config.get_int("batch.max.rows"))),
    table_names_(config.get_list("tables")), idle_reason_(config.get_string("task.idle.reason")) {
  if (!config.get_string("query").empty())
    throw ConfigError("query", "Invalid value for configuration query: weir runs custom queries "
                               "on PostgreSQL only (on SQLite, name the tables)");
  if (table_names_.empty() && idle_reason_.empty())
    table_names_ = select_tables(config);
}

JdbcSourceTask::~JdbcSourceTask() {
  tables_.clear(); // statements before the connection
  sqlite3_close(db_);
}

void JdbcSourceTask::start(const runtime::connector_api::OffsetMap& stored) {
  db_ = open_database(path_);
  for (const auto& name : table_names_) {
    auto t = std::make_unique<Table>();
    t->name = name;
    t->topic = topic_prefix_ + name;
    t->partition = table_partition(name);
    auto info = prepare_sql(db_, "PRAGMA table_info(" + jdbc::quoted(name) + ")", "table " + name);
    SchemaBuilder schema = SchemaBuilder::struct_().name(name);
    while (sqlite3_step(info.get()) == SQLITE_ROW) {
      auto column = text_column(info.get(), 1);
      auto type = type_of(text_column(info.get(), 2));
      bool not_null = sqlite3_column_int(info.get(), 3) != 0;
      if (column == incrementing_column_)
        t->incrementing_index = static_cast<int>(t->columns.size());
      t->columns.push_back(column);
      t->types.push_back(type);
      schema.field(column, schemas::of(type, !not_null));
    }
    if (t->columns.empty())
      throw std::runtime_error("JdbcSourceConnector: table " + name + " does not exist in " + path_);
    auto require = [&](const std::string& column, const char* key) {
      if (!column.empty()
          && std::find(t->columns.begin(), t->columns.end(), column) == t->columns.end())
        throw std::runtime_error("JdbcSourceConnector: column " + column + " (" + key
                                 + ") does not exist in table " + name);
    };
    require(incrementing_column_, "incrementing.column.name");
    require(timestamp_column_, "timestamp.column.name");
    t->schema = schema.build();
    if (auto it = stored.find(t->partition); it != stored.end()) {
      auto offset = read_offset(mode_, it->second, t->partition);
      t->last_incrementing = offset.incrementing;
      t->last_timestamp = offset.timestamp_micros / 1000;
    }
    prepare(*t);
    tables_.push_back(std::move(t));
  }
}

void JdbcSourceTask::prepare(Table& t) {
  // The columns read at start, by name: a column added later neither shifts the
  // timestamp column nor outgrows the schema.
  std::string sql = "SELECT ";
  for (size_t c = 0; c < t.columns.size(); ++c)
    sql += (c ? ", " : "") + jdbc::quoted(t.columns[c]);
  std::string where, order;
  auto inc = jdbc::quoted(incrementing_column_);
  auto ts = timestamp_column_.empty() ? std::string{} : timestamp_ms(timestamp_column_);
  switch (mode_) {
    case Mode::Bulk: break;
    case Mode::Incrementing:
      where = inc + " > ?1";
      order = inc;
      break;
    case Mode::Timestamp:
      where = ts + " > ?1 AND " + ts + " < ?2";
      order = ts;
      break;
    case Mode::TimestampIncrementing:
      where = ts + " < ?2 AND ((" + ts + " = ?1 AND " + inc + " > ?3) OR " + ts + " > ?1)";
      order = ts + ", " + inc;
      break;
  }
  if (!ts.empty())
    sql += ", " + ts; // the row's timestamp in ms, after the table's columns
  sql += " FROM " + jdbc::quoted(t.name);
  if (!where.empty())
    sql += " WHERE " + where + " ORDER BY " + order + " ASC";
  t.query = prepare_sql(db_, sql, "querying table " + t.name);
}

bool JdbcSourceTask::step_rows(Table& t, runtime::connector_api::SourceRecords& out) {
  sqlite3_stmt* q = t.query.get();
  const int columns = static_cast<int>(t.columns.size());
  bool stepped = false;
  while (out.size() < batch_max_rows_) {
    int rc = sqlite3_step(q);
    if (rc == SQLITE_DONE) {
      sqlite3_reset(q);
      t.open = false;
      t.next_query = Clock::now() + poll_interval_;
      break;
    }
    if (rc != SQLITE_ROW)
      throw std::runtime_error("JdbcSourceConnector: querying table " + t.name + ": "
                               + sqlite3_errmsg(db_));
    row_.clear();
    for (int c = 0; c < columns; ++c) {
      switch (sqlite3_column_type(q, c)) {
        case SQLITE_NULL: row_ += Tag::Null; break;
        case SQLITE_INTEGER: {
          row_ += Tag::Integer;
          int64_t v = sqlite3_column_int64(q, c);
          row_.append(reinterpret_cast<const char*>(&v), 8);
          break;
        }
        case SQLITE_FLOAT: {
          row_ += Tag::Real;
          double v = sqlite3_column_double(q, c);
          row_.append(reinterpret_cast<const char*>(&v), 8);
          break;
        }
        default: {
          bool blob = sqlite3_column_type(q, c) == SQLITE_BLOB;
          const char* p = blob ? static_cast<const char*>(sqlite3_column_blob(q, c))
                               : reinterpret_cast<const char*>(sqlite3_column_text(q, c));
          auto n = static_cast<uint32_t>(sqlite3_column_bytes(q, c));
          row_ += blob ? Tag::Blob : Tag::Text;
          row_.append(reinterpret_cast<const char*>(&n), 4);
          row_.append(p ? p : "", n);
        }
      }
    }
    if (!out.has_room(row_.size())) {
      // The row does not fit this batch: query again at once from the last offset.
      sqlite3_reset(q);
      t.open = false;
      t.next_query = Clock::now();
      return stepped;
    }
    out.add(t.topic, std::nullopt, row_);
    stepped = true;
    if (t.incrementing_index >= 0)
      t.last_incrementing = sqlite3_column_int64(q, t.incrementing_index);
    if (!timestamp_column_.empty())
      t.last_timestamp = sqlite3_column_int64(q, columns);
  }
  if (stepped && mode_ != Mode::Bulk) {
    t.offset_text = offset_json(mode_, {t.last_incrementing, t.last_timestamp * 1000});
    out.set_offset(t.partition, t.offset_text);
  }
  return stepped;
}

JdbcSourceTask::Status JdbcSourceTask::poll(runtime::connector_api::SourceRecords& out) {
  auto now = Clock::now();
  for (auto& t : tables_) {
    if (out.size() >= batch_max_rows_)
      break;
    if (!t->open) {
      if (now < t->next_query)
        continue;
      sqlite3_stmt* q = t->query.get();
      sqlite3_clear_bindings(q);
      if (mode_ != Mode::Bulk && mode_ != Mode::Incrementing) {
        sqlite3_bind_int64(q, 1, t->last_timestamp);
        auto upper = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch()) - timestamp_delay_;
        sqlite3_bind_int64(q, 2, upper.count());
      }
      if (mode_ == Mode::Incrementing)
        sqlite3_bind_int64(q, 1, t->last_incrementing);
      if (mode_ == Mode::TimestampIncrementing)
        sqlite3_bind_int64(q, 3, t->last_incrementing);
      t->open = true;
    }
    step_rows(*t, out);
  }
  bool more = std::any_of(tables_.begin(), tables_.end(), [](const auto& t) { return t->open; });
  return out.size() > 0 && more ? Status::ready : Status::idle;
}

void JdbcSourceTask::decode(DecodedBatch& batch, uint32_t index) {
  auto& rec = batch[index];
  const auto& raw = batch.raw();
  const auto& ref = raw[rec.raw_index];
  auto topic = raw.topic(ref);
  const Table* table = nullptr;
  for (const auto& t : tables_)
    if (t->topic == topic)
      table = t.get();
  if (!table)
    throw DataError("JdbcSourceConnector: no table for topic " + std::string{topic});
  auto bytes = raw.bytes(ref.value);
  const char* p = bytes.data();
  Value row = Value::structure(batch.arena(), *table->schema);
  auto fields = row.fields();
  for (size_t c = 0; c < table->columns.size(); ++c) {
    char tag = *p++;
    Value v;
    auto type = table->types[c];
    auto mismatch = [&](const char* found) {
      return DataError("JdbcSourceConnector: column " + table->columns[c] + " of table "
                       + table->name + " holds a " + found + " where its declared type maps to "
                       + std::string{to_string(type)});
    };
    if (tag == Tag::Integer || tag == Tag::Real) {
      int64_t i = read_i64(p);
      double d;
      std::memcpy(&d, p, 8);
      p += 8;
      bool integer = tag == Tag::Integer;
      switch (type) {
        case Type::Int64:
          if (!integer && d != static_cast<double>(static_cast<int64_t>(d)))
            throw mismatch("fraction");
          v = Value::int64(integer ? i : static_cast<int64_t>(d));
          break;
        case Type::Boolean: v = Value::boolean(integer ? i != 0 : d != 0); break;
        case Type::Float64: v = Value::float64(integer ? static_cast<double>(i) : d); break;
        case Type::String: {
          char text[32];
          auto end = integer ? std::to_chars(text, text + sizeof text, i).ptr
                             : std::to_chars(text, text + sizeof text, d).ptr;
          v = Value::string(batch.arena().copy({text, static_cast<size_t>(end - text)}));
          break;
        }
        default: throw mismatch("number");
      }
    } else if (tag == Tag::Text || tag == Tag::Blob) {
      uint32_t n;
      std::memcpy(&n, p, 4);
      std::string_view s{p + 4, n};
      p += 4 + n;
      if (type == Type::String)
        v = Value::string(s);
      else if (type == Type::Bytes)
        v = Value::bytes(s);
      else
        throw mismatch(tag == Tag::Text ? "text" : "blob");
    }
    fields[c] = v;
  }
  rec.value = row;
  rec.value_schema = batch.retain(table->schema);
  rec.key = {};
  rec.key_schema = nullptr;
}

} // namespace weir::connectors::jdbc
