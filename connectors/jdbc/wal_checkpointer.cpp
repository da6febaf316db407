#include "connectors/jdbc/wal_checkpointer.hpp"

#include <pthread.h>

#include <spdlog/spdlog.h>
#include <sqlite3.h>

namespace weir::connectors::jdbc {

WalCheckpointer::WalCheckpointer(std::string path, int open_flags, int pages)
    : path_(std::move(path)), flags_(open_flags), pages_(pages), thread_([this] { run(); }) {}

WalCheckpointer::~WalCheckpointer() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

void WalCheckpointer::attach(sqlite3* writer) { sqlite3_wal_hook(writer, &WalCheckpointer::on_commit, this); }

int WalCheckpointer::on_commit(void* self, sqlite3* writer, const char* schema, int pages) {
  auto& c = *static_cast<WalCheckpointer*>(self);
  if (pages >= c.pages_ * 4) {
    // PASSIVE never waits: when the thread is copying at this moment, the next
    // commit tries again, up to the hard bound.
    if (pages >= c.pages_ * 8)
      c.wait_for_copy();
    int log = -1;
    if (sqlite3_wal_checkpoint_v2(writer, schema, SQLITE_CHECKPOINT_PASSIVE, &log, nullptr) == SQLITE_OK && log >= 0)
      ++c.on_writer_;
  } else if (pages >= c.pages_) {
    {
      std::lock_guard lock(c.mutex_);
      c.requested_ = true;
    }
    c.wake_.notify_one();
  }
  return SQLITE_OK; // a failed checkpoint is retried later; the commit stands
}

void WalCheckpointer::wait_for_copy() {
  std::unique_lock lock(mutex_);
  copied_.wait(lock, [&] { return !copying_; });
}

void WalCheckpointer::run() {
  pthread_setname_np(pthread_self(), "weir.checkpoint"); // as top and perf show it
  sqlite3* db = nullptr;
  // A connection sees the log only once it has read the database.
  if (sqlite3_open_v2(path_.c_str(), &db, flags_ & ~SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK
      || sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr) != SQLITE_OK) {
    // The writer's own checkpoints (past pages * 4) still bound the log.
    spdlog::warn("jdbc sink: no background checkpoints for SQLite database {}: {}", path_, sqlite3_errmsg(db));
    sqlite3_close_v2(db);
    return;
  }
  bool warned = false;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return requested_ || stopping_; });
      if (stopping_) break;
      requested_ = false;
      copying_ = true;
    }
    int log = -1;
    int rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log, nullptr);
    {
      std::lock_guard lock(mutex_);
      copying_ = false;
    }
    copied_.notify_all();
    if (rc == SQLITE_OK && log >= 0) ++background_;
    if (rc != SQLITE_OK && rc != SQLITE_BUSY && !warned) {
      warned = true; // once: the writer's own checkpoints keep the log bounded
      spdlog::warn("jdbc sink: background checkpoint of SQLite database {} failed: {}", path_, sqlite3_errmsg(db));
    }
  }
  sqlite3_close_v2(db);
}

} // namespace weir::connectors::jdbc
