#include "connectors/jdbc/postgres_source.hpp"

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>
#include <stdexcept>

#include "connectors/jdbc/jdbc_source.hpp"
#include "connectors/jdbc/postgres_url.hpp"
#include "connectors/jdbc/postgres_values.hpp"
#include "connectors/jdbc/sql_text.hpp"
#include "runtime/data/decoded_batch.hpp"
#include "runtime/data/errors.hpp"

namespace weir::connectors::jdbc {

namespace {

using namespace runtime::data;
using Clock = std::chrono::steady_clock;

std::string trimmed(const char* message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s;
}

/// `schema.table` as SQL, split at the first dot (names weir lists itself).
std::string table_sql(const std::string& qualified) {
  auto dot = qualified.find('.');
  if (dot == std::string::npos)
    return jdbc::quoted(qualified);
  return jdbc::quoted(qualified.substr(0, dot)) + "." + jdbc::quoted(qualified.substr(dot + 1));
}

struct ResultDeleter {
  void operator()(PGresult* r) const noexcept { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

/// One libpq connection of the task; every failure throws with what was being done.
class Connection {
public:
  explicit Connection(const Config& config) {
    auto pg = parse_postgres_url(config.get_string("connection.url"), config.get_string("connection.user"),
                                 config.get_password("connection.password").value());
    where_ = pg.describe();
    auto kw = pg.client_keywords();
    // Confluent's db.timezone default: timestamps without a zone are UTC.
    auto options = std::find_if(kw.begin(), kw.end(), [](const auto& p) { return p.first == "options"; });
    if (options == kw.end())
      kw.emplace_back("options", "-c TimeZone=UTC");
    else
      options->second += " -c TimeZone=UTC";
    std::vector<const char*> keys, values;
    for (const auto& [k, v] : kw) {
      keys.push_back(k.c_str());
      values.push_back(v.c_str());
    }
    keys.push_back(nullptr);
    values.push_back(nullptr);
    conn_ = PQconnectdbParams(keys.data(), values.data(), 0);
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      std::string why = conn_ ? trimmed(PQerrorMessage(conn_)) : "out of memory";
      PQfinish(conn_);
      conn_ = nullptr;
      throw std::runtime_error("JdbcSourceConnector: cannot connect to " + where_ + ": " + why);
    }
    PQsetNoticeProcessor(
      conn_, [](void*, const char* message) { spdlog::debug("postgres notice: {}", trimmed(message)); }, nullptr);
    for (const auto& name : pg.ignored)
      spdlog::info("jdbc source: connection.url parameter '{}' has no libpq equivalent and is ignored", name);
  }
  ~Connection() { PQfinish(conn_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// Runs `sql` with text parameters; results in `binary` or text format.
  Result exec(const std::string& sql, const std::vector<std::string>& params, const std::string& what,
              bool binary = false) {
    std::vector<const char*> values;
    for (const auto& p : params)
      values.push_back(p.c_str());
    Result r{PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                          nullptr, nullptr, binary ? 1 : 0)};
    auto status = r ? PQresultStatus(r.get()) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
      throw std::runtime_error("JdbcSourceConnector: " + what + ": "
                               + trimmed(r ? PQresultErrorMessage(r.get()) : PQerrorMessage(conn_)));
    return r;
  }

  /// Sends `sql` (no parameters, binary results) without waiting for its result.
  void send(const std::string& sql, const std::string& what) {
    if (!PQsendQueryParams(conn_, sql.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 1))
      throw std::runtime_error("JdbcSourceConnector: " + what + ": " + trimmed(PQerrorMessage(conn_)));
  }
  /// The result of what send() sent, waiting for it.
  Result receive(const std::string& what) {
    Result out;
    while (PGresult* r = PQgetResult(conn_)) {
      if (!out)
        out.reset(r);
      else
        PQclear(r);
    }
    auto status = out ? PQresultStatus(out.get()) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK)
      throw std::runtime_error("JdbcSourceConnector: " + what + ": "
                               + trimmed(out ? PQresultErrorMessage(out.get()) : PQerrorMessage(conn_)));
    return out;
  }

  /// The columns `sql` returns, without running it.
  Result describe(const std::string& sql, const std::string& what) {
    Result prepared{PQprepare(conn_, "", sql.c_str(), 0, nullptr)};
    if (!prepared || PQresultStatus(prepared.get()) != PGRES_COMMAND_OK)
      throw std::runtime_error("JdbcSourceConnector: " + what + ": "
                               + trimmed(prepared ? PQresultErrorMessage(prepared.get()) : PQerrorMessage(conn_)));
    Result r{PQdescribePrepared(conn_, "")};
    if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK)
      throw std::runtime_error("JdbcSourceConnector: " + what + ": "
                               + trimmed(r ? PQresultErrorMessage(r.get()) : PQerrorMessage(conn_)));
    return r;
  }

  std::string database() const { return PQdb(conn_); }
  const std::string& where() const noexcept { return where_; }

private:
  PGconn* conn_ = nullptr;
  std::string where_;
};

/// The relkinds of table.types.
std::string relkinds(const std::vector<std::string>& types) {
  std::string out = "{";
  for (const auto& t : types) {
    char k = t == "TABLE" ? 'r' : t == "VIEW" ? 'v' : t == "PARTITIONED TABLE" ? 'p' : t == "MATERIALIZED VIEW" ? 'm' : 'f';
    out += (out.size() > 1 ? "," : "") + std::string(1, k);
  }
  return out + "}";
}

bool names(const std::string& entry, const std::string& database, const std::string& qualified) {
  auto dot = qualified.find('.');
  return entry == qualified || entry == qualified.substr(dot + 1) || entry == database + "." + qualified;
}

/// A table's or the query's column types, with their nullability and array
/// elements looked up in the catalog.
std::vector<PgColumn> columns_of(Connection& conn, const PGresult* described) {
  std::vector<PgColumn> out;
  std::string rels = "{", nums = "{", types = "{";
  for (int c = 0; c < PQnfields(described); ++c) {
    PgColumn col;
    col.name = PQfname(described, c);
    col.type_oid = PQftype(described, c);
    col.type_modifier = PQfmod(described, c);
    auto sep = c ? "," : "";
    rels += sep + std::to_string(PQftable(described, c));
    nums += sep + std::to_string(PQftablecol(described, c));
    types += sep + std::to_string(col.type_oid);
    out.push_back(std::move(col));
  }
  if (out.empty())
    return out;
  auto r = conn.exec(
    "SELECT coalesce(a.attnotnull, false), CASE WHEN t.typcategory = 'A' THEN t.typelem ELSE 0 END, "
    "format_type(c.typ, NULL) FROM unnest($1::oid[], $2::int2[], $3::oid[]) WITH ORDINALITY "
    "AS c(rel, num, typ, i) LEFT JOIN pg_attribute a ON a.attrelid = c.rel AND a.attnum = c.num "
    "LEFT JOIN pg_type t ON t.oid = c.typ ORDER BY c.i",
    {rels + "}", nums + "}", types + "}"}, "reading column types");
  for (size_t c = 0; c < out.size(); ++c) {
    auto row = static_cast<int>(c);
    out[c].not_null = std::string_view{PQgetvalue(r.get(), row, 0)} == "t";
    out[c].element_oid = static_cast<uint32_t>(std::stoul(PQgetvalue(r.get(), row, 1)));
    out[c].type_name = PQgetvalue(r.get(), row, 2);
  }
  return out;
}

// Row bytes: the shape's number (4 bytes), then per column its length (4 bytes, -1
// for NULL) and binary value: PostgreSQL's own DataRow layout.
void put_u32(std::string& out, uint32_t v) { out.append(reinterpret_cast<const char*>(&v), 4); }
uint32_t get_u32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

} // namespace

/// What a result's columns become; kept for the task's life, so batches in flight
/// decode with the shape they were read with even after a table changes.
struct Shape {
  std::string what; ///< "table s.t" or "the query", for messages
  std::vector<PgColumn> columns;
  std::vector<ColumnPlan> plans;
  std::vector<std::string> names; ///< "column c of table s.t", for messages
  SchemaPtr schema;
};

struct Table {
  std::string name; ///< schema.table; empty in query mode
  std::string what, schema_name, topic, partition, base_sql, sql;
  uint32_t shape = 0;
  int incrementing_index = -1, timestamp_index = -1;
  SourceOffset offset;
  Clock::time_point next_query{};
};

struct PostgresSourceTask::Impl {
  SourceMode mode;
  std::string incrementing_column, timestamp_column, topic_prefix, query;
  std::chrono::milliseconds poll_interval, timestamp_delay;
  size_t batch_max_rows;
  NumericMapping numeric;
  bool validate_non_null;
  std::vector<std::string> table_names;
  std::string idle_reason; ///< set for a task beyond the table count: it has no table
  Config config;

  std::unique_ptr<Connection> conn;
  std::vector<std::unique_ptr<Shape>> shapes;
  std::deque<std::unique_ptr<Table>> queue; ///< the next table to read first
  bool reading = false;                     ///< the head table's cursor is open
  bool drained = false;                     ///< its last fetch came back short
  bool fetching = false;                    ///< a FETCH is sent, its result not read
  Result fetched;
  int next_row = 0;
  std::string row; // one row's bytes, reused

  explicit Impl(const Config& c)
    : mode(source_mode(c)), incrementing_column(c.get_string("incrementing.column.name")),
      timestamp_column(c.get_string("timestamp.column.name")), topic_prefix(c.get_string("topic.prefix")),
      query(c.get_string("query")), poll_interval(c.get_int("poll.interval.ms")),
      timestamp_delay(c.get_long("timestamp.delay.interval.ms")),
      batch_max_rows(static_cast<size_t>(c.get_int("batch.max.rows"))),
      numeric(numeric_mapping(c.get_string("numeric.mapping"))),
      validate_non_null(c.get_bool("validate.non.null")), table_names(c.get_list("tables")),
      idle_reason(c.get_string("task.idle.reason")), config(c) {}

  /// A shape for `described`'s columns; unsupported columns are left out, with a warning.
  uint32_t make_shape(const PGresult* described, const std::string& what, const std::string& schema_name) {
    auto columns = columns_of(*conn, described);
    auto shape = std::make_unique<Shape>();
    shape->what = what;
    SchemaBuilder builder = SchemaBuilder::struct_();
    if (!schema_name.empty())
      builder.name(schema_name);
    for (const auto& col : columns) {
      auto plan = plan_column(col, numeric);
      if (!plan.schema)
        spdlog::warn("JdbcSourceConnector: column {} of {} has type {}, which weir does not map: it is left out "
                     "of the records (as Confluent's connector does)", col.name, what, col.type_name);
      else
        builder.field(col.name, plan.schema);
      shape->plans.push_back(std::move(plan));
      shape->names.push_back("column " + col.name + " of " + what);
    }
    shape->columns = std::move(columns);
    shape->schema = builder.build();
    shapes.push_back(std::move(shape));
    return static_cast<uint32_t>(shapes.size() - 1);
  }

  /// The mode's WHERE and ORDER BY, with $1 the last timestamp (µs since the epoch),
  /// $2 the delay (ms), $3 (or $1 in incrementing mode) the last id.
  std::string criteria(uint32_t timestamp_oid) const {
    auto inc = jdbc::quoted(incrementing_column);
    auto ts = jdbc::quoted(timestamp_column);
    std::string type = is_zoned_timestamp_type(timestamp_oid) ? "timestamptz" : "timestamp";
    auto last = "('epoch'::" + type + " + $1::bigint * interval '1 microsecond')";
    auto upper = "(now() - $2::bigint * interval '1 millisecond')::" + type;
    switch (mode) {
      case SourceMode::Bulk: return {};
      case SourceMode::Incrementing: return " WHERE " + inc + " > $1::bigint ORDER BY " + inc + " ASC";
      case SourceMode::Timestamp:
        return " WHERE " + ts + " > " + last + " AND " + ts + " < " + upper + " ORDER BY " + ts + " ASC";
      case SourceMode::TimestampIncrementing:
        return " WHERE " + ts + " < " + upper + " AND ((" + ts + " = " + last + " AND " + inc + " > $3::bigint) OR "
               + ts + " > " + last + ") ORDER BY " + ts + "," + inc + " ASC";
    }
    return {};
  }

  void add_table(std::unique_ptr<Table> t, const runtime::connector_api::OffsetMap& stored) {
    auto described = conn->describe(t->base_sql, "reading " + t->what);
    t->shape = make_shape(described.get(), t->what, t->schema_name);
    const auto& shape = *shapes[t->shape];
    auto find = [&](const std::string& column, const char* key) {
      auto n = PQfnumber(described.get(), jdbc::quoted(column).c_str());
      if (n < 0)
        throw std::runtime_error("JdbcSourceConnector: column " + column + " (" + key + ") does not exist in "
                                 + t->what);
      return n;
    };
    // Confluent checks nullability for tables only: a query's columns may not say.
    auto check_null = [&](const PgColumn& column) {
      if (validate_non_null && !t->name.empty() && !column.not_null)
        throw std::runtime_error("JdbcSourceConnector: cannot make incremental queries using column " + column.name
                                 + " of " + t->what + " because this column is nullable (make it NOT NULL, "
                                 "or set validate.non.null=false)");
    };
    uint32_t ts_oid = 0;
    if (uses_incrementing(mode)) {
      t->incrementing_index = find(incrementing_column, "incrementing.column.name");
      const auto& column = shape.columns[static_cast<size_t>(t->incrementing_index)];
      if (!is_integer_type(column.type_oid))
        throw std::runtime_error("JdbcSourceConnector: column " + incrementing_column + " (incrementing.column.name) of "
                                 + t->what + " is " + column.type_name
                                 + ": an incrementing column must be smallint, integer or bigint");
      check_null(column);
    }
    if (uses_timestamp(mode)) {
      t->timestamp_index = find(timestamp_column, "timestamp.column.name");
      const auto& column = shape.columns[static_cast<size_t>(t->timestamp_index)];
      ts_oid = column.type_oid;
      if (!is_timestamp_type(ts_oid))
        throw std::runtime_error("JdbcSourceConnector: column " + timestamp_column + " (timestamp.column.name) of "
                                 + t->what + " is " + column.type_name
                                 + ": a timestamp column must be timestamp or timestamptz");
      check_null(column);
    }
    t->sql = t->base_sql + criteria(ts_oid);
    if (auto it = stored.find(t->partition); it != stored.end())
      t->offset = read_offset(mode, it->second, t->partition);
    queue.push_back(std::move(t));
  }

  void start(const runtime::connector_api::OffsetMap& stored) {
    conn = std::make_unique<Connection>(config);
    auto database = conn->database();
    if (!query.empty()) {
      auto t = std::make_unique<Table>();
      t->what = "the query";
      t->topic = topic_prefix;
      t->partition = query_partition();
      t->base_sql = query;
      add_table(std::move(t), stored);
      return;
    }
    if (table_names.empty() && idle_reason.empty())
      table_names = select_postgres_tables(config);
    for (const auto& name : table_names) {
      auto t = std::make_unique<Table>();
      t->name = name;
      t->what = "table " + name;
      auto dot = name.find('.');
      auto bare = dot == std::string::npos ? name : name.substr(dot + 1);
      t->schema_name = bare;
      t->topic = topic_prefix + bare;
      t->partition = table_partition(database + "." + name);
      t->base_sql = "SELECT * FROM " + table_sql(name);
      add_table(std::move(t), stored);
    }
  }

  std::vector<std::string> params(const Table& t) const {
    auto delay = std::to_string(timestamp_delay.count());
    auto ts = std::to_string(t.offset.timestamp_micros);
    auto inc = std::to_string(t.offset.incrementing);
    switch (mode) {
      case SourceMode::Bulk: return {};
      case SourceMode::Incrementing: return {inc};
      case SourceMode::Timestamp: return {ts, delay};
      case SourceMode::TimestampIncrementing: return {ts, delay, inc};
    }
    return {};
  }

  void open(Table& t) {
    conn->exec("BEGIN", {}, "starting a transaction for " + t.what);
    conn->exec("DECLARE weir_source NO SCROLL CURSOR FOR " + t.sql, params(t), "querying " + t.what);
    reading = true;
    drained = false;
    fetching = false;
    fetched.reset();
    next_row = 0;
  }

  /// Closes the head table's cursor; it is due again after poll.interval.ms.
  void close() {
    auto t = std::move(queue.front());
    queue.pop_front();
    fetched.reset();
    reading = false;
    conn->exec("COMMIT", {}, "ending the query of " + t->what);
    t->next_query = Clock::now() + poll_interval;
    queue.push_back(std::move(t));
  }

  /// The shape of a fetched result: the table's, unless its columns changed since.
  uint32_t shape_of(Table& t, const PGresult* r) {
    const auto& s = *shapes[t.shape];
    bool same = static_cast<size_t>(PQnfields(r)) == s.columns.size();
    for (int c = 0; same && c < PQnfields(r); ++c) {
      const auto& col = s.columns[static_cast<size_t>(c)];
      same = PQftype(r, c) == col.type_oid && PQfmod(r, c) == col.type_modifier && col.name == PQfname(r, c);
    }
    if (!same) {
      spdlog::info("JdbcSourceConnector: the columns of {} changed: records get a new schema", t.what);
      t.shape = make_shape(r, t.what, t.schema_name);
      if (t.incrementing_index >= 0)
        t.incrementing_index = PQfnumber(r, jdbc::quoted(incrementing_column).c_str());
      if (t.timestamp_index >= 0)
        t.timestamp_index = PQfnumber(r, jdbc::quoted(timestamp_column).c_str());
      if ((uses_incrementing(mode) && t.incrementing_index < 0) || (uses_timestamp(mode) && t.timestamp_index < 0))
        throw std::runtime_error("JdbcSourceConnector: " + t.what + " no longer has its incrementing or timestamp column");
    }
    return t.shape;
  }

  Status poll(runtime::connector_api::SourceRecords& out) {
    if (!reading) {
      auto now = Clock::now();
      auto due = std::find_if(queue.begin(), queue.end(), [&](const auto& t) { return t->next_query <= now; });
      if (due == queue.end())
        return Status::idle;
      // The due table goes to the head; the others keep their order.
      auto t = std::move(*due);
      queue.erase(due);
      queue.push_front(std::move(t));
      open(*queue.front());
    }
    auto& t = *queue.front();
    bool added = false;
    // batch.max.rows is what one FETCH buffers; a batch takes rows from as many
    // FETCHes as its credit has room for (has_room below), so the default of 100
    // does not make batches of 100.
    for (;;) {
      if (!fetched || next_row >= PQntuples(fetched.get())) {
        if (drained) {
          close();
          break;
        }
        // The next FETCH is sent as soon as this one is read, so the server makes
        // those rows while these are encoded.
        auto fetch = "FETCH FORWARD " + std::to_string(batch_max_rows) + " FROM weir_source";
        if (!fetching)
          conn->send(fetch, "reading " + t.what);
        fetched = conn->receive("reading " + t.what);
        fetching = false;
        next_row = 0;
        drained = PQntuples(fetched.get()) < static_cast<int>(batch_max_rows);
        if (PQntuples(fetched.get()) == 0)
          continue;
        shape_of(t, fetched.get()); // its catalog queries, if any, before the next FETCH is sent
        if (!drained) {
          conn->send(fetch, "reading " + t.what);
          fetching = true;
        }
      }
      const PGresult* r = fetched.get();
      auto shape = t.shape;
      row.clear();
      put_u32(row, shape);
      const int columns = PQnfields(r);
      for (int c = 0; c < columns; ++c) {
        if (PQgetisnull(r, next_row, c)) {
          put_u32(row, UINT32_MAX);
          continue;
        }
        auto n = static_cast<uint32_t>(PQgetlength(r, next_row, c));
        put_u32(row, n);
        row.append(PQgetvalue(r, next_row, c), n);
      }
      if (!out.has_room(row.size()))
        break; // the row waits for the next batch
      out.add(t.topic, std::nullopt, row);
      added = true;
      if (t.incrementing_index >= 0)
        t.offset.incrementing = binary_integer(
          {PQgetvalue(r, next_row, t.incrementing_index), static_cast<size_t>(PQgetlength(r, next_row, t.incrementing_index))});
      if (t.timestamp_index >= 0)
        t.offset.timestamp_micros = binary_timestamp_micros(
          {PQgetvalue(r, next_row, t.timestamp_index), static_cast<size_t>(PQgetlength(r, next_row, t.timestamp_index))});
      ++next_row;
    }
    if (added && mode != SourceMode::Bulk)
      out.set_offset(t.partition, offset_json(mode, t.offset));
    auto now = Clock::now();
    bool more = reading || std::any_of(queue.begin(), queue.end(), [&](const auto& q) { return q->next_query <= now; });
    return out.size() > 0 && more ? Status::ready : Status::idle;
  }

  void decode(DecodedBatch& batch, uint32_t index) {
    auto& rec = batch[index];
    const auto& raw = batch.raw();
    auto bytes = raw.bytes(raw[rec.raw_index].value);
    const char* p = bytes.data();
    const char* end = p + bytes.size();
    auto shape_index = get_u32(p);
    p += 4;
    if (shape_index >= shapes.size())
      throw DataError("JdbcSourceConnector: a row of an unknown shape");
    const auto& shape = *shapes[shape_index];
    Value value = Value::structure(batch.arena(), *shape.schema);
    auto fields = value.fields();
    size_t field = 0;
    for (size_t c = 0; c < shape.plans.size(); ++c) {
      const auto& plan = shape.plans[c];
      if (p + 4 > end)
        throw DataError("JdbcSourceConnector: a row of " + shape.what + " is cut short");
      auto n = get_u32(p);
      p += 4;
      std::string_view cell;
      bool null = n == UINT32_MAX;
      if (!null) {
        cell = {p, n};
        p += n;
      }
      if (!plan.schema)
        continue;
      if (!null)
        fields[field] = decode_binary(plan, cell, batch.arena(), shape.names[c]);
      ++field;
    }
    rec.value = value;
    rec.value_schema = batch.retain(shape.schema);
    rec.key = {};
    rec.key_schema = nullptr;
  }
};

std::vector<std::string> select_postgres_tables(const Config& config) {
  Connection conn{config};
  auto database = conn.database();
  auto pattern = config.get_string("schema.pattern");
  auto r = conn.exec(
    "SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE c.relkind::text = ANY($1::text[]) AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
    "AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp%' AND ($2 = '' OR n.nspname LIKE $2) "
    "ORDER BY n.nspname, c.relname",
    {relkinds(config.get_list("table.types")), pattern}, "listing the tables of " + conn.where());
  std::vector<std::string> all;
  for (int i = 0; i < PQntuples(r.get()); ++i)
    all.emplace_back(PQgetvalue(r.get(), i, 0));
  const auto& white = config.get_list("table.whitelist");
  const auto& black = config.get_list("table.blacklist");
  for (const auto& w : white)
    if (std::none_of(all.begin(), all.end(), [&](const auto& t) { return names(w, database, t); }))
      throw std::runtime_error("JdbcSourceConnector: table " + w + " (table.whitelist) does not exist in database "
                               + database + (pattern.empty() ? "" : " (schema.pattern " + pattern + ")"));
  std::vector<std::string> out;
  for (const auto& t : all) {
    auto listed = [&](const std::vector<std::string>& list) {
      return std::any_of(list.begin(), list.end(), [&](const auto& e) { return names(e, database, t); });
    };
    if ((white.empty() || listed(white)) && !listed(black))
      out.push_back(t);
  }
  return out;
}

PostgresSourceTask::PostgresSourceTask(const Config& config) : impl_(std::make_unique<Impl>(config)) {}
PostgresSourceTask::~PostgresSourceTask() = default;

void PostgresSourceTask::start(const runtime::connector_api::OffsetMap& stored) { impl_->start(stored); }
PostgresSourceTask::Status PostgresSourceTask::poll(runtime::connector_api::SourceRecords& out) { return impl_->poll(out); }
void PostgresSourceTask::decode(DecodedBatch& batch, uint32_t index) { impl_->decode(batch, index); }
std::string PostgresSourceTask::idle_reason() const { return impl_->idle_reason; }

} // namespace weir::connectors::jdbc
