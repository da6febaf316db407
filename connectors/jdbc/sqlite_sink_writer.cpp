#include "connectors/jdbc/sqlite_sink_writer.hpp"

#include <algorithm>
#include <stdexcept>

#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include "connectors/jdbc/row_mapper.hpp"
#include "connectors/jdbc/sink_batch.hpp"
#include "connectors/jdbc/sql_text.hpp"
#include "connectors/jdbc/wal_checkpointer.hpp"
#include "runtime/convert/json_converter.hpp"
#include "runtime/data/decimal.hpp"

namespace weir::connectors::jdbc {

using runtime::data::DataError;
using runtime::data::DecodedBatch;
using runtime::data::DecodedRecord;
using runtime::data::RecordState;
using runtime::data::ErrorStage;
using runtime::data::Kind;
using runtime::data::Logical;
using runtime::kafka::TopicPartitionOffset;

namespace {

// What Kafka Connect would report for the database rejecting a record, and for a
// table that is missing or lacks a column (Confluent's TableAlterOrCreateException).
constexpr std::string_view sql_exception = "java.sql.SQLException";
constexpr std::string_view table_exception = "io.confluent.connect.jdbc.sink.TableAlterOrCreateException";

struct StmtDeleter {
  void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

bool iequal(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           auto l = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
           return l(x) == l(y);
         });
}

// Result codes that concern the record's data; with the transaction still open the
// failing statement alone was rolled back, so the record fails and the batch goes on.
// Every other code (I/O, full disk, corruption, busy, out of memory, ...) is the
// database's problem, not the record's.
bool record_level(int rc) noexcept {
  switch (rc & 0xff) {
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
    case SQLITE_RANGE:
    case SQLITE_ERROR:
    case SQLITE_ABORT:
      return true;
    default:
      return false;
  }
}

} // namespace

struct JdbcSinkWriter::Impl {
  struct Statement {
    ColumnSet shape;
    Stmt stmt; ///< null: nothing to run (an UPDATE with no non-key column)
  };
  struct Table {
    std::string name;
    std::string quoted;
    bool loaded = false;
    bool exists = false;
    std::vector<std::string> columns; ///< lower-case: SQLite column names ignore ASCII case
    std::vector<std::unique_ptr<Statement>> statements;
    size_t last = 0;
  };
  struct StoredOffset {
    std::string topic;
    int32_t partition;
    int64_t next;
  };

  static constexpr size_t max_statements_per_table = 64;

  JdbcSinkConfig config;
  std::string connector;
  int32_t task_id;
  OnRecordError on_error;
  sqlite3* db = nullptr;
  std::unique_ptr<WalCheckpointer> checkpointer; ///< in WAL mode
  RowMapper mapper;
  runtime::convert::JsonConverter json{runtime::convert::JsonConverter::Options{false, true, true, 1000}};
  Stats stats;

  Row row;
  std::vector<std::string> scratch; ///< per bound parameter: formatted text (JSON, dates, decimals)
  TableCache<Table> tables;

  std::vector<StoredOffset> stored;
  int64_t data_version = -1; ///< PRAGMA data_version when `stored` was last known current
  OffsetSlots slots;

  Stmt begin, commit, rollback, version, select_offsets, upsert_offset, table_info;

  Impl(JdbcSinkConfig c, std::string name, int32_t task, OnRecordError on)
      : config(std::move(c)), connector(std::move(name)), task_id(task), on_error(on), mapper(config) {}

  ~Impl() {
    tables.clear();
    begin.reset(), commit.reset(), rollback.reset(), version.reset();
    select_offsets.reset(), upsert_offset.reset(), table_info.reset();
    checkpointer.reset(); // first: the last connection to close checkpoints and removes the log
    if (db) sqlite3_close_v2(db);
  }

  std::string where() const { return "SQLite database " + config.database_path; }

  [[noreturn]] void fatal(std::string_view what) const {
    throw std::runtime_error(std::string(what) + ": " + sqlite3_errmsg(db) + " (" + where() + ")");
  }

  bool in_transaction() const noexcept { return sqlite3_get_autocommit(db) == 0; }

  // A failed statement: a record error if the record caused it and the transaction
  // survived, else fatal.
  [[noreturn]] void failed(int rc, std::string message, std::string_view exception_class) const {
    message += ": ";
    message += sqlite3_errmsg(db);
    if (record_level(rc) && in_transaction()) throw DataError(message, std::string(exception_class));
    throw std::runtime_error(message + " (" + where() + ")");
  }

  Stmt prepare(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v3(db, sql.c_str(), static_cast<int>(sql.size() + 1), SQLITE_PREPARE_PERSISTENT, &s,
                           nullptr) != SQLITE_OK)
      fatal("cannot prepare " + sql);
    return Stmt(s);
  }

  // Runs a statement that returns no rows; throws as fatal() on failure.
  void run(sqlite3_stmt* s, std::string_view what) {
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW) fatal(what);
  }

  void exec(const char* sql) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fatal(sql);
  }

  void open() {
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (config.database_path.starts_with("file:")) flags |= SQLITE_OPEN_URI;
    if (sqlite3_open_v2(config.database_path.c_str(), &db, flags, nullptr) != SQLITE_OK)
      fatal("cannot open");
    sqlite3_extended_result_codes(db, 1);
    sqlite3_busy_timeout(db, busy_timeout_ms);
    std::string mode;
    if (sqlite3_exec(
            db, "PRAGMA journal_mode=WAL",
            [](void* out, int, char** values, char**) {
              *static_cast<std::string*>(out) = values[0] ? values[0] : "";
              return 0;
            },
            &mode, nullptr) != SQLITE_OK)
      fatal("cannot set WAL journal mode");
    if (mode != "wal" && mode != "memory")
      spdlog::warn("jdbc sink {}: {} is in journal mode {}, not WAL", connector, where(), mode);
    if (mode == "wal") {
      checkpointer = std::make_unique<WalCheckpointer>(config.database_path, flags);
      checkpointer->attach(db);
    }
    exec("PRAGMA synchronous=NORMAL");
    std::string offsets = quoted(offsets_table);
    exec(("CREATE TABLE IF NOT EXISTS " + offsets +
          " (connector TEXT NOT NULL, topic TEXT NOT NULL, partition INTEGER NOT NULL, "
          "next_offset INTEGER NOT NULL, PRIMARY KEY (connector, topic, partition)) WITHOUT ROWID")
             .c_str());
    begin = prepare("BEGIN IMMEDIATE");
    commit = prepare("COMMIT");
    rollback = prepare("ROLLBACK");
    version = prepare("PRAGMA data_version");
    select_offsets = prepare("SELECT topic, partition, next_offset FROM " + offsets +
                             " WHERE connector = ?1 ORDER BY topic, partition");
    upsert_offset = prepare("INSERT INTO " + offsets +
                            " (connector, topic, partition, next_offset) VALUES (?1, ?2, ?3, ?4)"
                            " ON CONFLICT (connector, topic, partition) DO UPDATE SET"
                            " next_offset = max(next_offset, excluded.next_offset)");
    table_info = prepare("SELECT name FROM pragma_table_info(?1)");
    load_offsets();
  }

  // --- offsets ---------------------------------------------------------------

  int64_t read_data_version() {
    sqlite3_stmt* s = version.get();
    if (sqlite3_step(s) != SQLITE_ROW) {
      sqlite3_reset(s);
      fatal("cannot read PRAGMA data_version");
    }
    int64_t v = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return v;
  }

  // Reads this connector's offsets into `stored`. data_version is read first: a
  // commit by another connection after it changes the version we compare against.
  void load_offsets() {
    data_version = read_data_version();
    stored.clear();
    sqlite3_stmt* s = select_offsets.get();
    sqlite3_bind_text(s, 1, connector.data(), static_cast<int>(connector.size()), SQLITE_STATIC);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      auto* topic = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
      stored.push_back({std::string(topic ? topic : "", static_cast<size_t>(sqlite3_column_bytes(s, 0))),
                        sqlite3_column_int(s, 1), sqlite3_column_int64(s, 2)});
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) fatal("cannot read " + std::string(offsets_table));
  }

  StoredOffset* find_stored(std::string_view topic, int32_t partition) noexcept {
    for (auto& o : stored)
      if (o.partition == partition && o.topic == topic) return &o;
    return nullptr;
  }

  void store_offsets() {
    sqlite3_stmt* s = upsert_offset.get();
    sqlite3_bind_text(s, 1, connector.data(), static_cast<int>(connector.size()), SQLITE_STATIC);
    for (const auto& slot : slots) {
      if (slot.max_offset < 0) continue;
      sqlite3_bind_text(s, 2, slot.topic.data(), static_cast<int>(slot.topic.size()), SQLITE_STATIC);
      sqlite3_bind_int(s, 3, slot.partition);
      sqlite3_bind_int64(s, 4, slot.max_offset + 1);
      run(s, "cannot store offsets in " + std::string(offsets_table));
    }
  }

  void remember_offsets() {
    for (const auto& slot : slots) {
      if (slot.max_offset < 0) continue;
      if (auto* o = find_stored(slot.topic, slot.partition))
        o->next = std::max(o->next, slot.max_offset + 1);
      else
        stored.push_back({std::string(slot.topic), slot.partition, slot.max_offset + 1});
    }
  }

  // --- tables ----------------------------------------------------------------

  Table& table_for(std::string_view topic) {
    return tables.of(config, topic, [](std::string name) {
      auto t = std::make_unique<Table>();
      t->quoted = quoted(name);
      t->name = std::move(name);
      return t;
    });
  }

  void load_table(Table& t) {
    sqlite3_stmt* s = table_info.get();
    sqlite3_bind_text(s, 1, t.name.data(), static_cast<int>(t.name.size()), SQLITE_STATIC);
    t.columns.clear();
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
      t.columns.push_back(lower(reinterpret_cast<const char*>(sqlite3_column_text(s, 0))));
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) fatal("cannot read the columns of table " + t.quoted);
    t.loaded = true;
    t.exists = !t.columns.empty();
  }

  bool has_column(const Table& t, std::string_view name) const noexcept {
    return std::any_of(t.columns.begin(), t.columns.end(), [&](const std::string& c) { return iequal(c, name); });
  }

  void ddl(const std::string& sql, const Table& t) {
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
      failed(sqlite3_extended_errcode(db), "cannot alter or create table " + t.quoted, table_exception);
  }

  void create_table(Table& t) {
    std::string sql = create_table_sql(t.quoted, row);
    ddl(sql, t);
    spdlog::info("jdbc sink {} task {}: {}", connector, task_id, sql);
    t.exists = true;
    t.columns.clear();
    for (const auto& c : row.columns) t.columns.push_back(lower(c.name));
  }

  // Makes sure `t` has the row's columns (auto.create, auto.evolve); false when there
  // is nothing to do (a delete from a table that does not exist).
  bool ensure_columns(Table& t, Op op) {
    bool fresh = !t.loaded;
    if (!t.loaded) load_table(t);
    if (!t.exists && !fresh) load_table(t); // someone may have created it meanwhile
    if (!t.exists) {
      if (op == Op::Delete) return false;
      if (!config.auto_create)
        throw DataError("Table " + t.quoted + " is missing and auto-creation is disabled (auto.create=false)",
                        std::string(table_exception));
      create_table(t);
      return true;
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
        throw DataError("Table " + t.quoted + " has no column " + quoted(c->name) +
                            (op == Op::Delete ? "" : " and auto-evolution is disabled (auto.evolve=false)"),
                        std::string(table_exception));
      std::string sql = add_column_sql(t.quoted, *c);
      ddl(sql, t);
      spdlog::info("jdbc sink {} task {}: {}", connector, task_id, sql);
      t.columns.push_back(lower(c->name));
    }
    return true;
  }

  // The cached statement for the row's columns, preparing it (and creating or
  // altering the table) on a miss; nullptr when there is nothing to run.
  const Statement* statement_for(Table& t, Op op) {
    if (t.last < t.statements.size() && t.statements[t.last]->shape.matches(op, row)) return t.statements[t.last].get();
    for (size_t i = 0; i < t.statements.size(); ++i)
      if (t.statements[i]->shape.matches(op, row)) return t.statements[t.last = i].get();

    if ((op == Op::Update || op == Op::Upsert || op == Op::Delete) && row.key_count == 0)
      throw DataError(std::string(verb(op)) + " table " + t.quoted +
                      " requires key field names to be known, check the primary key configuration");
    if (!ensure_columns(t, op)) return nullptr;
    auto s = std::make_unique<Statement>();
    s->shape.assign(op, row);
    if (!(op == Op::Update && row.key_count == row.columns.size())) {
      std::string sql = statement_sql(t.quoted, op, row);
      sqlite3_stmt* raw = nullptr;
      if (sqlite3_prepare_v3(db, sql.c_str(), static_cast<int>(sql.size() + 1), SQLITE_PREPARE_PERSISTENT, &raw,
                             nullptr) != SQLITE_OK)
        failed(sqlite3_extended_errcode(db), "cannot prepare " + sql, sql_exception);
      s->stmt.reset(raw);
    }
    if (t.statements.size() >= max_statements_per_table) t.statements.erase(t.statements.begin());
    t.statements.push_back(std::move(s));
    t.last = t.statements.size() - 1;
    return t.statements.back().get();
  }

  // --- binding ---------------------------------------------------------------

  static int bind_text(sqlite3_stmt* s, int i, std::string_view text) {
    return sqlite3_bind_text(s, i, text.empty() ? "" : text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }

  int bind(sqlite3_stmt* s, int i, const Column& c, std::string& buf) {
    const auto& v = c.value;
    const Logical logical = c.schema ? c.schema->logical() : Logical::None;
    switch (v.kind()) {
      case Kind::Null:
        return sqlite3_bind_null(s, i);
      case Kind::Boolean:
        return sqlite3_bind_int(s, i, v.as_bool() ? 1 : 0);
      case Kind::Int8: case Kind::Int16: case Kind::Int32: case Kind::Int64:
        if (logical == Logical::Date || logical == Logical::Time || logical == Logical::Timestamp) {
          format_time(logical, v.as_int(), buf);
          return bind_text(s, i, buf);
        }
        return sqlite3_bind_int64(s, i, v.as_int());
      case Kind::Float32: case Kind::Float64:
        return sqlite3_bind_double(s, i, v.as_double());
      case Kind::String:
        return bind_text(s, i, v.as_string());
      case Kind::Bytes:
        if (logical == Logical::Decimal) {
          buf = runtime::data::decimal_to_string(runtime::data::decimal_unscaled(v.as_string()),
                                                 c.schema->decimal_scale());
          return bind_text(s, i, buf);
        }
        if (v.size() == 0) return sqlite3_bind_zeroblob(s, i, 0);
        return sqlite3_bind_blob(s, i, v.as_string().data(), static_cast<int>(v.size()), SQLITE_STATIC);
      case Kind::Array: case Kind::Map: case Kind::Struct:
        buf.clear();
        json.write_payload(v, c.schema, buf);
        return bind_text(s, i, buf);
    }
    return SQLITE_MISUSE;
  }

  // --- records ---------------------------------------------------------------

  void write_record(DecodedBatch& batch, uint32_t index) {
    const DecodedRecord& r = batch[index];
    Table& t = table_for(r.topic);
    const bool tombstone = r.value.is_null();
    if (tombstone && !config.delete_enabled) throw tombstone_error(connector, config.pk_mode, r);
    mapper.map(r, t.name, batch.arena(), tombstone, row);
    const Op op = operation(config, tombstone);
    const Statement* st = statement_for(t, op);
    if (!st || !st->stmt) return;
    sqlite3_stmt* s = st->stmt.get();
    if (scratch.size() < row.columns.size()) scratch.resize(row.columns.size());
    for (size_t i = 0; i < row.columns.size(); ++i) {
      int rc = bind(s, static_cast<int>(i + 1), row.columns[i], scratch[i]);
      if (rc != SQLITE_OK) {
        sqlite3_clear_bindings(s);
        failed(rc, "cannot bind column " + quoted(row.columns[i].name) + " of table " + t.quoted, sql_exception);
      }
    }
    int rc = sqlite3_step(s);
    if (rc != SQLITE_DONE) {
      rc = sqlite3_reset(s);
      failed(rc, std::string(verb(op)) + " table " + t.quoted + " failed", sql_exception);
    }
    sqlite3_reset(s);
    if (op == Op::Delete)
      ++stats.deleted;
    else
      ++stats.written;
  }

  // --- transactions ----------------------------------------------------------

  // Undoes a failed write: rolls back and forgets what the transaction may have
  // changed (tables it created or altered, the offsets it read).
  void abort() noexcept {
    if (in_transaction()) {
      sqlite3_step(rollback.get());
      sqlite3_reset(rollback.get());
    }
    tables.clear();
    data_version = -1;
  }

  void write(DecodedBatch& batch) {
    if (batch.empty()) return;
    run(begin.get(), "cannot begin a transaction");
    const Stats before = stats;
    try {
      if (read_data_version() != data_version) load_offsets(); // another connection wrote
      slots.clear();
      for (uint32_t i = 0; i < batch.size(); ++i) {
        DecodedRecord& r = batch[i];
        const Position at = consumed_position(batch, r);
        OffsetSlot* slot = nullptr;
        int64_t previous_max = -1;
        if (at.known()) {
          slot = slots.find(at.topic, at.partition);
          if (!slot) {
            const StoredOffset* o = find_stored(at.topic, at.partition);
            slot = &slots.at(at.topic, at.partition, o ? o->next : -1);
          }
          if (at.offset < slot->stored_next) {
            ++stats.skipped;
            r.state = RecordState::Dropped; // stored before: not written again, not counted as written
            continue;
          }
          previous_max = slot->max_offset;
          slot->max_offset = std::max(slot->max_offset, at.offset);
        }
        if (!r.live()) continue;
        try {
          write_record(batch, i);
        } catch (const DataError& e) {
          batch.fail(i, ErrorStage::TaskPut, JdbcSinkConfig::task_class, e);
          ++stats.failed;
          if (on_error == OnRecordError::Stop) {
            if (slot) slot->max_offset = previous_max;
            break;
          }
        }
      }
      store_offsets();
      run(commit.get(), "cannot commit");
    } catch (...) {
      abort();
      stats = before;
      throw;
    }
    remember_offsets();
    ++stats.transactions;
  }

  std::vector<TopicPartitionOffset> stored_offsets() {
    load_offsets();
    std::vector<TopicPartitionOffset> out;
    out.reserve(stored.size());
    for (const auto& o : stored) out.push_back({o.topic, o.partition, o.next});
    return out;
  }
};

JdbcSinkWriter::JdbcSinkWriter(JdbcSinkConfig config, std::string connector_name, int32_t task_id,
                               OnRecordError on_error)
    : impl_(std::make_unique<Impl>(std::move(config), std::move(connector_name), task_id, on_error)) {
  impl_->open();
}

JdbcSinkWriter::~JdbcSinkWriter() = default;

void JdbcSinkWriter::write(DecodedBatch& batch) { impl_->write(batch); }

std::vector<TopicPartitionOffset> JdbcSinkWriter::stored_offsets() { return impl_->stored_offsets(); }

const JdbcSinkWriter::Stats& JdbcSinkWriter::stats() const noexcept { return impl_->stats; }

const JdbcSinkConfig& JdbcSinkWriter::config() const noexcept { return impl_->config; }

} // namespace weir::connectors::jdbc
