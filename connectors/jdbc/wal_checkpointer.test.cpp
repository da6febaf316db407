#include "connectors/jdbc/wal_checkpointer.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <sqlite3.h>

using weir::connectors::jdbc::WalCheckpointer;

namespace {

constexpr int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;

// A WAL database in a fresh directory, with a writer connection and a table of
// 100-byte texts.
struct WalDb {
  std::filesystem::path dir;
  sqlite3* db = nullptr;
  sqlite3_stmt* insert = nullptr;
  int64_t next = 0;

  WalDb() {
    char tmpl[] = "/tmp/weir-wal-XXXXXX";
    dir = ::mkdtemp(tmpl);
    BOOST_REQUIRE(sqlite3_open_v2(path().c_str(), &db, flags, nullptr) == SQLITE_OK);
    exec("PRAGMA journal_mode=WAL");
    exec("PRAGMA synchronous=NORMAL");
    exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    BOOST_REQUIRE(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?1, ?2)", -1, &insert, nullptr) == SQLITE_OK);
  }
  ~WalDb() {
    close();
    std::filesystem::remove_all(dir);
  }
  std::string path() const { return (dir / "t.db").string(); }
  std::filesystem::path wal() const { return dir / "t.db-wal"; }

  void close() {
    sqlite3_finalize(insert);
    insert = nullptr;
    if (db) sqlite3_close_v2(db);
    db = nullptr;
  }
  void exec(const char* sql) { BOOST_REQUIRE(sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK); }

  // One transaction of `rows` rows.
  void commit_rows(int rows) {
    static const std::string text(100, 'x');
    exec("BEGIN");
    for (int i = 0; i < rows; ++i) {
      sqlite3_bind_int64(insert, 1, next++);
      sqlite3_bind_text(insert, 2, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
      BOOST_REQUIRE(sqlite3_step(insert) == SQLITE_DONE);
      sqlite3_reset(insert);
    }
    exec("COMMIT");
  }

  int64_t count() {
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &s, nullptr);
    sqlite3_step(s);
    auto n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return n;
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(wal_checkpointer)

BOOST_AUTO_TEST_CASE(the_thread_checkpoints_once_the_log_passes_its_size) {
  WalDb t;
  WalCheckpointer c(t.path(), flags, 100);
  c.attach(t.db);
  // ~4 KB pages, ~35 rows each: 120 pages in the log, below the writer's own limit.
  t.commit_rows(4000);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (c.background_checkpoints() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  BOOST_TEST(c.background_checkpoints() >= 1u);
  BOOST_TEST(c.writer_checkpoints() == 0u);
}

BOOST_AUTO_TEST_CASE(a_busy_writer_keeps_the_log_bounded_and_loses_no_row) {
  WalDb t;
  {
    WalCheckpointer c(t.path(), flags, 100);
    c.attach(t.db);
    for (int i = 0; i < 300; ++i)
      t.commit_rows(1000); // ~30 MB in all
    BOOST_TEST_MESSAGE("checkpoints: " << c.background_checkpoints() << " by the thread, "
                                       << c.writer_checkpoints() << " by the writer");
    BOOST_TEST(c.background_checkpoints() + c.writer_checkpoints() >= 1u);
    // Restarted whenever a checkpoint copied it all: about 4 x 100 pages of 4 KB and
    // the transactions (~30 pages each) committed while a checkpoint was copying,
    // where without checkpoints it would hold every page written (~30 MB). How many
    // transactions fall in a copy depends on how the two threads are scheduled (on
    // a quiet machine the file stayed under 2 MB), but past 8 x 100 pages (~3.3 MB)
    // the writer waits for the thread's copy: 8 MB tells bounded from unbounded.
    BOOST_TEST_MESSAGE("log file: " << std::filesystem::file_size(t.wal()) << " bytes");
    BOOST_TEST(std::filesystem::file_size(t.wal()) < 8'000'000u);
  }
  BOOST_TEST(t.count() == 300'000);
  // The thread's connection is closed: the writer's is the last, and closing it
  // checkpoints and removes the log.
  t.close();
  BOOST_TEST(!std::filesystem::exists(t.wal()));
}

BOOST_AUTO_TEST_SUITE_END()
