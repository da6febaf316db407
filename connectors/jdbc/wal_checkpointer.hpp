// Background checkpoints for a SQLite database in WAL mode.
//
// A WAL database's commits append pages to the write-ahead log; a checkpoint copies
// them back into the database file and syncs it. SQLite runs that copy inside the
// COMMIT that pushes the log past 1,000 pages, so the writer stops for it, fsync
// included: the JDBC sink spent about a fifth of its time there. WalCheckpointer
// runs the copies on a thread of its own, over its own connection, while the writer
// goes on committing. The writer calls on_commit() with the log's size after each
// commit (SQLite's WAL hook); once the log is past `pages`, the thread is woken. The
// log restarts from its beginning only when a checkpoint has copied all of it, which
// a busy writer outruns: past `pages * 4`, on_commit() finishes the copy on the
// writer's connection (only the few pages the thread had not copied yet). That copy
// finds the checkpoint lock taken while the thread is copying, and a thread that
// the machine's load keeps off the CPU mid-copy would let the log grow with every
// commit (to 16-28 MB where 3 MB was usual): past `pages * 8`, the writer waits for
// the thread's copy to end before its own, which bounds the log.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

struct sqlite3;

namespace weir::connectors::jdbc {

class WalCheckpointer {
public:
  /// Checkpoints the database at `path`, opened with `open_flags` as the writer
  /// opened it, once the log holds `pages` pages (SQLite's default is 1,000).
  WalCheckpointer(std::string path, int open_flags, int pages = 1000);
  /// Stops the thread (a checkpoint under way completes first).
  ~WalCheckpointer();

  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  /// Installs this as `writer`'s WAL hook (replacing SQLite's automatic checkpoint).
  void attach(sqlite3* writer);

  /// Checkpoints completed by the thread, and by the writer itself.
  uint64_t background_checkpoints() const noexcept { return background_.load(); }
  uint64_t writer_checkpoints() const noexcept { return on_writer_; }

private:
  static int on_commit(void* self, sqlite3* writer, const char* schema, int pages);
  /// Returns once the thread is not copying.
  void wait_for_copy();
  void run();

  std::string path_;
  int flags_;
  int pages_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable copied_;
  bool requested_ = false;
  bool stopping_ = false;
  bool copying_ = false; ///< the thread holds SQLite's checkpoint lock
  std::atomic<uint64_t> background_{0};
  uint64_t on_writer_ = 0;
  std::thread thread_;
};

} // namespace weir::connectors::jdbc
