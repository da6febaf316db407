// Where the integration tests find the real PostgreSQL server, and a small libpq
// client to look into it.
#pragma once

#include <boost/test/unit_test.hpp>

#include <libpq-fe.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace weir::testing {

/// The server's libpq URL from WEIR_POSTGRES_URL (scripts/test.sh sets it from
/// scripts/postgres.sh). Fails the calling test when it is missing: an integration
/// test never skips.
inline std::string postgres_url() {
  const char* url = std::getenv("WEIR_POSTGRES_URL");
  BOOST_REQUIRE_MESSAGE(url && *url,
                        "WEIR_POSTGRES_URL is not set: this test needs a real PostgreSQL server "
                        "(scripts/postgres.sh start prints its URL; export it as WEIR_POSTGRES_URL, "
                        "or run scripts/test.sh)");
  return url;
}

/// The sink's connection keys for the server: `postgresql://user:password@host:port/db`
/// -> connection.url=jdbc:postgresql://host:port/db, connection.user, connection.password.
inline std::map<std::string, std::string> postgres_sink_keys() {
  static const std::regex url(R"(postgresql://([^:@/]+):([^@/]*)@([^/]+)/(.+))");
  std::smatch m;
  const std::string text = postgres_url();
  BOOST_REQUIRE_MESSAGE(std::regex_match(text, m, url),
                        "WEIR_POSTGRES_URL is not postgresql://user:password@host:port/database");
  return {{"connection.url", "jdbc:postgresql://" + m[3].str() + "/" + m[4].str()},
          {"connection.user", m[1].str()},
          {"connection.password", m[2].str()}};
}

/// One libpq connection to the test server.
class Postgres {
public:
  Postgres() : conn_(PQconnectdb(postgres_url().c_str())) {
    BOOST_REQUIRE_MESSAGE(PQstatus(conn_) == CONNECTION_OK, "cannot connect: " << PQerrorMessage(conn_));
  }
  ~Postgres() { PQfinish(conn_); }
  Postgres(const Postgres&) = delete;
  Postgres& operator=(const Postgres&) = delete;

  /// Runs `sql` (several statements allowed); fails the test on error.
  void exec(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    auto status = PQresultStatus(r);
    std::string error = PQresultErrorMessage(r);
    PQclear(r);
    BOOST_REQUIRE_MESSAGE(status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK, sql << ": " << error);
  }

  /// A query's rows as text: columns joined by '|', rows by ';', NULL as "NULL".
  std::string rows(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    std::string out;
    if (PQresultStatus(r) != PGRES_TUPLES_OK) {
      out = std::string("error: ") + PQresultErrorMessage(r);
    } else {
      for (int i = 0; i < PQntuples(r); ++i) {
        if (i != 0) out += ';';
        for (int c = 0; c < PQnfields(r); ++c) {
          if (c != 0) out += '|';
          out += PQgetisnull(r, i, c) ? "NULL" : PQgetvalue(r, i, c);
        }
      }
    }
    PQclear(r);
    return out;
  }

  /// The first column of the first row as a number; `missing` when the query fails
  /// (a table not created yet) or gives no row or NULL.
  int64_t scalar(const std::string& sql, int64_t missing = -1) {
    PGresult* r = PQexec(conn_, sql.c_str());
    int64_t v = missing;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
      v = std::stoll(PQgetvalue(r, 0, 0));
    PQclear(r);
    return v;
  }

private:
  PGconn* conn_;
};

} // namespace weir::testing
