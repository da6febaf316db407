#include "runtime/state/standalone_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <sqlite3.h>

#include "runtime/convert/json_text.hpp"

namespace weir::runtime::state {

namespace {

/// A prepared statement for one call; binds text parameters in order.
class Statement {
public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw std::runtime_error(std::string{"state store: "} + sqlite3_errmsg(db));
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement& bind(const std::string& s) {
    sqlite3_bind_text(stmt_, ++index_, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i) {
    sqlite3_bind_int(stmt_, ++index_, i);
    return *this;
  }
  bool step() {
    auto rc = sqlite3_step(stmt_);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
      throw std::runtime_error(std::string{"state store: "} + sqlite3_errmsg(db_));
    return rc == SQLITE_ROW;
  }
  std::string text(int col) {
    auto* p = sqlite3_column_text(stmt_, col);
    return p ? reinterpret_cast<const char*>(p) : "";
  }

private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  int index_ = 0;
};

// The state file holds connector configs, passwords included: only its owner may
// read it. Created 0600 (SQLite gives its -wal and -shm the database's mode), and
// an older file, with its -wal and -shm, is made 0600.
void make_private(const std::string& path) {
  if (path.empty() || path == ":memory:" || path.starts_with("file:")) return;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0 || ::fchmod(fd, 0600) != 0) {
    std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw std::runtime_error("cannot open state file " + path + ": " + why);
  }
  ::close(fd);
  for (const char* suffix : {"-wal", "-shm", "-journal"})
    if (::chmod((path + suffix).c_str(), 0600) != 0 && errno != ENOENT)
      throw std::runtime_error("cannot make state file " + path + suffix + " private: " + std::strerror(errno));
}

} // namespace

StandaloneStore::StandaloneStore(const std::string& path) : path_(path) {
  make_private(path);
  if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
    std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error("cannot open state file " + path + ": " + why);
  }
  sqlite3_busy_timeout(db_, 5000);
  exec("PRAGMA journal_mode=WAL");
  exec("CREATE TABLE IF NOT EXISTS connectors (name TEXT PRIMARY KEY, config TEXT NOT NULL, "
       "state TEXT NOT NULL DEFAULT 'UNASSIGNED')");
  exec("CREATE TABLE IF NOT EXISTS task_status (connector TEXT NOT NULL, task INTEGER NOT NULL, "
       "state TEXT NOT NULL, trace TEXT NOT NULL, PRIMARY KEY (connector, task))");
  exec("CREATE TABLE IF NOT EXISTS source_offsets (connector TEXT NOT NULL, "
       "partition TEXT NOT NULL, offset TEXT NOT NULL, PRIMARY KEY (connector, partition))");
}

StandaloneStore::~StandaloneStore() { sqlite3_close(db_); }

void StandaloneStore::exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string why = err ? err : "unknown error";
    sqlite3_free(err);
    throw std::runtime_error("state file " + path_ + ": " + why);
  }
}

void StandaloneStore::put_connector(const std::string& name,
                                    const std::map<std::string, std::string>& config) {
  std::string json = "{";
  for (const auto& [k, v] : config) {
    if (json.size() > 1)
      json += ',';
    convert::append_json_string(k, json);
    json += ':';
    convert::append_json_string(v, json);
  }
  json += '}';
  Statement{db_, "INSERT INTO connectors (name, config) VALUES (?, ?) "
                 "ON CONFLICT(name) DO UPDATE SET config = excluded.config"}
    .bind(name)
    .bind(json)
    .step();
}

void StandaloneStore::set_connector_status(const std::string& name, const std::string& state) {
  Statement{db_, "UPDATE connectors SET state = ? WHERE name = ?"}.bind(state).bind(name).step();
}

void StandaloneStore::delete_connector(const std::string& name) {
  Statement{db_, "DELETE FROM connectors WHERE name = ?"}.bind(name).step();
  Statement{db_, "DELETE FROM task_status WHERE connector = ?"}.bind(name).step();
}

void StandaloneStore::set_task_status(const std::string& connector, int task,
                                      const std::string& state, const std::string& trace) {
  Statement{db_, "INSERT INTO task_status VALUES (?, ?, ?, ?) ON CONFLICT(connector, task) "
                 "DO UPDATE SET state = excluded.state, trace = excluded.trace"}
    .bind(connector)
    .bind(task)
    .bind(state)
    .bind(trace)
    .step();
}

void StandaloneStore::put_source_offsets(const std::string& connector,
                                         const std::map<std::string, std::string>& offsets) {
  if (offsets.empty())
    return;
  exec("BEGIN IMMEDIATE");
  try {
    for (const auto& [partition, offset] : offsets)
      Statement{db_, "INSERT INTO source_offsets VALUES (?, ?, ?) ON CONFLICT(connector, "
                     "partition) DO UPDATE SET offset = excluded.offset"}
        .bind(connector)
        .bind(partition)
        .bind(offset)
        .step();
    exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

void StandaloneStore::delete_source_offsets(const std::string& connector,
                                            const std::vector<std::string>& partitions) {
  if (partitions.empty()) {
    Statement{db_, "DELETE FROM source_offsets WHERE connector = ?"}.bind(connector).step();
    return;
  }
  for (const auto& partition : partitions)
    Statement{db_, "DELETE FROM source_offsets WHERE connector = ? AND partition = ?"}
      .bind(connector)
      .bind(partition)
      .step();
}

std::map<std::string, std::string> StandaloneStore::source_offsets(const std::string& connector) {
  Statement s{db_, "SELECT partition, offset FROM source_offsets WHERE connector = ?"};
  s.bind(connector);
  std::map<std::string, std::string> out;
  while (s.step())
    out.emplace(s.text(0), s.text(1));
  return out;
}

std::string StandaloneStore::task_state(const std::string& connector, int task,
                                        std::string* trace) {
  Statement s{db_, "SELECT state, trace FROM task_status WHERE connector = ? AND task = ?"};
  s.bind(connector).bind(task);
  if (!s.step())
    return "";
  if (trace)
    *trace = s.text(1);
  return s.text(0);
}

} // namespace weir::runtime::state
