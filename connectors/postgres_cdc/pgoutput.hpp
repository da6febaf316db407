// The messages of PostgreSQL's `pgoutput` logical decoding plugin, protocol version 1
// (PostgreSQL's "Logical Replication Message Formats"), and the replication stream's
// CopyData frames around them (XLogData 'w', primary keepalive 'k'). Decoding only:
// no libpq, so every message is tested on hand-made bytes.
//
// Integers are big-endian. Timestamps are microseconds since 2000-01-01 UTC, as the
// server sends them; to_unix_micros() moves them to the Unix epoch.
//
// Views (names, column values) point into the message bytes given to the decoder:
// they are valid while those bytes are.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace weir::connectors::postgres_cdc {

/// A malformed message: too short, an unknown tag where one is required. The
/// message names what was being read.
class ProtocolError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// One column value of a TupleData: null, an unchanged TOASTed value (not sent), or
/// its text form.
struct Cell {
  enum class Kind : char { Null = 'n', Unchanged = 'u', Text = 't' };
  Kind kind = Kind::Null;
  std::string_view text;
};

/// A TupleData: its cells and the bytes it was read from (self-delimiting, so a
/// tuple can be stored as these bytes and read again with read_tuple).
struct Tuple {
  std::vector<Cell> cells;
  std::string_view bytes;
};

struct Begin {
  uint64_t final_lsn = 0;
  int64_t commit_time = 0; ///< µs since 2000-01-01
  uint32_t xid = 0;
};

struct Commit {
  uint64_t commit_lsn = 0;
  uint64_t end_lsn = 0;
  int64_t commit_time = 0;
};

struct RelationColumn {
  bool key = false; ///< part of the replica identity
  std::string name;
  uint32_t type_oid = 0;
  int32_t type_modifier = -1;
};

struct Relation {
  uint32_t oid = 0;
  std::string schema; ///< namespace; "pg_catalog" is sent as ""
  std::string table;
  char replica_identity = 'd'; ///< d default, n nothing, f full, i index
  std::vector<RelationColumn> columns;
};

struct Insert {
  uint32_t relation = 0;
  Tuple row;
};

/// `old` is absent unless the key changed or the table has REPLICA IDENTITY FULL;
/// `old_is_key` says it holds only the identity columns ('K'), others null.
struct Update {
  uint32_t relation = 0;
  std::optional<Tuple> old;
  bool old_is_key = false;
  Tuple row;
};

struct Delete {
  uint32_t relation = 0;
  Tuple old;
  bool old_is_key = true;
};

struct Truncate {
  std::vector<uint32_t> relations;
  bool cascade = false;
  bool restart_identity = false;
};

/// Messages weir does not act on (Origin, Type, logical Message).
struct Ignored {
  char tag = 0;
};

using Message = std::variant<Begin, Commit, Relation, Insert, Update, Delete, Truncate, Ignored>;

/// Decodes one pgoutput message. Throws ProtocolError for malformed bytes or a tag
/// protocol version 1 does not have.
Message decode_message(std::string_view bytes);

/// Reads a TupleData from the start of `bytes`; `bytes` is advanced past it.
Tuple read_tuple(std::string_view& bytes);

/// Appends a TupleData of text cells (std::nullopt for NULL): how snapshot rows are
/// stored in the same form as streamed ones.
void write_tuple(const std::vector<std::optional<std::string_view>>& cells, std::string& out);

/// The replication stream's CopyData frames.
struct XLogData {
  uint64_t start = 0;
  uint64_t wal_end = 0;
  int64_t send_time = 0;
  std::string_view payload; ///< one pgoutput message
};
struct Keepalive {
  uint64_t wal_end = 0;
  int64_t send_time = 0;
  bool reply_requested = false;
};
using Frame = std::variant<XLogData, Keepalive>;

/// Decodes a CopyData frame from the server; throws ProtocolError.
Frame decode_frame(std::string_view bytes);

/// A Standby status update ('r'): `written`, `flushed` and `applied` positions, the
/// client clock in µs since 2000-01-01.
std::string standby_status(uint64_t written, uint64_t flushed, uint64_t applied, int64_t now,
                           bool reply_requested = false);

/// µs since 2000-01-01 <-> since 1970-01-01.
constexpr int64_t postgres_epoch_offset_us = 946684800LL * 1000000;
inline int64_t to_unix_micros(int64_t postgres_micros) noexcept {
  return postgres_micros + postgres_epoch_offset_us;
}
inline int64_t to_postgres_micros(int64_t unix_micros) noexcept {
  return unix_micros - postgres_epoch_offset_us;
}

/// `16/B374D848` <-> 64-bit LSN; parse_lsn throws ProtocolError for bad text.
std::string format_lsn(uint64_t lsn);
uint64_t parse_lsn(std::string_view text);

} // namespace weir::connectors::postgres_cdc
