#include "connectors/jdbc/postgres_sink_writer.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <thread>

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include "connectors/jdbc/copy_text.hpp"
#include "connectors/jdbc/postgres_sql.hpp"
#include "connectors/jdbc/row_mapper.hpp"
#include "connectors/jdbc/sink_batch.hpp"

namespace weir::connectors::jdbc {

using runtime::data::DataError;
using runtime::data::DecodedBatch;
using runtime::data::DecodedRecord;
using runtime::data::RecordState;
using runtime::data::ErrorStage;
using runtime::kafka::TopicPartitionOffset;

namespace {

// What PgJDBC would throw for a row the server rejects, and Confluent's exception for
// a table that is missing or lacks a column.
constexpr std::string_view sql_exception = "org.postgresql.util.PSQLException";
constexpr std::string_view table_exception = "io.confluent.connect.jdbc.sink.TableAlterOrCreateException";

struct ResultDeleter {
  void operator()(PGresult* r) const noexcept { PQclear(r); }
};
using Result = std::unique_ptr<PGresult, ResultDeleter>;

/// A statement the server refused, with its SQLSTATE and the parts of its report.
struct ServerError : std::runtime_error {
  ServerError(std::string message, std::string state) : std::runtime_error(std::move(message)), sqlstate(std::move(state)) {}
  std::string sqlstate;
};
/// Roll back and run the transaction again (deadlock, serialization, DDL race).
struct Retry {
  std::string why;
};
/// A row was rejected: roll back and write the batch row by row.
struct RedoRowByRow {};

bool retryable(std::string_view state) noexcept { return state == "40P01" || state == "40001"; }

// Two sessions creating the same table at once: CREATE TABLE IF NOT EXISTS checks the
// catalog before it writes, so the loser fails on the table's name (42P07), on its row
// type's name (42710, "type ... already exists") or on the catalog's unique index (23505).
bool catalog_conflict(std::string_view state) noexcept {
  return state == "42P07" || state == "42710" || state == "23505";
}

// The record's fault, not the database's: data exceptions (22), integrity constraint
// violations (23), a value of the wrong type for its column (42804), a row too big (54000).
bool record_level(std::string_view state) noexcept {
  return state.starts_with("22") || state.starts_with("23") || state == "42804" || state == "54000";
}

std::string trimmed(const char* s) {
  std::string out = s ? s : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

// PostgreSQL array literal elements: every element double-quoted, `"` and `\` escaped.
void append_array_text(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += '"';
}

// The stage's last column: the record's index in the batch, which orders its rows.
void append_ordinal(std::string& out, uint32_t index) {
  char digits[16];
  out += '\t';
  out.append(digits, static_cast<size_t>(std::to_chars(digits, digits + sizeof digits, index).ptr - digits));
}

} // namespace

struct PostgresSinkWriter::Impl {
  /// The SQL of one table, operation and column set (a segment's shape).
  struct Shape {
    ColumnSet set;
    std::string copy;      ///< COPY into the table (Insert) or into the stage
    std::string stage;     ///< the staging table's name (not Insert)
    std::string create_stage;
    std::string apply;     ///< stage -> table; empty: nothing to apply
    std::string truncate; ///< empties the stage for its next segment
    std::string delete_rows; ///< the same for a stage of one row (row by row): no new file
    std::string copy_label, apply_label; ///< for messages: `COPY into "t"`, `upsert into table "t"`
    bool stage_ready = false; ///< created on this connection
    bool stage_dirty = false; ///< holds rows of this transaction
    /// Upsert only: COPY straight into the table, tried first (see try_direct).
    std::string copy_direct;
    uint32_t direct_skip = 0;    ///< segments left to stage before trying direct again
    uint32_t direct_backoff = 1; ///< the next skip after a conflict, doubling to 64
  };
  struct Table {
    std::string name;
    std::string sql; ///< as written in statements (quoted or not)
    bool loaded = false;
    bool exists = false;
    std::vector<std::string> columns; ///< as the catalog spells them
    std::vector<std::unique_ptr<Shape>> shapes;
  };
  struct Failure {
    uint32_t index;
    DataError error;
  };
  /// The records of the segment being gathered, encoded for COPY.
  struct Segment {
    Table* table = nullptr;
    Shape* shape = nullptr;
    std::string data;
    std::vector<uint32_t> records;
    uint64_t deletes = 0;
    bool direct = false; ///< encoded for copy_direct: no ordinal column
  };

  static constexpr size_t max_shapes_per_table = 64;

  JdbcSinkConfig config;
  std::string connector;
  int32_t task_id;
  OnRecordError on_error;
  std::string where; ///< host=... port=... dbname=... user=..., for messages
  PGconn* conn = nullptr;
  RowMapper mapper;
  CopyTextEncoder encoder;
  Stats stats;
  uint64_t stage_counter = 0;

  Row row;
  Segment segment;
  TableCache<Table> tables;
  OffsetSlots slots;
  std::vector<Failure> failures; ///< applied to the batch once committed
  bool row_by_row = false;       ///< the transaction puts each record under a savepoint
  std::string offsets_sql_name;
  std::string lock_offsets_sql, select_offsets_sql, store_offsets_sql, stored_offsets_sql;
  std::string topics_param, partitions_param, nexts_param;

  Impl(JdbcSinkConfig c, std::string name, int32_t task, OnRecordError on)
      : config(std::move(c)), connector(std::move(name)), task_id(task), on_error(on), mapper(config),
        encoder(!config.db_timezone.empty()) {
    where = "PostgreSQL " + config.postgres.describe();
    offsets_sql_name = quoted(JdbcSinkWriter::offsets_table);
    const std::string& o = offsets_sql_name;
    lock_offsets_sql = "INSERT INTO " + o + " (connector, topic, partition, next_offset) SELECT $1, t, p, -1 "
                       "FROM unnest($2::text[], $3::int[]) AS u(t, p) ON CONFLICT DO NOTHING";
    select_offsets_sql = "SELECT topic, partition, next_offset FROM " + o +
                         " WHERE connector = $1 AND (topic, partition) IN "
                         "(SELECT * FROM unnest($2::text[], $3::int[])) ORDER BY topic, partition FOR UPDATE";
    store_offsets_sql = "INSERT INTO " + o + " AS o (connector, topic, partition, next_offset) SELECT $1, t, p, n "
                        "FROM unnest($2::text[], $3::int[], $4::bigint[]) AS u(t, p, n) "
                        "ON CONFLICT (connector, topic, partition) DO UPDATE SET "
                        "next_offset = GREATEST(o.next_offset, EXCLUDED.next_offset)";
    stored_offsets_sql = "SELECT topic, partition, next_offset FROM " + o +
                         " WHERE connector = $1 AND next_offset >= 0 ORDER BY topic, partition";
    for (const auto& name : config.postgres.ignored)
      spdlog::info("jdbc sink {} task {}: connection.url parameter '{}' has no libpq equivalent and is ignored",
                   connector, task_id, name);
  }

  ~Impl() {
    if (conn) PQfinish(conn);
  }

  // --- connection ------------------------------------------------------------

  bool connected() const noexcept { return conn && PQstatus(conn) == CONNECTION_OK; }

  void connect() {
    auto kw = config.postgres.client_keywords();
    std::vector<const char*> keys, values;
    for (const auto& [k, v] : kw) keys.push_back(k.c_str()), values.push_back(v.c_str());
    keys.push_back(nullptr), values.push_back(nullptr);

    std::string last;
    for (int attempt = 1; attempt <= config.connection_attempts; ++attempt) {
      if (conn) PQfinish(conn);
      conn = PQconnectdbParams(keys.data(), values.data(), 0);
      if (conn && PQstatus(conn) == CONNECTION_OK) {
        // The server's notices ("relation already exists, skipping") are not worth stderr.
        PQsetNoticeProcessor(
            conn, [](void*, const char* message) { spdlog::debug("postgres notice: {}", trimmed(message)); }, nullptr);
        if (attempt > 1) spdlog::info("jdbc sink {} task {}: connected to {}", connector, task_id, where);
        forget();
        exec("SET synchronous_commit = on"); // durable commits whatever the server's default
        if (!config.db_timezone.empty()) {
          std::string zone = config.db_timezone;
          for (size_t at = zone.find('\''); at != std::string::npos; at = zone.find('\'', at + 2))
            zone.insert(at, 1, '\'');
          exec("SET TIME ZONE '" + zone + "'");
        }
        create_offsets_table();
        return;
      }
      last = conn ? trimmed(PQerrorMessage(conn)) : "out of memory";
      if (attempt < config.connection_attempts) {
        spdlog::warn("jdbc sink {} task {}: cannot connect to {} (attempt {} of {}): {}", connector, task_id, where,
                     attempt, config.connection_attempts, last);
        std::this_thread::sleep_for(std::chrono::milliseconds(config.connection_backoff_ms));
      }
    }
    if (conn) PQfinish(conn);
    conn = nullptr;
    throw std::runtime_error("cannot connect to " + where + " after " + std::to_string(config.connection_attempts) +
                             " attempt(s): " + last);
  }

  void create_offsets_table() {
    for (int attempt = 0;; ++attempt) {
      try {
        exec("CREATE TABLE IF NOT EXISTS " + offsets_sql_name +
             " (connector TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, "
             "next_offset BIGINT NOT NULL, PRIMARY KEY (connector, topic, partition))");
        return;
      } catch (const ServerError& e) {
        // Two tasks creating it at once: one wins, the other sees a catalog conflict.
        if (!catalog_conflict(e.sqlstate) || attempt >= 5) throw;
      }
    }
  }

  // Drops what the server may have forgotten: tables created or altered and staging
  // tables made in a transaction that was rolled back, or on a previous connection.
  void forget() noexcept {
    tables.clear();
    segment.table = nullptr;
    segment.shape = nullptr;
  }

  // A failed command: a ServerError with the SQLSTATE while the connection stands,
  // std::runtime_error once it is lost.
  [[noreturn]] void fail(const PGresult* r, std::string_view what) {
    std::string message = trimmed(r ? PQresultErrorMessage(r) : PQerrorMessage(conn));
    if (!connected())
      throw std::runtime_error("lost the connection to " + where + " during " + std::string(what) + ": " + message);
    const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
    std::string text = std::string(what) + " failed: SQLSTATE " + (state ? state : "?") + ": " +
                       trimmed(r ? PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY) : PQerrorMessage(conn));
    if (r) {
      if (const char* detail = PQresultErrorField(r, PG_DIAG_MESSAGE_DETAIL)) text += " (" + trimmed(detail) + ")";
      if (const char* column = PQresultErrorField(r, PG_DIAG_COLUMN_NAME)) text += " [column " + quoted(column) + "]";
      if (const char* context = PQresultErrorField(r, PG_DIAG_CONTEXT)) text += " [" + trimmed(context) + "]";
    }
    throw ServerError(std::move(text), state ? state : "");
  }

  Result check(PGresult* raw, std::string_view what, ExecStatusType ok = PGRES_COMMAND_OK) {
    Result r(raw);
    if (!r || PQresultStatus(r.get()) != ok) fail(r.get(), what);
    return r;
  }

  /// `what` names the statement in messages (default: its SQL).
  Result exec(const std::string& sql, ExecStatusType ok = PGRES_COMMAND_OK, std::string_view what = {}) {
    return check(PQexec(conn, sql.c_str()), what.empty() ? std::string_view(sql) : what, ok);
  }

  Result exec_params(const std::string& sql, std::initializer_list<const std::string*> params,
                     ExecStatusType ok = PGRES_COMMAND_OK) {
    const char* values[4];
    int n = 0;
    for (const auto* p : params) values[n++] = p->c_str();
    return check(PQexecParams(conn, sql.c_str(), n, nullptr, values, nullptr, nullptr, 0), sql, ok);
  }

  // --- offsets ---------------------------------------------------------------

  // Fills topics_param / partitions_param with the slots' array literals.
  void slot_arrays(bool only_written) {
    topics_param = "{", partitions_param = "{", nexts_param = "{";
    bool first = true;
    for (const auto& s : slots) {
      if (only_written && s.max_offset < 0) continue;
      if (!first) topics_param += ',', partitions_param += ',', nexts_param += ',';
      first = false;
      append_array_text(topics_param, s.topic);
      partitions_param += std::to_string(s.partition);
      nexts_param += std::to_string(s.max_offset + 1);
    }
    topics_param += '}', partitions_param += '}', nexts_param += '}';
  }

  // Locks the batch's partitions' offset rows and reads their stored next offsets.
  void lock_offsets(const DecodedBatch& batch) {
    slots.clear();
    for (const auto& r : batch.records())
      if (Position at = consumed_position(batch, r); at.known()) slots.at(at.topic, at.partition);
    if (slots.empty()) return;
    slot_arrays(false);
    exec_params(lock_offsets_sql, {&connector, &topics_param, &partitions_param});
    Result r = exec_params(select_offsets_sql, {&connector, &topics_param, &partitions_param}, PGRES_TUPLES_OK);
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      std::string_view topic = PQgetvalue(r.get(), i, 0);
      int32_t partition = std::stoi(PQgetvalue(r.get(), i, 1));
      if (OffsetSlot* s = slots.find(topic, partition)) s->stored_next = std::stoll(PQgetvalue(r.get(), i, 2));
    }
  }

  void store_offsets() {
    if (std::none_of(slots.begin(), slots.end(), [](const OffsetSlot& s) { return s.max_offset >= 0; })) return;
    slot_arrays(true);
    exec_params(store_offsets_sql, {&connector, &topics_param, &partitions_param, &nexts_param});
  }

  // --- tables ----------------------------------------------------------------

  Table& table_for(std::string_view topic) {
    return tables.of(config, topic, [&](std::string name) {
      auto t = std::make_unique<Table>();
      t->sql = postgres_table(name, config.quote_identifiers);
      t->name = std::move(name);
      return t;
    });
  }

  void load_table(Table& t) {
    Result r = exec_params("SELECT attname FROM pg_attribute WHERE attrelid = to_regclass($1) "
                           "AND attnum > 0 AND NOT attisdropped ORDER BY attnum",
                           {&t.sql}, PGRES_TUPLES_OK);
    t.columns.clear();
    for (int i = 0; i < PQntuples(r.get()); ++i) t.columns.emplace_back(PQgetvalue(r.get(), i, 0));
    t.loaded = true;
    t.exists = !t.columns.empty();
  }

  // Unquoted names are folded to lower case by PostgreSQL.
  bool has_column(const Table& t, std::string_view name) const {
    std::string folded;
    if (!config.quote_identifiers) {
      folded = name;
      for (auto& c : folded)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
      name = folded;
    }
    return std::find(t.columns.begin(), t.columns.end(), name) != t.columns.end();
  }

  // DDL another task may be running at the same moment: a catalog conflict means
  // "try again", which then finds the other task's table. Any other failure (a
  // permission, say) is the database's problem, not the record's.
  void ddl(const std::string& sql) {
    try {
      exec(sql);
    } catch (const ServerError& e) {
      if (catalog_conflict(e.sqlstate) || retryable(e.sqlstate)) throw Retry{e.what()};
      throw;
    }
    spdlog::info("jdbc sink {} task {}: {}", connector, task_id, sql);
  }

  // Makes sure `t` has the row's columns (auto.create, auto.evolve); false when there
  // is nothing to do (a delete from a table that does not exist).
  bool ensure_columns(Table& t, Op op) {
    bool fresh = !t.loaded;
    if (!t.loaded || !t.exists) load_table(t); // someone may have created it meanwhile
    if (!t.exists) {
      if (op == Op::Delete) return false;
      if (!config.auto_create)
        throw DataError("Table " + t.sql + " is missing and auto-creation is disabled (auto.create=false)",
                        std::string(table_exception));
      ddl(create_table_sql(t.sql, row, postgres_type, config.quote_identifiers, true));
      load_table(t); // IF NOT EXISTS: another task's table may have won
      fresh = true;
    }
    auto missing = [&]() -> const Column* {
      for (const auto& c : row.columns)
        if (!has_column(t, c.name)) return &c;
      return nullptr;
    };
    if (!missing()) return true;
    if (!fresh) load_table(t); // someone may have altered it meanwhile
    while (const Column* c = missing()) {
      if (!config.auto_evolve || op == Op::Delete)
        throw DataError("Table " + t.sql + " has no column " + quoted(c->name) +
                            (op == Op::Delete ? "" : " and auto-evolution is disabled (auto.evolve=false)"),
                        std::string(table_exception));
      ddl(add_column_sql(t.sql, *c, postgres_type, config.quote_identifiers));
      load_table(t);
    }
    return true;
  }

  // The cached SQL for the row's shape, creating or altering the table on a miss;
  // nullptr when there is nothing to run.
  Shape* shape_for(Table& t, Op op) {
    for (auto& s : t.shapes)
      if (s->set.matches(op, row)) return s.get();
    if ((op == Op::Update || op == Op::Upsert || op == Op::Delete) && row.key_count == 0)
      throw DataError(std::string(verb(op)) + " table " + t.sql +
                      " requires key field names to be known, check the primary key configuration");
    if (!ensure_columns(t, op)) return nullptr;
    auto s = std::make_unique<Shape>();
    s->set.assign(op, row);
    const bool q = config.quote_identifiers;
    // db.timezone: Timestamps go through a staging table whose column is timestamptz,
    // which the server renders in the session's zone when the stage is applied.
    const bool zoned = !config.db_timezone.empty() && has_timestamp(row);
    s->copy_label = "COPY into " + (op == Op::Insert && !zoned ? t.sql : "the staging table of " + t.sql);
    s->apply_label = std::string(verb(op)) + " table " + t.sql;
    if (op == Op::Insert && !zoned) {
      s->copy = copy_sql(t.sql, row, q, false);
    } else {
      s->stage = quoted("__weir_stage_" + std::to_string(++stage_counter));
      s->copy = copy_sql(s->stage, row, q, true);
      s->create_stage = stage_sql(s->stage, t.sql, row, q, zoned);
      s->apply = apply_sql(op, t.sql, s->stage, row, q);
      s->truncate = "TRUNCATE " + s->stage;
      s->delete_rows = "DELETE FROM " + s->stage;
      if (op == Op::Upsert && !zoned) s->copy_direct = copy_sql(t.sql, row, q, false);
    }
    if (t.shapes.size() >= max_shapes_per_table) t.shapes.erase(t.shapes.begin());
    t.shapes.push_back(std::move(s));
    return t.shapes.back().get();
  }

  // --- segments --------------------------------------------------------------

  void copy_in(const std::string& sql, const std::string& data, std::string_view what) {
    check(PQexec(conn, sql.c_str()), what, PGRES_COPY_IN);
    if (PQputCopyData(conn, data.data(), static_cast<int>(data.size())) != 1 || PQputCopyEnd(conn, nullptr) != 1)
      fail(nullptr, what);
    Result r(PQgetResult(conn));
    while (PGresult* extra = PQgetResult(conn)) PQclear(extra);
    if (!r || PQresultStatus(r.get()) != PGRES_COMMAND_OK) fail(r.get(), what);
  }

  // Whether the segment starting now goes straight into the table: an upsert whose
  // shape did not find a key there lately, outside row-by-row mode.
  bool direct_first(Shape& s) const noexcept {
    if (s.copy_direct.empty() || row_by_row) return false;
    if (s.direct_skip == 0) return true;
    --s.direct_skip;
    return false;
  }

  // An upsert of rows whose keys are new to the table is an insert, and COPY into the
  // table costs the server about half of COPY into the stage plus INSERT ... SELECT ...
  // ON CONFLICT. So upserts try that first, under a savepoint: a unique violation (a
  // key already there, or twice in the segment) rolls it back, and the segment goes
  // through the stage. After a conflict the shape stages its next 1, 2, 4 ... 64
  // segments before trying again, so a stream of updates pays for a failed COPY in
  // at most one segment of 65. Any other error is the caller's, as for the stage.
  bool try_direct(Shape& s) {
    exec("SAVEPOINT weir_direct");
    try {
      copy_in(s.copy_direct, segment.data, s.apply_label);
    } catch (const ServerError& e) {
      if (e.sqlstate != "23505") throw;
      exec("ROLLBACK TO SAVEPOINT weir_direct");
      s.direct_skip = s.direct_backoff;
      s.direct_backoff = std::min<uint32_t>(s.direct_backoff * 2, 64);
      return false;
    }
    exec("RELEASE SAVEPOINT weir_direct");
    s.direct_backoff = 1;
    return true;
  }

  // The segment's rows with the ordinal column the stage takes, for a direct attempt
  // that found a key: COPY text ends every row with a newline and escapes those in values.
  void add_ordinals() {
    std::string out;
    out.reserve(segment.data.size() + segment.records.size() * 8);
    size_t from = 0;
    for (uint32_t index : segment.records) {
      size_t end = segment.data.find('\n', from);
      out.append(segment.data, from, end - from);
      append_ordinal(out, index);
      out += '\n';
      from = end + 1;
    }
    segment.data.swap(out);
  }

  // Sends the gathered segment: COPY, then the statement applying the stage.
  void flush() {
    Shape* s = segment.shape;
    if (!s || segment.records.empty()) {
      segment.records.clear(), segment.data.clear(), segment.deletes = 0;
      return;
    }
    if (segment.direct) {
      if (try_direct(*s)) {
        ++stats.upserts_direct;
        stats.written += segment.records.size();
        segment.records.clear(), segment.data.clear();
        return;
      }
      ++stats.upserts_staged;
      add_ordinals();
    } else if (!s->copy_direct.empty()) {
      ++stats.upserts_staged;
    }
    if (!s->create_stage.empty()) {
      if (!s->stage_ready) {
        exec(s->create_stage);
        s->stage_ready = true;
      } else if (s->stage_dirty) {
        exec(row_by_row ? s->delete_rows : s->truncate);
      }
      s->stage_dirty = true;
    }
    copy_in(s->copy, segment.data, s->copy_label);
    if (!s->apply.empty()) exec(s->apply, PGRES_COMMAND_OK, s->apply_label);
    stats.deleted += segment.deletes;
    stats.written += segment.records.size() - segment.deletes;
    segment.records.clear(), segment.data.clear(), segment.deletes = 0;
  }

  // Maps record `index` and adds it to the segment (flushing the previous one when
  // its shape differs). Throws DataError when the record cannot be written.
  void add(DecodedBatch& batch, uint32_t index) {
    const DecodedRecord& r = batch[index];
    Table& t = table_for(r.topic);
    const bool tombstone = r.value.is_null();
    if (tombstone && !config.delete_enabled) throw tombstone_error(connector, config.pk_mode, r);
    mapper.map(r, t.name, batch.arena(), tombstone, row);
    const Op op = operation(config, tombstone);
    if (segment.table != &t || !segment.shape || !segment.shape->set.matches(op, row)) {
      flush();
      segment.table = &t;
      segment.shape = nullptr;
      segment.shape = shape_for(t, op);
      if (!segment.shape) return; // deleting from a table that does not exist
    }
    if (segment.records.empty()) segment.direct = direct_first(*segment.shape);
    std::string& out = segment.data;
    for (size_t i = 0; i < row.columns.size(); ++i) {
      if (i != 0) out += '\t';
      encoder.append_value(out, row.columns[i]);
    }
    if (!segment.shape->stage.empty() && !segment.direct) append_ordinal(out, index);
    out += '\n';
    segment.records.push_back(index);
    if (op == Op::Delete) ++segment.deletes;
    if (config.batch_size > 0 && segment.records.size() >= static_cast<size_t>(config.batch_size)) flush();
  }

  // --- transactions ----------------------------------------------------------

  void rollback() noexcept {
    forget();
    segment.records.clear(), segment.data.clear(), segment.deletes = 0;
    if (!conn) return;
    if (!connected()) {
      PQfinish(conn);
      conn = nullptr;
      return;
    }
    PQclear(PQexec(conn, "ROLLBACK"));
  }

  static DataError record_error(const ServerError& e) { return DataError(e.what(), std::string(sql_exception)); }

  // One transaction over the batch; `by_row` puts each record under a savepoint.
  void transaction(DecodedBatch& batch, bool by_row) {
    row_by_row = by_row;
    failures.clear();
    exec("BEGIN");
    lock_offsets(batch);
    for (uint32_t i = 0; i < batch.size(); ++i) {
      DecodedRecord& r = batch[i];
      const Position at = consumed_position(batch, r);
      OffsetSlot* slot = nullptr;
      int64_t previous_max = -1;
      if (at.known()) {
        slot = &slots.at(at.topic, at.partition);
        if (at.offset < slot->stored_next) {
          ++stats.skipped;
          r.state = RecordState::Dropped; // stored before: not written again, not counted as written
          continue;
        }
        previous_max = slot->max_offset;
        slot->max_offset = std::max(slot->max_offset, at.offset);
      }
      if (!r.live()) continue;
      std::optional<DataError> error;
      if (row_by_row) exec("SAVEPOINT weir_row");
      try {
        add(batch, i);
        if (row_by_row) {
          flush();
          exec("RELEASE SAVEPOINT weir_row");
        }
      } catch (const DataError& e) {
        error = e;
      } catch (const ServerError& e) {
        if (retryable(e.sqlstate)) throw Retry{e.what()};
        if (!record_level(e.sqlstate)) throw;
        if (!row_by_row) throw RedoRowByRow{};
        error = record_error(e);
      }
      if (!error) continue;
      if (row_by_row) {
        exec("ROLLBACK TO SAVEPOINT weir_row");
        forget(); // DDL and staging tables of the savepoint are gone
        segment.records.clear(), segment.data.clear(), segment.deletes = 0;
      }
      failures.push_back({i, std::move(*error)});
      if (on_error == OnRecordError::Stop) {
        if (slot) slot->max_offset = previous_max;
        break;
      }
    }
    try {
      flush();
    } catch (const ServerError& e) {
      if (retryable(e.sqlstate)) throw Retry{e.what()};
      if (record_level(e.sqlstate)) throw RedoRowByRow{};
      throw;
    }
    store_offsets();
    exec("COMMIT");
  }

  void write(DecodedBatch& batch) {
    if (batch.empty()) return;
    bool by_row = false; // set once a row was rejected: redo the batch row by row
    for (int attempt = 0;; ++attempt) {
      if (!connected()) connect();
      const Stats before = stats;
      try {
        transaction(batch, by_row);
        break;
      } catch (const Retry& r) {
        rollback();
        stats = before;
        ++stats.retried;
        if (attempt >= max_retries) throw std::runtime_error("giving up after " + std::to_string(attempt) +
                                                             " retries on " + where + ": " + r.why);
        spdlog::debug("jdbc sink {} task {}: retrying the transaction: {}", connector, task_id, r.why);
        std::this_thread::sleep_for(std::chrono::milliseconds(std::min(10 << std::min(attempt, 6), 500)));
      } catch (const RedoRowByRow&) {
        rollback();
        stats = before;
        by_row = true;
      } catch (const ServerError& e) {
        rollback();
        stats = before;
        throw std::runtime_error(std::string(e.what()) + " (" + where + ")");
      } catch (...) {
        rollback();
        stats = before;
        throw;
      }
    }
    for (auto& f : failures) {
      batch.fail(f.index, ErrorStage::TaskPut, JdbcSinkConfig::task_class, f.error);
      ++stats.failed;
    }
    failures.clear();
    for (auto& t : tables.tables())
      for (auto& s : t->shapes) s->stage_dirty = false; // ON COMMIT DELETE ROWS emptied them
    ++stats.transactions;
  }

  std::vector<TopicPartitionOffset> stored_offsets() {
    if (!connected()) connect();
    Result r;
    try {
      r = exec_params(stored_offsets_sql, {&connector}, PGRES_TUPLES_OK);
    } catch (const ServerError& e) {
      throw std::runtime_error(std::string("cannot read ") + std::string(JdbcSinkWriter::offsets_table) + ": " +
                               e.what() + " (" + where + ")");
    }
    std::vector<TopicPartitionOffset> out;
    for (int i = 0; i < PQntuples(r.get()); ++i)
      out.push_back({PQgetvalue(r.get(), i, 0), std::stoi(PQgetvalue(r.get(), i, 1)),
                     std::stoll(PQgetvalue(r.get(), i, 2))});
    return out;
  }
};

PostgresSinkWriter::PostgresSinkWriter(JdbcSinkConfig config, std::string connector_name, int32_t task_id,
                                       OnRecordError on_error)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(connector_name), task_id, on_error)) {
  impl_->connect();
}

PostgresSinkWriter::~PostgresSinkWriter() = default;

void PostgresSinkWriter::write(DecodedBatch& batch) { impl_->write(batch); }

std::vector<TopicPartitionOffset> PostgresSinkWriter::stored_offsets() { return impl_->stored_offsets(); }

const PostgresSinkWriter::Stats& PostgresSinkWriter::stats() const noexcept { return impl_->stats; }

const JdbcSinkConfig& PostgresSinkWriter::config() const noexcept { return impl_->config; }

} // namespace weir::connectors::jdbc
