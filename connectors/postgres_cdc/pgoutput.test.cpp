#include "connectors/postgres_cdc/pgoutput.hpp"

#include <boost/test/unit_test.hpp>

using namespace weir::connectors::postgres_cdc;

namespace {

/// Builds protocol bytes by hand: big-endian integers, NUL-terminated strings.
struct Bytes {
  std::string s;
  Bytes& c(char v) { s += v; return *this; }
  Bytes& n(uint64_t v, int width) {
    for (int i = width - 1; i >= 0; --i)
      s += static_cast<char>((v >> (8 * i)) & 0xff);
    return *this;
  }
  Bytes& str(std::string_view v) { s += v; s += '\0'; return *this; }
  Bytes& text(std::string_view v) { c('t').n(v.size(), 4); s += v; return *this; }
};

} // namespace

BOOST_AUTO_TEST_SUITE(postgres_cdc_pgoutput)

BOOST_AUTO_TEST_CASE(begin_and_commit) {
  auto begin = decode_message(Bytes{}.c('B').n(0x16B374D848, 8).n(757'000'000'123'456, 8).n(555, 4).s);
  auto& b = std::get<Begin>(begin);
  BOOST_TEST(b.final_lsn == 0x16B374D848u);
  BOOST_TEST(b.commit_time == 757'000'000'123'456);
  BOOST_TEST(b.xid == 555u);
  auto commit = decode_message(Bytes{}.c('C').c(0).n(0x100, 8).n(0x180, 8).n(42, 8).s);
  auto& c = std::get<Commit>(commit);
  BOOST_TEST(c.commit_lsn == 0x100u);
  BOOST_TEST(c.end_lsn == 0x180u);
  BOOST_TEST(c.commit_time == 42);
}

BOOST_AUTO_TEST_CASE(relation_columns_and_key_flags) {
  auto m = decode_message(Bytes{}.c('R').n(16385, 4).str("public").str("customers").c('f').n(2, 2)
                            .c(1).str("id").n(23, 4).n(0xffffffff, 4)
                            .c(0).str("price").n(1700, 4).n((10 << 16) + 2 + 4, 4).s);
  auto& r = std::get<Relation>(m);
  BOOST_TEST(r.oid == 16385u);
  BOOST_TEST(r.schema == "public");
  BOOST_TEST(r.table == "customers");
  BOOST_TEST(r.replica_identity == 'f');
  BOOST_REQUIRE(r.columns.size() == 2u);
  BOOST_TEST(r.columns[0].key);
  BOOST_TEST(r.columns[0].name == "id");
  BOOST_TEST(r.columns[0].type_oid == 23u);
  BOOST_TEST(r.columns[0].type_modifier == -1);
  BOOST_TEST(!r.columns[1].key);
  BOOST_TEST(r.columns[1].type_modifier == (10 << 16) + 6);
}

BOOST_AUTO_TEST_CASE(insert_with_null_and_text_cells) {
  // Cells are views into the message: it must outlive them.
  auto bytes = Bytes{}.c('I').n(16385, 4).c('N').n(3, 2).text("1001").c('n').text("Sally").s;
  auto m = decode_message(bytes);
  auto& ins = std::get<Insert>(m);
  BOOST_TEST(ins.relation == 16385u);
  BOOST_REQUIRE(ins.row.cells.size() == 3u);
  BOOST_TEST(ins.row.cells[0].text == "1001");
  BOOST_TEST((ins.row.cells[1].kind == Cell::Kind::Null));
  BOOST_TEST(ins.row.cells[2].text == "Sally");
}

BOOST_AUTO_TEST_CASE(update_with_and_without_old_tuple) {
  auto plain_bytes = Bytes{}.c('U').n(7, 4).c('N').n(2, 2).text("1").c('u').s;
  auto plain = decode_message(plain_bytes);
  auto& u = std::get<Update>(plain);
  BOOST_TEST(!u.old.has_value());
  BOOST_TEST((u.row.cells[1].kind == Cell::Kind::Unchanged));

  auto full_bytes = Bytes{}.c('U').n(7, 4).c('O').n(2, 2).text("1").text("a").c('N').n(2, 2).text("1")
                      .text("b").s;
  auto full = decode_message(full_bytes);
  auto& f = std::get<Update>(full);
  BOOST_REQUIRE(f.old.has_value());
  BOOST_TEST(!f.old_is_key);
  BOOST_TEST(f.old->cells[1].text == "a");
  BOOST_TEST(f.row.cells[1].text == "b");

  auto key = decode_message(Bytes{}.c('U').n(7, 4).c('K').n(2, 2).text("1").c('n')
                              .c('N').n(2, 2).text("2").text("b").s);
  BOOST_TEST(std::get<Update>(key).old_is_key);
}

BOOST_AUTO_TEST_CASE(delete_by_key_or_old_row) {
  auto k_bytes = Bytes{}.c('D').n(7, 4).c('K').n(2, 2).text("9").c('n').s;
  auto k = decode_message(k_bytes);
  BOOST_TEST(std::get<Delete>(k).old_is_key);
  BOOST_TEST(std::get<Delete>(k).old.cells[0].text == "9");
  auto o = decode_message(Bytes{}.c('D').n(7, 4).c('O').n(1, 2).text("9").s);
  BOOST_TEST(!std::get<Delete>(o).old_is_key);
}

BOOST_AUTO_TEST_CASE(truncate_relations_and_options) {
  auto m = decode_message(Bytes{}.c('T').n(2, 4).c(3).n(11, 4).n(12, 4).s);
  auto& t = std::get<Truncate>(m);
  BOOST_TEST(t.cascade);
  BOOST_TEST(t.restart_identity);
  BOOST_TEST((t.relations == std::vector<uint32_t>{11, 12}));
}

BOOST_AUTO_TEST_CASE(origin_and_type_messages_are_ignored) {
  BOOST_TEST(std::get<Ignored>(decode_message(Bytes{}.c('Y').n(1, 4).str("public").str("t").s)).tag == 'Y');
}

BOOST_AUTO_TEST_CASE(malformed_messages_name_what_was_read) {
  auto fails_with = [](const std::string& bytes, const std::string& part) {
    try {
      decode_message(bytes);
    } catch (const ProtocolError& e) {
      return std::string{e.what()}.find(part) != std::string::npos;
    }
    return false;
  };
  BOOST_TEST(fails_with(Bytes{}.c('B').n(1, 4).s, "Begin final LSN"));
  BOOST_TEST(fails_with(Bytes{}.c('I').n(1, 4).c('N').n(1, 2).c('t').n(10, 4).s, "TupleData value"));
  BOOST_TEST(fails_with(Bytes{}.c('I').n(1, 4).c('X').s, "expected K, O or N"));
  BOOST_TEST(fails_with(Bytes{}.c('R').n(1, 4).s, "not NUL-terminated"));
  BOOST_TEST(fails_with("Z", "unknown message tag"));
  BOOST_TEST(fails_with("", "message tag"));
}

BOOST_AUTO_TEST_CASE(tuples_written_for_snapshot_rows_read_back) {
  std::string bytes;
  write_tuple({std::string_view{"42"}, std::nullopt, std::string_view{""}}, bytes);
  std::string_view rest = bytes;
  auto t = read_tuple(rest);
  BOOST_TEST(rest.empty());
  BOOST_TEST(t.bytes.size() == bytes.size());
  BOOST_TEST(t.cells[0].text == "42");
  BOOST_TEST((t.cells[1].kind == Cell::Kind::Null));
  BOOST_TEST((t.cells[2].kind == Cell::Kind::Text));
  BOOST_TEST(t.cells[2].text.empty());
}

BOOST_AUTO_TEST_CASE(stream_frames_and_status_update) {
  auto x_bytes = Bytes{}.c('w').n(0x10, 8).n(0x20, 8).n(5, 8).c('B').s;
  auto x = decode_frame(x_bytes);
  BOOST_TEST(std::get<XLogData>(x).start == 0x10u);
  BOOST_TEST(std::get<XLogData>(x).wal_end == 0x20u);
  BOOST_TEST(std::get<XLogData>(x).payload == "B");
  auto k = decode_frame(Bytes{}.c('k').n(0x30, 8).n(6, 8).c(1).s);
  BOOST_TEST(std::get<Keepalive>(k).wal_end == 0x30u);
  BOOST_TEST(std::get<Keepalive>(k).reply_requested);
  BOOST_CHECK_THROW(decode_frame("q"), ProtocolError);

  auto status = standby_status(0x30, 0x20, 0x20, 99);
  BOOST_TEST(status == Bytes{}.c('r').n(0x30, 8).n(0x20, 8).n(0x20, 8).n(99, 8).c(0).s);
}

BOOST_AUTO_TEST_CASE(lsn_text) {
  BOOST_TEST(format_lsn(0x16B374D848) == "16/B374D848");
  BOOST_TEST(parse_lsn("16/B374D848") == 0x16B374D848u);
  BOOST_TEST(parse_lsn("0/0") == 0u);
  BOOST_CHECK_THROW(parse_lsn("16B374D848"), ProtocolError);
  BOOST_CHECK_THROW(parse_lsn("/1"), ProtocolError);
  BOOST_CHECK_THROW(parse_lsn("1/"), ProtocolError);
  BOOST_CHECK_THROW(parse_lsn("1/x"), ProtocolError);
}

BOOST_AUTO_TEST_CASE(postgres_epoch) {
  BOOST_TEST(to_unix_micros(0) == 946684800LL * 1000000);
  BOOST_TEST(to_postgres_micros(to_unix_micros(123)) == 123);
}

BOOST_AUTO_TEST_SUITE_END()
