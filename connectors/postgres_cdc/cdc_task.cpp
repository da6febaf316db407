#include "connectors/postgres_cdc/cdc_task.hpp"

#include <spdlog/spdlog.h>

#include <charconv>
#include <cstring>
#include <thread>

#include "runtime/convert/json_text.hpp"
#include "runtime/data/decoded_batch.hpp"
#include "runtime/data/errors.hpp"
#include "weir/version.hpp"

namespace weir::connectors::postgres_cdc {

namespace {

using namespace runtime::data;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr int snapshot_fetch = 2000;
constexpr auto status_interval = 10s;

/// A record's value bytes start with this header (same process, host byte order).
struct EventHeader {
  char op;         ///< c u d r, or h for a heartbeat
  char snapshot;   ///< t (true), l (last), f (false)
  uint8_t tuples;  ///< bit 0: a before tuple follows, bit 1: an after tuple
  uint32_t table;  ///< index into the task's table versions
  int64_t lsn;
  int64_t tx_id;
  int64_t commit_us;
  int64_t last_commit;
};

int64_t now_micros() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
           std::chrono::system_clock::now().time_since_epoch())
    .count();
}

/// A number field of a stored offset's JSON text; std::nullopt when absent or null.
std::optional<int64_t> offset_number(std::string_view text, std::string_view key) {
  auto at = text.find("\"" + std::string{key} + "\"");
  if (at == std::string_view::npos)
    return std::nullopt;
  auto p = text.find_first_not_of(" :\"", at + key.size() + 2);
  int64_t v = 0;
  if (p == std::string_view::npos
      || std::from_chars(text.data() + p, text.data() + text.size(), v).ec != std::errc{})
    return std::nullopt;
  return v;
}

bool offset_flag(std::string_view text, std::string_view key) {
  auto at = text.find("\"" + std::string{key} + "\"");
  return at != std::string_view::npos
         && text.substr(text.find_first_not_of(" :", at + key.size() + 2)).starts_with("true");
}

const SchemaPtr& heartbeat_key_schema() {
  static const SchemaPtr s = SchemaBuilder::struct_().name("io.debezium.connector.common.ServerNameKey")
                               .field("serverName", schemas::string()).build();
  return s;
}

const SchemaPtr& heartbeat_value_schema() {
  static const SchemaPtr s = SchemaBuilder::struct_().name("io.debezium.connector.common.Heartbeat")
                               .field("ts_ms", schemas::int64()).build();
  return s;
}

} // namespace

struct PostgresCdcTask::Snapshot {
  std::vector<uint32_t> tables; ///< versions_ indexes, in reading order
  size_t next = 0;              ///< the table being read
  bool cursor_open = false;
  std::optional<PgResult> rows;
  int row = 0;
  int64_t total = 0, emitted = 0;
  int64_t read_us = 0;
  std::vector<std::optional<std::string_view>> cells;
  std::string tuple;
};

std::string PostgresCdcTask::partition_of(const std::string& topic_prefix) {
  std::string p = "{\"server\":";
  runtime::convert::append_json_string(topic_prefix, p);
  return p + "}";
}

PostgresCdcTask::PostgresCdcTask(const Config& config, std::string connector)
  : cfg_(CdcConfig::from(config)), connector_(std::move(connector)),
    partition_(partition_of(cfg_.topic_prefix)) {}

PostgresCdcTask::~PostgresCdcTask() {
  if (snapshot_ && sql_) {
    try {
      sql_->exec("ROLLBACK", "ending the unfinished snapshot"); // frees the connection for the drop
    } catch (const std::exception& e) {
      spdlog::warn("{}", e.what());
    }
  }
  snapshot_.reset();
  repl_.reset(); // ends the walsender, which releases the slot
  if (!cfg_.drop_slot_on_stop || !slot_ours_ || !sql_)
    return;
  // The walsender may take a moment to exit after the connection closes.
  for (int attempt = 0; attempt < 50; ++attempt) {
    try {
      sql_->exec("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = $1",
                 {cfg_.slot}, "dropping replication slot " + cfg_.slot);
      spdlog::info("postgres cdc {}: dropped replication slot {} (slot.drop.on.stop)", connector_, cfg_.slot);
      return;
    } catch (const std::exception& e) {
      if (attempt == 49)
        spdlog::warn("{}", e.what());
      std::this_thread::sleep_for(100ms);
    }
  }
}

void PostgresCdcTask::ensure_publication(const std::vector<std::pair<std::string, std::string>>& tables) {
  bool exists = sql_->exec("SELECT 1 FROM pg_publication WHERE pubname = $1", {cfg_.publication},
                           "looking up publication " + cfg_.publication)
                  .rows() > 0;
  auto name = sql_->identifier(cfg_.publication);
  switch (cfg_.publication_mode) {
    case PublicationMode::Disabled:
      if (!exists)
        throw ConfigError("publication.name",
                          "PostgresConnector: publication " + cfg_.publication + " does not exist and "
                          "publication.autocreate.mode=disabled: create it (CREATE PUBLICATION ... FOR "
                          "TABLE ...) or set publication.autocreate.mode=filtered");
      return;
    case PublicationMode::AllTables:
      if (!exists)
        sql_->exec("CREATE PUBLICATION " + name + " FOR ALL TABLES",
                   "creating publication " + cfg_.publication
                     + " FOR ALL TABLES (publication.autocreate.mode=all_tables needs a superuser; "
                       "filtered needs only table ownership)");
      return;
    case PublicationMode::Filtered: {
      if (tables.empty())
        throw ConfigError("table.include.list",
                          "PostgresConnector: no table of database " + cfg_.dbname
                            + " matches table.include.list / table.exclude.list, so "
                              "publication.autocreate.mode=filtered has nothing to publish");
      std::string list;
      for (const auto& [schema, table] : tables)
        list += (list.empty() ? "" : ", ") + sql_->identifier(schema) + "." + sql_->identifier(table);
      sql_->exec(std::string(exists ? "ALTER PUBLICATION " + name + " SET TABLE "
                                    : "CREATE PUBLICATION " + name + " FOR TABLE ")
                   + list,
                 (exists ? "altering publication " : "creating publication ") + cfg_.publication);
      return;
    }
  }
}

uint32_t PostgresCdcTask::load_table(uint32_t oid, const std::string& schema, const std::string& table,
                                     const std::vector<RelationColumn>& columns) {
  auto catalog = sql_->exec(
    "SELECT a.attname, a.atttypid, a.atttypmod, format_type(a.atttypid, a.atttypmod), a.attnotnull, "
    "coalesce(a.attnum = ANY(i.indkey), false) FROM pg_attribute a LEFT JOIN pg_index i "
    "ON i.indrelid = a.attrelid AND i.indisprimary WHERE a.attrelid = $1 AND a.attnum > 0 "
    "AND NOT a.attisdropped AND a.attgenerated = '' ORDER BY a.attnum",
    {std::to_string(oid)}, "reading the columns of table " + schema + "." + table);
  std::vector<ColumnInfo> info;
  auto from_catalog = [&](int r) {
    ColumnInfo c;
    c.name = catalog.text(r, 0);
    c.type_oid = static_cast<uint32_t>(std::stoul(std::string{catalog.text(r, 1)}));
    c.type_modifier = std::stoi(std::string{catalog.text(r, 2)});
    c.type_name = catalog.text(r, 3);
    c.not_null = catalog.text(r, 4) == "t";
    c.primary_key = catalog.text(r, 5) == "t";
    return c;
  };
  if (columns.empty()) {
    for (int r = 0; r < catalog.rows(); ++r)
      info.push_back(from_catalog(r));
  } else {
    // The stream's columns are the truth for its tuples; the catalog adds nullability,
    // the primary key and type names (a column it no longer has keeps the defaults).
    for (const auto& rc : columns) {
      ColumnInfo c;
      for (int r = 0; r < catalog.rows(); ++r)
        if (catalog.text(r, 0) == rc.name)
          c = from_catalog(r);
      c.name = rc.name;
      if (c.type_oid != rc.type_oid)
        c.type_name = "oid " + std::to_string(rc.type_oid);
      c.type_oid = rc.type_oid;
      c.type_modifier = rc.type_modifier;
      info.push_back(std::move(c));
    }
  }
  auto t = make_table_schema(cfg_.topic_prefix, oid, schema, table, std::move(info),
                             [&](const std::string& message) {
                               if (warned_.insert(message).second)
                                 spdlog::warn("postgres cdc {}: {}", connector_, message);
                             });
  versions_.push_back(std::move(t));
  auto index = static_cast<uint32_t>(versions_.size() - 1);
  current_[oid] = index;
  return index;
}

void PostgresCdcTask::open_slot(bool want_snapshot) {
  auto slot = sql_->exec("SELECT active_pid, plugin, confirmed_flush_lsn, database FROM pg_replication_slots "
                         "WHERE slot_name = $1",
                         {cfg_.slot}, "looking up replication slot " + cfg_.slot);
  repl_ = std::make_unique<PgConnection>(cfg_.keywords(true));
  if (slot.rows() > 0) {
    if (!slot.null(0, 0))
      throw std::runtime_error("PostgresConnector: replication slot " + cfg_.slot + " is held by another "
                               "client (walsender pid " + std::string{slot.text(0, 0)} + "): another "
                               "connector or task streams from it; give this one its own slot.name");
    if (slot.text(0, 1) != "pgoutput" || slot.text(0, 3) != cfg_.dbname)
      throw ConfigError("slot.name", "PostgresConnector: replication slot " + cfg_.slot + " belongs to plugin "
                                       + std::string{slot.text(0, 1)} + " on database "
                                       + std::string{slot.text(0, 3)} + ", not pgoutput on "
                                       + cfg_.dbname + ": choose another slot.name");
    slot_ours_ = true;
    if (want_snapshot) {
      // The slot's own snapshot is gone: this one is taken now, so changes between
      // the slot's position and now may come twice (in the snapshot and the stream).
      spdlog::warn("postgres cdc {}: slot {} exists but no complete snapshot is recorded: reading the "
                   "tables now; changes made since the slot's position may be emitted twice",
                   connector_, cfg_.slot);
      sql_->exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "starting the snapshot");
    }
    if (start_lsn_ == 0 && !slot.null(0, 2)) {
      start_lsn_ = parse_lsn(slot.text(0, 2));
      last_commit_ = start_lsn_;
    }
    return;
  }
  auto created = repl_->exec("CREATE_REPLICATION_SLOT " + repl_->identifier(cfg_.slot) + " LOGICAL pgoutput "
                               + (want_snapshot ? "EXPORT_SNAPSHOT" : "NOEXPORT_SNAPSHOT"),
                             "creating replication slot " + cfg_.slot);
  slot_ours_ = true;
  auto consistent = parse_lsn(created.text(0, 1));
  start_lsn_ = std::max(start_lsn_, consistent);
  last_commit_ = start_lsn_;
  spdlog::info("postgres cdc {}: created replication slot {} at {}", connector_, cfg_.slot, format_lsn(consistent));
  if (want_snapshot) {
    // Imported before the replication connection runs anything else, which would end
    // the exported snapshot.
    sql_->exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "starting the snapshot");
    sql_->exec("SET TRANSACTION SNAPSHOT " + sql_->literal(created.text(0, 2)),
               "importing the slot's snapshot");
  }
}

void PostgresCdcTask::start(const runtime::connector_api::OffsetMap& stored) {
  sql_ = std::make_unique<PgConnection>(cfg_.keywords(false));
  auto level = sql_->exec("SHOW wal_level", "reading wal_level");
  if (level.text(0, 0) != "logical")
    throw ConfigError("wal_level", "PostgresConnector: the server " + sql_->where() + " runs with wal_level="
                                     + std::string{level.text(0, 0)}
                                     + "; logical replication needs the server setting wal_level=logical "
                                       "(postgresql.conf, then restart the server)");
  auto all = sql_->exec("SELECT c.oid, n.nspname, c.relname FROM pg_class c JOIN pg_namespace n "
                        "ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN "
                        "('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg_toast%' "
                        "AND n.nspname NOT LIKE 'pg_temp%' ORDER BY 2, 3",
                        "listing the tables of " + cfg_.dbname);
  std::vector<std::pair<std::string, std::string>> tables;
  std::vector<uint32_t> oids;
  for (int r = 0; r < all.rows(); ++r) {
    std::string schema{all.text(r, 1)}, table{all.text(r, 2)};
    if (cfg_.captures(schema, table)) {
      oids.push_back(static_cast<uint32_t>(std::stoul(std::string{all.text(r, 0)})));
      tables.emplace_back(std::move(schema), std::move(table));
    }
  }
  ensure_publication(tables);

  bool snapshot_done = false;
  if (auto it = stored.find(partition_); it != stored.end()) {
    const auto& text = it->second;
    bool in_snapshot = offset_flag(text, "snapshot") && !offset_flag(text, "last_snapshot_record");
    snapshot_done = !in_snapshot;
    if (auto commit = offset_number(text, "lsn_commit"); commit && !in_snapshot) {
      start_lsn_ = static_cast<uint64_t>(*commit);
      last_commit_ = start_lsn_;
      // Kafka holds transaction txId's changes up to lsn_proc: skip them when it comes
      // again. Even when lsn_proc equals lsn_commit: the first change of a transaction
      // may start exactly where the one before it ended. After a whole transaction,
      // txId is that one, which the server does not send again: nothing is skipped.
      auto proc = offset_number(text, "lsn_proc");
      auto tx = offset_number(text, "txId");
      if (proc && tx) {
        skip_xid_ = static_cast<uint32_t>(*tx);
        skip_lsn_ = static_cast<uint64_t>(*proc);
      }
    } else if (auto lsn = offset_number(text, "lsn"); lsn && !in_snapshot) {
      start_lsn_ = static_cast<uint64_t>(*lsn); // an offset Debezium wrote
      last_commit_ = start_lsn_;
    }
    confirmed_ = start_lsn_;
  }
  bool want_snapshot = cfg_.snapshot == SnapshotMode::Initial && !snapshot_done;
  open_slot(want_snapshot);

  if (want_snapshot) {
    snapshot_ = std::make_unique<Snapshot>();
    snapshot_->read_us = now_micros();
    for (size_t i = 0; i < oids.size(); ++i) {
      snapshot_->tables.push_back(load_table(oids[i], tables[i].first, tables[i].second, {}));
      auto count = sql_->exec("SELECT count(*) FROM " + sql_->identifier(tables[i].first) + "."
                                + sql_->identifier(tables[i].second),
                              "counting the rows of " + tables[i].first + "." + tables[i].second);
      snapshot_->total += std::stoll(std::string{count.text(0, 0)});
    }
    spdlog::info("postgres cdc {}: snapshot of {} table(s), {} row(s)", connector_, oids.size(),
                 snapshot_->total);
  } else {
    repl_->start_replication(cfg_.slot, start_lsn_, cfg_.publication);
    spdlog::info("postgres cdc {}: streaming from slot {} at {}", connector_, cfg_.slot,
                 format_lsn(start_lsn_));
  }
}

void PostgresCdcTask::add_event(runtime::connector_api::SourceRecords& out, char op, uint32_t table,
                                uint64_t lsn, const Tuple* before, const Tuple* after,
                                const Tuple& key_row, std::string_view snapshot) {
  const auto& t = *versions_[table];
  EventHeader h{};
  h.op = op;
  h.snapshot = snapshot[0];
  h.tuples = static_cast<uint8_t>((before ? 1 : 0) | (after ? 2 : 0));
  h.table = table;
  h.lsn = static_cast<int64_t>(lsn);
  h.tx_id = op == 'r' ? -1 : static_cast<int64_t>(xid_);
  h.commit_us = op == 'r' ? snapshot_->read_us : commit_us_;
  h.last_commit = static_cast<int64_t>(last_commit_);
  value_.assign(reinterpret_cast<const char*>(&h), sizeof h);
  if (before)
    value_ += before->bytes;
  if (after)
    value_ += after->bytes;
  std::optional<std::string_view> key;
  if (t.key) {
    key_.assign(reinterpret_cast<const char*>(&table), sizeof table);
    key_ += key_row.bytes;
    key = key_;
  }
  out.add(t.topic, key, value_);
  if (op == 'd' && cfg_.tombstones_on_delete)
    out.add(t.topic, key, std::nullopt);
}

PostgresCdcTask::Status PostgresCdcTask::poll_snapshot(runtime::connector_api::SourceRecords& out) {
  auto& s = *snapshot_;
  // Snapshot rows carry the slot's position, as Debezium's do; the batch with the
  // last row records the snapshot as done, so a restart after it streams at once.
  auto mark = [&] {
    if (out.size() == 0)
      return;
    if (s.emitted == s.total)
      out.set_offset(partition_, offset_text());
    else
      out.set_offset(partition_, "{\"last_snapshot_record\":false,\"lsn\":" + std::to_string(start_lsn_)
                                   + ",\"snapshot\":true,\"ts_usec\":" + std::to_string(s.read_us) + "}");
  };
  while (s.next < s.tables.size()) {
    const auto& t = *versions_[s.tables[s.next]];
    if (!s.cursor_open) {
      sql_->exec("DECLARE weir_snapshot NO SCROLL CURSOR FOR SELECT * FROM " + sql_->identifier(t.schema) + "."
                   + sql_->identifier(t.table),
                 "reading table " + t.schema + "." + t.table);
      s.cursor_open = true;
    }
    if (!s.rows || s.row >= s.rows->rows()) {
      if (out.size() > 0) {
        mark();
        return Status::ready; // one fetch a poll keeps a poll short
      }
      s.rows.emplace(sql_->exec("FETCH " + std::to_string(snapshot_fetch) + " FROM weir_snapshot",
                                "reading table " + t.schema + "." + t.table));
      s.row = 0;
      if (s.rows->rows() == 0) {
        sql_->exec("CLOSE weir_snapshot", "reading table " + t.schema + "." + t.table);
        s.cursor_open = false;
        s.rows.reset();
        ++s.next;
        continue;
      }
    }
    for (; s.row < s.rows->rows(); ++s.row) {
      s.cells.clear();
      for (int c = 0; c < s.rows->columns(); ++c)
        s.cells.push_back(s.rows->null(s.row, c) ? std::nullopt : std::optional{s.rows->text(s.row, c)});
      s.tuple.clear();
      write_tuple(s.cells, s.tuple);
      if (!out.has_room(s.tuple.size() * 2 + sizeof(EventHeader))) {
        mark();
        return Status::ready;
      }
      std::string_view bytes = s.tuple;
      auto tuple = read_tuple(bytes);
      bool last = s.emitted + 1 == s.total;
      add_event(out, 'r', s.tables[s.next], start_lsn_, nullptr, &tuple, tuple, last ? "l" : "t");
      ++s.emitted;
    }
  }
  mark();
  sql_->exec("COMMIT", "ending the snapshot");
  spdlog::info("postgres cdc {}: snapshot done ({} row(s)); streaming from {}", connector_, s.emitted,
               format_lsn(start_lsn_));
  snapshot_.reset();
  repl_->start_replication(cfg_.slot, start_lsn_, cfg_.publication);
  return out.size() > 0 ? Status::ready : Status::idle;
}

std::string PostgresCdcTask::offset_text() const {
  uint64_t proc = in_tx_ ? last_event_ : last_commit_;
  return "{\"lsn_proc\":" + std::to_string(proc) + ",\"lsn_commit\":" + std::to_string(last_commit_)
         + ",\"lsn\":" + std::to_string(proc) + ",\"txId\":" + std::to_string(xid_)
         + ",\"ts_usec\":" + std::to_string(commit_us_) + "}";
}

bool PostgresCdcTask::handle(std::string_view payload, uint64_t lsn, runtime::connector_api::SourceRecords& out) {
  auto message = decode_message(payload);
  auto captured = [&](uint32_t oid) -> std::optional<uint32_t> {
    auto it = current_.find(oid);
    if (it == current_.end()) // pgoutput sends a Relation before a table's first change
      throw ProtocolError("pgoutput: a change of relation " + std::to_string(oid) + " at " + format_lsn(lsn)
                          + " before its Relation message");
    return it->second;
  };
  auto skip = [&](uint64_t at) { return skipping_ && at <= skip_lsn_; };
  // Room for an event (and its tombstone) with these tuples.
  auto room = [&](size_t bytes) { return out.has_room(2 * bytes + sizeof(EventHeader) + 64); };
  if (auto* b = std::get_if<Begin>(&message)) {
    in_tx_ = true;
    xid_ = b->xid;
    commit_us_ = to_unix_micros(b->commit_time);
    skipping_ = skip_xid_ && *skip_xid_ == b->xid;
  } else if (auto* c = std::get_if<Commit>(&message)) {
    in_tx_ = false;
    last_commit_ = c->end_lsn;
    last_event_ = c->end_lsn;
    if (skipping_)
      skip_xid_.reset();
    skipping_ = false;
  } else if (auto* r = std::get_if<Relation>(&message)) {
    if (cfg_.captures(r->schema, r->table))
      load_table(r->oid, r->schema, r->table, r->columns);
    else
      current_[r->oid] = std::nullopt;
  } else if (auto* ins = std::get_if<Insert>(&message)) {
    if (auto t = captured(ins->relation); t && !skip(lsn)) {
      if (!room(ins->row.bytes.size() * 2))
        return false;
      add_event(out, 'c', *t, lsn, nullptr, &ins->row, ins->row);
    }
    last_event_ = lsn;
  } else if (auto* up = std::get_if<Update>(&message)) {
    if (auto t = captured(up->relation); t && !skip(lsn)) {
      const auto& schema = *versions_[*t];
      if (!room((up->old ? up->old->bytes.size() : 0) + up->row.bytes.size() * 3))
        return false;
      bool key_changed = false;
      if (up->old && schema.key)
        for (auto k : schema.key_columns)
          key_changed = key_changed || up->old->cells[k].text != up->row.cells[k].text;
      if (key_changed) {
        add_event(out, 'd', *t, lsn, &*up->old, nullptr, *up->old);
        add_event(out, 'c', *t, lsn, nullptr, &up->row, up->row);
      } else {
        // A 'K' old tuple (key only) is not a before image: Debezium emits none then.
        const Tuple* before = up->old && !up->old_is_key ? &*up->old : nullptr;
        add_event(out, 'u', *t, lsn, before, &up->row, up->row);
      }
    }
    last_event_ = lsn;
  } else if (auto* del = std::get_if<Delete>(&message)) {
    if (auto t = captured(del->relation); t && !skip(lsn)) {
      if (!room(del->old.bytes.size() * 2))
        return false;
      add_event(out, 'd', *t, lsn, &del->old, nullptr, del->old);
    }
    last_event_ = lsn;
  } else if (std::holds_alternative<Truncate>(message)) {
    spdlog::debug("postgres cdc {}: a truncate at {} skipped (as Debezium's skipped.operations=t)",
                  connector_, format_lsn(lsn));
  }
  return true;
}

void PostgresCdcTask::send_status(bool force) {
  auto now = Clock::now();
  if (!force && confirmed_ == reported_ && now - last_status_ < status_interval)
    return;
  // Written: what arrived; flushed and applied: what Kafka holds. The server frees
  // WAL and moves the slot's confirmed_flush_lsn by the flushed position only.
  repl_->send_status(standby_status(std::max(received_, confirmed_), confirmed_, confirmed_,
                                    to_postgres_micros(now_micros())));
  reported_ = confirmed_;
  last_status_ = now;
}

PostgresCdcTask::Status PostgresCdcTask::poll_stream(runtime::connector_api::SourceRecords& out) {
  const auto until = Clock::now() + 50ms;
  bool progressed = false;
  if (!held_.empty()) {
    auto frame = decode_frame(held_);
    auto& x = std::get<XLogData>(frame);
    if (!handle(x.payload, x.start, out))
      return Status::ready; // not even an empty batch holds it: has_room lets one record in
    held_.clear();
    progressed = true;
  }
  while (Clock::now() < until) {
    auto bytes = repl_->next_frame(out.size() > 0 ? 0ms : 100ms);
    if (!bytes)
      break;
    auto frame = decode_frame(*bytes);
    if (auto* k = std::get_if<Keepalive>(&frame)) {
      received_ = std::max(received_, k->wal_end);
      if (k->reply_requested)
        send_status(true);
      continue;
    }
    auto& x = std::get<XLogData>(frame);
    received_ = std::max(received_, x.wal_end);
    if (!handle(x.payload, x.start, out)) {
      held_.assign(bytes->data(), bytes->size());
      break;
    }
    progressed = true;
  }
  if (out.size() == 0 && cfg_.heartbeat_ms > 0 && !in_tx_ && received_ > last_commit_
      && Clock::now() - last_heartbeat_ >= std::chrono::milliseconds{cfg_.heartbeat_ms}) {
    // Nothing captured changed: a heartbeat carries the server's position, so that
    // once Kafka holds it the slot lets go of WAL nobody here needs.
    last_heartbeat_ = Clock::now();
    last_commit_ = received_;
    last_event_ = received_;
    EventHeader h{};
    h.op = 'h';
    h.commit_us = now_micros();
    value_.assign(reinterpret_cast<const char*>(&h), sizeof h);
    out.add("__debezium-heartbeat." + cfg_.topic_prefix, value_, value_);
    progressed = true;
  }
  if (progressed && out.size() > 0)
    out.set_offset(partition_, offset_text());
  send_status(false);
  return out.size() > 0 ? Status::ready : Status::idle;
}

PostgresCdcTask::Status PostgresCdcTask::poll(runtime::connector_api::SourceRecords& out) {
  if (snapshot_)
    return poll_snapshot(out);
  return poll_stream(out);
}

void PostgresCdcTask::commit(const runtime::connector_api::OffsetMap& committed) {
  auto it = committed.find(partition_);
  if (it == committed.end())
    return;
  if (auto c = offset_number(it->second, "lsn_commit"); c && !offset_flag(it->second, "snapshot"))
    confirmed_ = std::max(confirmed_, static_cast<uint64_t>(*c));
}

int64_t PostgresCdcTask::lag_bytes() const {
  if (snapshot_ || received_ == 0)
    return -1; // not streaming yet: the server has not said where its WAL ends
  return received_ > confirmed_ ? static_cast<int64_t>(received_ - confirmed_) : 0;
}

void PostgresCdcTask::decode(DecodedBatch& batch, uint32_t index) {
  auto& rec = batch[index];
  const auto& raw = batch.raw();
  const auto& ref = raw[rec.raw_index];
  auto& arena = batch.arena();
  if (ref.value.is_null()) { // a tombstone
    rec.value = {};
    rec.value_schema = nullptr;
  }
  EventHeader h{};
  if (!ref.value.is_null()) {
    auto bytes = raw.bytes(ref.value);
    if (bytes.size() < sizeof h)
      throw DataError("PostgresConnector: a record shorter than its header");
    std::memcpy(&h, bytes.data(), sizeof h);
    if (h.op == 'h') {
      auto key = Value::structure(arena, *heartbeat_key_schema());
      key.fields()[0] = Value::string(arena.copy(cfg_.topic_prefix));
      auto value = Value::structure(arena, *heartbeat_value_schema());
      value.fields()[0] = Value::int64(h.commit_us / 1000);
      rec.key = key;
      rec.key_schema = batch.retain(heartbeat_key_schema());
      rec.value = value;
      rec.value_schema = batch.retain(heartbeat_value_schema());
      return;
    }
    bytes.remove_prefix(sizeof h);
    const auto& t = *versions_.at(h.table);
    Value before, after;
    if (h.tuples & 1)
      before = row_value(t, read_tuple(bytes), arena);
    if (h.tuples & 2)
      after = row_value(t, read_tuple(bytes), arena);
    SourceInfo source;
    source.version = WEIR_VERSION;
    source.server_name = cfg_.topic_prefix;
    source.database = cfg_.dbname;
    source.commit_micros = h.commit_us;
    source.snapshot = h.snapshot == 'l' ? "last" : h.snapshot == 't' ? "true" : "false";
    source.tx_id = h.tx_id;
    source.lsn = h.lsn;
    source.last_commit_lsn = h.op == 'r' ? -1 : h.last_commit;
    rec.value = envelope_value(t, source, h.op, before, after, now_micros(), arena);
    rec.value_schema = batch.retain(t.envelope);
  }
  rec.key = {};
  rec.key_schema = nullptr;
  if (!ref.key.is_null()) {
    auto bytes = raw.bytes(ref.key);
    uint32_t table;
    std::memcpy(&table, bytes.data(), sizeof table);
    bytes.remove_prefix(sizeof table);
    const auto& t = *versions_.at(table);
    rec.key = key_value(t, read_tuple(bytes), arena);
    rec.key_schema = batch.retain(t.key);
  }
}

} // namespace weir::connectors::postgres_cdc
