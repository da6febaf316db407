// A libpq connection in logical replication mode (`replication=database`): creates the
// slot (exporting its snapshot), starts pgoutput streaming from an LSN, hands out the
// CopyData frames without blocking for long, and sends standby status updates.
//
// Also the plain SQL connection the task needs beside it (catalog, snapshot): both are
// a PgConnection; only the replication one runs replication commands.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;

namespace weir::connectors::postgres_cdc {

/// A query's result; rows and columns as text.
class PgResult {
public:
  explicit PgResult(PGresult* r) noexcept : r_(r) {}
  ~PgResult();
  PgResult(PgResult&& o) noexcept : r_(std::exchange(o.r_, nullptr)) {}
  PgResult& operator=(PgResult&&) = delete;

  int rows() const noexcept;
  int columns() const noexcept;
  bool null(int row, int column) const noexcept;
  std::string_view text(int row, int column) const noexcept;
  std::string column_name(int column) const;

private:
  PGresult* r_;
};

class PgConnection {
public:
  /// Connects; throws std::runtime_error naming host, port, database and user (never
  /// the password) and libpq's reason.
  explicit PgConnection(const std::vector<std::pair<std::string, std::string>>& keywords);
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  /// Runs a command or query; throws std::runtime_error with `what` and the
  /// server's message.
  PgResult exec(const std::string& sql, const std::string& what);
  /// The same with text parameters ($1, $2, ...).
  PgResult exec(const std::string& sql, const std::vector<std::string>& params, const std::string& what);

  /// SQL literal / identifier quoting.
  std::string literal(std::string_view s) const;
  std::string identifier(std::string_view s) const;

  /// Starts logical streaming; afterwards only frames and statuses go over it.
  void start_replication(const std::string& slot, uint64_t lsn, const std::string& publication);
  /// The next CopyData frame, waiting at most `wait` for one; std::nullopt when none
  /// came. Throws std::runtime_error when the stream ends or fails. The view is valid
  /// until the next call.
  std::optional<std::string_view> next_frame(std::chrono::milliseconds wait);
  /// Sends a standby status update (flushes it).
  void send_status(const std::string& message);

  PGconn* raw() const noexcept { return conn_; }
  const std::string& where() const noexcept { return where_; }

private:
  /// `r` when it succeeded; otherwise throws with `what` and the server's message.
  PgResult checked(PGresult* r, const std::string& what);
  /// libpq's escaped text, freed.
  std::string escaped(char* quoted) const;

  PGconn* conn_ = nullptr;
  std::string where_;
  char* frame_ = nullptr; ///< libpq's buffer of the last frame
};

} // namespace weir::connectors::postgres_cdc
