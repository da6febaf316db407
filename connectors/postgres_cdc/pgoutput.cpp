#include "connectors/postgres_cdc/pgoutput.hpp"

#include <charconv>
#include <cstdio>

namespace weir::connectors::postgres_cdc {

namespace {

/// Reads big-endian fields off the front of a message, naming what it reads when
/// the bytes run out.
class Reader {
public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}

  uint64_t uint(size_t n, const char* what) {
    need(n, what);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i)
      v = (v << 8) | static_cast<unsigned char>(rest_[i]);
    rest_.remove_prefix(n);
    return v;
  }
  uint8_t u8(const char* what) { return static_cast<uint8_t>(uint(1, what)); }
  uint16_t u16(const char* what) { return static_cast<uint16_t>(uint(2, what)); }
  uint32_t u32(const char* what) { return static_cast<uint32_t>(uint(4, what)); }
  uint64_t u64(const char* what) { return uint(8, what); }
  int64_t i64(const char* what) { return static_cast<int64_t>(uint(8, what)); }

  /// A NUL-terminated string.
  std::string cstring(const char* what) {
    auto end = rest_.find('\0');
    if (end == std::string_view::npos)
      throw ProtocolError(std::string{"pgoutput: "} + what + " is not NUL-terminated");
    std::string s{rest_.substr(0, end)};
    rest_.remove_prefix(end + 1);
    return s;
  }

  std::string_view& rest() noexcept { return rest_; }

private:
  void need(size_t n, const char* what) const {
    if (rest_.size() < n)
      throw ProtocolError(std::string{"pgoutput: message ends inside "} + what);
  }
  std::string_view rest_;
};

void put(std::string& out, uint64_t v, size_t n) {
  for (size_t i = n; i-- > 0;)
    out += static_cast<char>((v >> (8 * i)) & 0xff);
}

/// 'K' (key), 'O' (old row) or 'N' (new row) before a TupleData.
char tuple_tag(Reader& r, const char* what) {
  char tag = static_cast<char>(r.u8(what));
  if (tag != 'K' && tag != 'O' && tag != 'N')
    throw ProtocolError(std::string{"pgoutput: "} + what + ": expected K, O or N, found 0x"
                        + std::to_string(static_cast<unsigned char>(tag)));
  return tag;
}

} // namespace

Tuple read_tuple(std::string_view& bytes) {
  Reader r{bytes};
  const char* start = bytes.data();
  Tuple t;
  auto n = r.u16("TupleData column count");
  t.cells.reserve(n);
  for (uint16_t i = 0; i < n; ++i) {
    Cell c;
    char kind = static_cast<char>(r.u8("TupleData column kind"));
    switch (kind) {
      case 'n': c.kind = Cell::Kind::Null; break;
      case 'u': c.kind = Cell::Kind::Unchanged; break;
      case 't': {
        c.kind = Cell::Kind::Text;
        auto len = r.u32("TupleData value length");
        if (r.rest().size() < len)
          throw ProtocolError("pgoutput: message ends inside a TupleData value");
        c.text = r.rest().substr(0, len);
        r.rest().remove_prefix(len);
        break;
      }
      default:
        // 'b' (binary) exists only with the binary option, which weir never asks for.
        throw ProtocolError("pgoutput: unknown TupleData column kind 0x"
                            + std::to_string(static_cast<unsigned char>(kind)));
    }
    t.cells.push_back(c);
  }
  t.bytes = {start, static_cast<size_t>(r.rest().data() - start)};
  bytes = r.rest();
  return t;
}

void write_tuple(const std::vector<std::optional<std::string_view>>& cells, std::string& out) {
  put(out, cells.size(), 2);
  for (const auto& c : cells) {
    if (!c) {
      out += 'n';
      continue;
    }
    out += 't';
    put(out, c->size(), 4);
    out += *c;
  }
}

Message decode_message(std::string_view bytes) {
  Reader r{bytes};
  char tag = static_cast<char>(r.u8("message tag"));
  switch (tag) {
    case 'B': {
      Begin b;
      b.final_lsn = r.u64("Begin final LSN");
      b.commit_time = r.i64("Begin commit time");
      b.xid = r.u32("Begin xid");
      return b;
    }
    case 'C': {
      Commit c;
      r.u8("Commit flags");
      c.commit_lsn = r.u64("Commit LSN");
      c.end_lsn = r.u64("Commit end LSN");
      c.commit_time = r.i64("Commit time");
      return c;
    }
    case 'R': {
      Relation rel;
      rel.oid = r.u32("Relation oid");
      rel.schema = r.cstring("Relation namespace");
      rel.table = r.cstring("Relation name");
      rel.replica_identity = static_cast<char>(r.u8("Relation replica identity"));
      auto n = r.u16("Relation column count");
      for (uint16_t i = 0; i < n; ++i) {
        RelationColumn c;
        c.key = (r.u8("Relation column flags") & 1) != 0;
        c.name = r.cstring("Relation column name");
        c.type_oid = r.u32("Relation column type");
        c.type_modifier = static_cast<int32_t>(r.u32("Relation column type modifier"));
        rel.columns.push_back(std::move(c));
      }
      return rel;
    }
    case 'I': {
      Insert ins;
      ins.relation = r.u32("Insert relation");
      if (tuple_tag(r, "Insert") != 'N')
        throw ProtocolError("pgoutput: Insert without a new tuple");
      ins.row = read_tuple(r.rest());
      return ins;
    }
    case 'U': {
      Update up;
      up.relation = r.u32("Update relation");
      char t = tuple_tag(r, "Update");
      if (t != 'N') {
        up.old_is_key = t == 'K';
        up.old = read_tuple(r.rest());
        if (tuple_tag(r, "Update new tuple") != 'N')
          throw ProtocolError("pgoutput: Update without a new tuple");
      }
      up.row = read_tuple(r.rest());
      return up;
    }
    case 'D': {
      Delete del;
      del.relation = r.u32("Delete relation");
      char t = tuple_tag(r, "Delete");
      if (t == 'N')
        throw ProtocolError("pgoutput: Delete with a new tuple");
      del.old_is_key = t == 'K';
      del.old = read_tuple(r.rest());
      return del;
    }
    case 'T': {
      Truncate tr;
      auto n = r.u32("Truncate relation count");
      auto options = r.u8("Truncate options");
      tr.cascade = (options & 1) != 0;
      tr.restart_identity = (options & 2) != 0;
      for (uint32_t i = 0; i < n; ++i)
        tr.relations.push_back(r.u32("Truncate relation"));
      return tr;
    }
    case 'O':
    case 'Y':
    case 'M': return Ignored{tag};
    default:
      throw ProtocolError("pgoutput: unknown message tag 0x"
                          + std::to_string(static_cast<unsigned char>(tag)));
  }
}

Frame decode_frame(std::string_view bytes) {
  Reader r{bytes};
  char tag = static_cast<char>(r.u8("replication frame tag"));
  if (tag == 'w') {
    XLogData x;
    x.start = r.u64("XLogData start");
    x.wal_end = r.u64("XLogData end");
    x.send_time = r.i64("XLogData send time");
    x.payload = r.rest();
    return x;
  }
  if (tag == 'k') {
    Keepalive k;
    k.wal_end = r.u64("keepalive WAL end");
    k.send_time = r.i64("keepalive send time");
    k.reply_requested = r.u8("keepalive reply flag") != 0;
    return k;
  }
  throw ProtocolError("pgoutput: unknown replication frame tag 0x"
                      + std::to_string(static_cast<unsigned char>(tag)));
}

std::string standby_status(uint64_t written, uint64_t flushed, uint64_t applied, int64_t now,
                           bool reply_requested) {
  std::string out;
  out += 'r';
  put(out, written, 8);
  put(out, flushed, 8);
  put(out, applied, 8);
  put(out, static_cast<uint64_t>(now), 8);
  out += static_cast<char>(reply_requested ? 1 : 0);
  return out;
}

std::string format_lsn(uint64_t lsn) {
  char text[32];
  std::snprintf(text, sizeof text, "%X/%X", static_cast<unsigned>(lsn >> 32),
                static_cast<unsigned>(lsn & 0xffffffffu));
  return text;
}

uint64_t parse_lsn(std::string_view text) {
  auto slash = text.find('/');
  uint32_t hi = 0, lo = 0;
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == text.size()
      || std::from_chars(text.data(), text.data() + slash, hi, 16).ptr != text.data() + slash
      || std::from_chars(text.data() + slash + 1, text.data() + text.size(), lo, 16).ptr
           != text.data() + text.size())
    throw ProtocolError("not an LSN: '" + std::string{text} + "'");
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

} // namespace weir::connectors::postgres_cdc
