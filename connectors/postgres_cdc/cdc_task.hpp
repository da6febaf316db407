// The PostgresConnector's task (io.debezium.connector.postgresql.PostgresConnector): a
// snapshot of the captured tables, then every committed insert, update and delete
// from a logical replication slot, as Debezium's change events.
//
// Start: checks wal_level, creates or alters the publication (publication.autocreate.mode),
// checks the slot is not held by another client, creates it when missing. A new slot
// exports its snapshot; with snapshot.mode=initial and no stored offset the tables are
// read in that snapshot (op r, source.snapshot true, the last row "last") and streaming
// starts at the slot's consistent point: every change is either in the snapshot or in
// the stream, never both, never neither.
//
// Offsets, in Debezium's form, one partition {"server": topic.prefix}:
//   {"lsn_proc":P,"lsn_commit":C,"lsn":P,"txId":X,"ts_usec":T}
// C is the end of the last transaction fully emitted, P the last event emitted (P == C
// after a commit). A restart streams from C and skips transaction X's events up to P,
// so each event is emitted once. The slot's confirmed position (standby status
// update) is C of the offsets Kafka has acknowledged (commit()), never further: the
// server keeps the WAL of everything Kafka does not hold yet.
//
// A delete is followed by a tombstone (tombstones.on.delete); an update that changes
// the primary key becomes a delete (and tombstone) of the old key and a create.
// Truncates are skipped, as Debezium's default skipped.operations=t does.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "connectors/postgres_cdc/cdc_config.hpp"
#include "connectors/postgres_cdc/envelope.hpp"
#include "connectors/postgres_cdc/replication_stream.hpp"
#include "runtime/connector_api/source_task.hpp"

namespace weir::connectors::postgres_cdc {

class PostgresCdcTask : public runtime::connector_api::SourceTask {
public:
  PostgresCdcTask(const Config& config, std::string connector);
  /// Closes the stream; drops the slot when slot.drop.on.stop.
  ~PostgresCdcTask() override;
  PostgresCdcTask(const PostgresCdcTask&) = delete;
  PostgresCdcTask& operator=(const PostgresCdcTask&) = delete;

  void start(const runtime::connector_api::OffsetMap& stored) override;
  Status poll(runtime::connector_api::SourceRecords& out) override;
  void commit(const runtime::connector_api::OffsetMap& committed) override;
  runtime::connector_api::Form key_form() const noexcept override { return runtime::connector_api::Form::Custom; }
  runtime::connector_api::Form value_form() const noexcept override { return runtime::connector_api::Form::Custom; }
  void decode(runtime::data::DecodedBatch& batch, uint32_t index) override;
  std::string_view kind() const noexcept override { return "postgres-cdc"; }
  /// The slot's lag: the server's WAL end minus the position confirmed to it.
  int64_t lag_bytes() const override;

  /// {"server":"<topic.prefix>"}
  static std::string partition_of(const std::string& topic_prefix);

private:
  struct Snapshot; // the tables left to read, in the snapshot's transaction

  void ensure_publication(const std::vector<std::pair<std::string, std::string>>& tables);
  void open_slot(bool want_snapshot);
  /// The schema of table `oid` as `columns` (from a Relation message, or the catalog
  /// when empty) and the catalog describe it; returns its index in versions_.
  uint32_t load_table(uint32_t oid, const std::string& schema, const std::string& table,
                      const std::vector<RelationColumn>& columns);
  Status poll_snapshot(runtime::connector_api::SourceRecords& out);
  Status poll_stream(runtime::connector_api::SourceRecords& out);
  /// Handles one XLogData payload; false when its records did not fit `out`.
  bool handle(std::string_view message, uint64_t lsn, runtime::connector_api::SourceRecords& out);
  void add_event(runtime::connector_api::SourceRecords& out, char op, uint32_t table, uint64_t lsn,
                 const Tuple* before, const Tuple* after, const Tuple& key_row,
                 std::string_view snapshot = "f");
  void send_status(bool force);
  std::string offset_text() const;

  CdcConfig cfg_;
  std::string connector_;
  std::string partition_;
  std::unique_ptr<PgConnection> sql_;  ///< catalog and snapshot
  std::unique_ptr<PgConnection> repl_; ///< replication=database
  std::vector<std::shared_ptr<const TableSchema>> versions_;
  std::unordered_map<uint32_t, std::optional<uint32_t>> current_; ///< oid -> version (none: not captured)
  std::unique_ptr<Snapshot> snapshot_;
  bool slot_ours_ = false;         ///< this task created or took the slot (may drop it)
  std::set<std::string> warned_;   ///< unsupported-type messages already logged

  uint64_t start_lsn_ = 0;
  // The transaction being streamed.
  bool in_tx_ = false;
  uint32_t xid_ = 0;
  int64_t commit_us_ = 0;
  uint64_t last_commit_ = 0; ///< end LSN of the last transaction fully emitted
  uint64_t last_event_ = 0;  ///< LSN of the last event emitted
  // After a restart in the middle of transaction skip_xid_: its events up to skip_lsn_
  // were emitted already.
  std::optional<uint32_t> skip_xid_;
  uint64_t skip_lsn_ = 0;
  bool skipping_ = false;
  std::string held_; ///< a frame whose records did not fit the last batch

  uint64_t received_ = 0;  ///< the server's WAL end as last reported
  uint64_t confirmed_ = 0; ///< what Kafka holds: the slot may forget WAL before it
  uint64_t reported_ = 0;  ///< the flush position last sent
  std::chrono::steady_clock::time_point last_status_{}, last_heartbeat_{};
  std::string key_, value_; ///< one record's encoded bytes, reused
};

} // namespace weir::connectors::postgres_cdc
