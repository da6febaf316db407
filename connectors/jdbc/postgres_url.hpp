// A PgJDBC connection URL read as PgJDBC reads it, turned into libpq's connection
// keywords (for PQconnectdbParams).
//
//   jdbc:postgresql://host[:port][,host2[:port2]...][/database][?key=value&...]
//
// Hosts may be names, IPv4 or [IPv6] addresses; a host without a port gets 5432, no
// host at all means localhost. The database and parameter values are percent-decoded.
// Parameters with a libpq equivalent are translated:
//   user, password, sslmode, sslrootcert, sslcert, sslkey   the same keyword
//   connectTimeout (s)          connect_timeout
//   ApplicationName             application_name
//   currentSchema               options '-c search_path=...'
//   targetServerType            target_session_attrs: primary/master -> read-write,
//                               secondary/standby -> standby, preferSecondary ->
//                               prefer-standby, any -> any
//   tcpKeepAlive                keepalives
// PgJDBC ignores parameters it does not know; so does this (they are listed in
// `ignored`, for a log line), as it does the PgJDBC-only ones (socketTimeout,
// prepareThreshold, ...). A malformed URL throws weir::ConfigError naming
// `connection.url`. No message ever contains the password.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weir::connectors::jdbc {

struct PostgresConnection {
  /// libpq keyword/value pairs, in order (no keyword twice).
  std::vector<std::pair<std::string, std::string>> keywords;
  /// URL parameters that have no libpq meaning and were ignored (names only).
  std::vector<std::string> ignored;

  /// The value of `keyword`, or empty.
  std::string_view get(std::string_view keyword) const noexcept;
  /// `host=... port=... dbname=... user=...`: where it connects, for messages; never
  /// the password.
  std::string describe() const;

  /// `keywords` plus the defaults weir's clients connect with unless the URL says
  /// otherwise: PgJDBC's 10 s connect timeout, TCP keepalives (a silent peer is
  /// noticed), application name `weir`, and client_encoding UTF8.
  std::vector<std::pair<std::string, std::string>> client_keywords() const;
};

/// Whether `url` names PostgreSQL (`jdbc:postgresql:`).
bool is_postgres_url(std::string_view url) noexcept;

/// Parses `url`; non-empty `user` / `password` (connection.user, connection.password)
/// win over the URL's. Throws weir::ConfigError("connection.url", ...) when malformed.
PostgresConnection parse_postgres_url(std::string_view url, std::string_view user = {},
                                      std::string_view password = {});

} // namespace weir::connectors::jdbc
