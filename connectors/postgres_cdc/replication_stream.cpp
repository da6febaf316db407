#include "connectors/postgres_cdc/replication_stream.hpp"

#include <libpq-fe.h>
#include <poll.h>

#include <stdexcept>

namespace weir::connectors::postgres_cdc {

namespace {

std::string trimmed(const char* message) {
  std::string s = message ? message : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' '))
    s.pop_back();
  return s;
}

} // namespace

PgResult::~PgResult() { PQclear(r_); }
int PgResult::rows() const noexcept { return PQntuples(r_); }
int PgResult::columns() const noexcept { return PQnfields(r_); }
bool PgResult::null(int row, int column) const noexcept { return PQgetisnull(r_, row, column) != 0; }
std::string_view PgResult::text(int row, int column) const noexcept {
  return {PQgetvalue(r_, row, column), static_cast<size_t>(PQgetlength(r_, row, column))};
}
std::string PgResult::column_name(int column) const { return PQfname(r_, column); }

PgConnection::PgConnection(const std::vector<std::pair<std::string, std::string>>& keywords) {
  std::vector<const char*> keys, values;
  for (const auto& [k, v] : keywords) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
    if (k == "host" || k == "port" || k == "dbname" || k == "user")
      where_ += (where_.empty() ? "" : " ") + k + "=" + v;
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  conn_ = PQconnectdbParams(keys.data(), values.data(), 0);
  if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
    std::string why = conn_ ? trimmed(PQerrorMessage(conn_)) : "out of memory";
    PQfinish(conn_);
    conn_ = nullptr;
    throw std::runtime_error("PostgresConnector: cannot connect to " + where_ + ": " + why);
  }
  PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);
}

PgConnection::~PgConnection() {
  if (frame_)
    PQfreemem(frame_);
  PQfinish(conn_);
}

PgResult PgConnection::checked(PGresult* r, const std::string& what) {
  auto status = PQresultStatus(r);
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    std::string why = trimmed(r ? PQresultErrorMessage(r) : PQerrorMessage(conn_));
    PQclear(r);
    throw std::runtime_error("PostgresConnector: " + what + ": " + why);
  }
  return PgResult{r};
}

PgResult PgConnection::exec(const std::string& sql, const std::string& what) {
  // The simple protocol: replication commands do not take the extended one.
  return checked(PQexec(conn_, sql.c_str()), what);
}

PgResult PgConnection::exec(const std::string& sql, const std::vector<std::string>& params,
                            const std::string& what) {
  std::vector<const char*> values;
  for (const auto& p : params)
    values.push_back(p.c_str());
  return checked(PQexecParams(conn_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                              nullptr, nullptr, 0),
                 what);
}

std::string PgConnection::escaped(char* quoted) const {
  if (!quoted)
    throw std::runtime_error("PostgresConnector: cannot quote: " + trimmed(PQerrorMessage(conn_)));
  std::string out{quoted};
  PQfreemem(quoted);
  return out;
}

std::string PgConnection::literal(std::string_view s) const {
  return escaped(PQescapeLiteral(conn_, s.data(), s.size()));
}

std::string PgConnection::identifier(std::string_view s) const {
  return escaped(PQescapeIdentifier(conn_, s.data(), s.size()));
}

void PgConnection::start_replication(const std::string& slot, uint64_t lsn, const std::string& publication) {
  char position[40];
  std::snprintf(position, sizeof position, "%X/%X", static_cast<unsigned>(lsn >> 32),
                static_cast<unsigned>(lsn & 0xffffffffu));
  // publication_names is itself a list of identifiers inside a string literal.
  auto sql = "START_REPLICATION SLOT " + identifier(slot) + " LOGICAL " + position
             + " (proto_version '1', publication_names " + literal(identifier(publication)) + ")";
  PGresult* r = PQexec(conn_, sql.c_str());
  auto status = PQresultStatus(r);
  std::string why = trimmed(r ? PQresultErrorMessage(r) : PQerrorMessage(conn_));
  PQclear(r);
  if (status != PGRES_COPY_BOTH)
    throw std::runtime_error("PostgresConnector: starting replication from slot " + slot + " at "
                             + position + ": " + why);
}

std::optional<std::string_view> PgConnection::next_frame(std::chrono::milliseconds wait) {
  if (frame_) {
    PQfreemem(frame_);
    frame_ = nullptr;
  }
  for (int round = 0; round < 2; ++round) {
    int n = PQgetCopyData(conn_, &frame_, 1);
    if (n > 0)
      return std::string_view{frame_, static_cast<size_t>(n)};
    if (n == -1) {
      PGresult* r = PQgetResult(conn_);
      std::string why = trimmed(r ? PQresultErrorMessage(r) : PQerrorMessage(conn_));
      PQclear(r);
      throw std::runtime_error("PostgresConnector: the replication stream from " + where_
                               + " ended" + (why.empty() ? "" : ": " + why));
    }
    if (n == -2)
      throw std::runtime_error("PostgresConnector: reading the replication stream from " + where_
                               + ": " + trimmed(PQerrorMessage(conn_)));
    if (round == 1)
      break;
    // Nothing buffered: wait for the socket, then read what arrived.
    pollfd fd{PQsocket(conn_), POLLIN, 0};
    if (::poll(&fd, 1, static_cast<int>(wait.count())) <= 0)
      return std::nullopt;
    if (PQconsumeInput(conn_) == 0)
      throw std::runtime_error("PostgresConnector: reading the replication stream from " + where_
                               + ": " + trimmed(PQerrorMessage(conn_)));
  }
  return std::nullopt;
}

void PgConnection::send_status(const std::string& message) {
  if (PQputCopyData(conn_, message.data(), static_cast<int>(message.size())) != 1 || PQflush(conn_) != 0)
    throw std::runtime_error("PostgresConnector: sending a status update to " + where_ + ": "
                             + trimmed(PQerrorMessage(conn_)));
}

} // namespace weir::connectors::postgres_cdc
